import Foundation

/// Runs a program and captures what it says. Output goes through files, not pipes, so a chatty
/// child never blocks on a full pipe.
struct ToolRun {
    var status: Int32
    var stdout: String
    var stderr: String

    static func run(
        _ executable: String, _ arguments: [String], environment: [String: String]? = nil,
        stderrFile: URL? = nil
    ) throws -> ToolRun {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        if let environment { process.environment = environment }
        let folder = FileManager.default.temporaryDirectory
        let outFile = folder.appendingPathComponent("daemon-tests-\(UUID().uuidString).out")
        let errFile = stderrFile ?? folder.appendingPathComponent("daemon-tests-\(UUID().uuidString).err")
        for file in [outFile, errFile] where !FileManager.default.fileExists(atPath: file.path) {
            _ = FileManager.default.createFile(atPath: file.path, contents: nil)
        }
        defer {
            try? FileManager.default.removeItem(at: outFile)
            if stderrFile == nil { try? FileManager.default.removeItem(at: errFile) }
        }
        process.standardOutput = try FileHandle(forWritingTo: outFile)
        process.standardError = try FileHandle(forWritingTo: errFile)
        try process.run()
        process.waitUntilExit()
        return ToolRun(
            status: process.terminationStatus,
            stdout: String(decoding: try Data(contentsOf: outFile), as: UTF8.self),
            stderr: String(decoding: try Data(contentsOf: errFile), as: UTF8.self))
    }

    /// The first of `names` found on PATH (or at an absolute path), or nil.
    static func tool(_ names: String...) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        let folders = path.split(separator: ":").map(String.init) + ["/usr/bin", "/bin", "/lib/systemd", "/usr/lib/systemd"]
        for name in names {
            if name.hasPrefix("/") { if FileManager.default.isExecutableFile(atPath: name) { return name } ; continue }
            for folder in folders where FileManager.default.isExecutableFile(atPath: folder + "/" + name) {
                return folder + "/" + name
            }
        }
        return nil
    }
}

/// Tests that need their code to run in another process (another stderr, another mount namespace)
/// run this test binary again with `PDFTRAPPER_TEST_HELPER` set, filtered to one helper "test",
/// which does the job and exits. Outside such a run every helper is disabled.
enum Helper {
    static let requested = ProcessInfo.processInfo.environment["PDFTRAPPER_TEST_HELPER"]

    /// The command line that runs helper `name` of this test binary.
    static func commandLine(_ name: String) -> [String] {
        [CommandLine.arguments[0], "--testing-library", "swift-testing", "--filter", "HelperTests/\(name)"]
    }
}
