import Foundation


/// Runs the real `pdftrapper` binary, as a user would, and captures what it says.
public struct Run {
    public var status: Int32
    public var stdout: String
    public var stderr: String

    /// Lines of stderr, without the empty last one.
    public var errorLines: [String] { stderr.split(separator: "\n").map(String.init) }
}

public enum Binary {
    /// The package root, found from this file's place in it.
    public static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// `$PDFTRAPPER_BIN`, else the binary the test build made beside the test runner.
    public static var path: String {
        if let explicit = ProcessInfo.processInfo.environment["PDFTRAPPER_BIN"] { return explicit }
        var folder = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        // The runner may be inside a bundle folder (`X.xctest/...`).
        while folder.path != "/", !FileManager.default.fileExists(atPath: folder.appendingPathComponent("pdftrapper").path) {
            folder.deleteLastPathComponent()
        }
        return folder.appendingPathComponent("pdftrapper").path
    }

    public static func run(_ arguments: [String], environment: [String: String] = [:], in directory: URL? = nil) throws -> Run {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        var env = ProcessInfo.processInfo.environment
        env.removeValue(forKey: "PDFTRAPPER_CONFIG")
        env.merge(environment) { $1 }
        process.environment = env
        if let directory { process.currentDirectoryURL = directory }
        // Files, not pipes: a chatty child can never block on a full pipe.
        let outFile = FileManager.default.temporaryDirectory.appendingPathComponent("run-\(UUID().uuidString).out")
        let errFile = outFile.deletingPathExtension().appendingPathExtension("err")
        FileManager.default.createFile(atPath: outFile.path, contents: nil)
        FileManager.default.createFile(atPath: errFile.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: outFile); try? FileManager.default.removeItem(at: errFile) }
        process.standardOutput = try FileHandle(forWritingTo: outFile)
        process.standardError = try FileHandle(forWritingTo: errFile)
        try process.run()
        process.waitUntilExit()
        let outData = try Data(contentsOf: outFile), errData = try Data(contentsOf: errFile)
        return Run(status: process.terminationStatus, stdout: String(decoding: outData, as: UTF8.self),
                   stderr: String(decoding: errData, as: UTF8.self))
    }
}

/// A fresh folder under /tmp for one test, removed at the end.
public final class Scratch {
    public let url: URL

    public init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("pdftrapper-e2e-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: url) }

    public var path: String { url.path }

    @discardableResult
    public func write(_ name: String, _ text: String) throws -> String {
        try write(name, Data(text.utf8))
    }

    @discardableResult
    public func write(_ name: String, _ data: Data) throws -> String {
        let file = url.appendingPathComponent(name)
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try data.write(to: file)
        return file.path
    }
}
