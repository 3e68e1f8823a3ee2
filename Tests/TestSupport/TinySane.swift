import Foundation
import Glibc

/// A real SANE scanner for tests: the `tiny` backend (Tests/Fixtures/tiny-sane/tiny.c), built with
/// `cc` once per test process and loaded by libsane's dll backend like any installed backend. Each
/// `TinySane` has its own control folder, so tests using it may run in parallel; pass `environment`
/// to every child process (scanimage, pdftrapper) that should see the scanner.
///
/// The device is `tiny:0`: a sheet-fed scanner with an ADF, a `scan` and an `email` button, and
/// switches for "busy" and "unplugged". Page K (counted across processes) shows K mod 16 black bars
/// at its top left; `TinySane.bars(in:)` counts them.
public struct TinySane {
    /// `TINY_SANE_DIR`: the files the backend reads and writes.
    public let control: URL
    /// `SANE_CONFIG_DIR`: a dll.conf naming only `tiny` (and `test` with `alsoTest`).
    public let configDirectory: URL
    /// `SANE_CONFIG_DIR`, `LD_LIBRARY_PATH` and `TINY_SANE_DIR`, for child processes.
    public let environment: [String: String]
    private let scratch: Scratch

    /// A fresh scanner: no sheets, no buttons held, plugged in, idle. `alsoTest` lists SANE's own
    /// `test` backend too (with `geometry_max 300`), for tests that need two kinds of device.
    public static func make(alsoTest: Bool = false) throws -> TinySane {
        let library = try built.get()
        let scratch = try Scratch()
        let control = scratch.url.appendingPathComponent("control")
        let config = scratch.url.appendingPathComponent("config")
        for folder in [control, config] {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        }
        try (alsoTest ? "tiny\ntest\n" : "tiny\n").write(to: config.appendingPathComponent("dll.conf"), atomically: true, encoding: .utf8)
        if alsoTest {
            try "geometry_max 300\n".write(to: config.appendingPathComponent("test.conf"), atomically: true, encoding: .utf8)
        }
        // dll searches LD_LIBRARY_PATH before its own libdir; a SANE_CONFIG_DIR without a trailing
        // ":" keeps /etc/sane.d (and every installed backend) out.
        let libraryFolder = library.file.deletingLastPathComponent().path
        let inherited = ProcessInfo.processInfo.environment["LD_LIBRARY_PATH"].map { ":" + $0 } ?? ""
        return TinySane(control: control, configDirectory: config, environment: [
            "SANE_CONFIG_DIR": config.path,
            "LD_LIBRARY_PATH": libraryFolder + inherited,
            "TINY_SANE_DIR": control.path,
        ], scratch: scratch)
    }

    // MARK: Switches

    /// Holds a button (`"scan"` or `"email"`) down until `release`.
    public func press(_ button: String) throws { try touch("button-\(button)") }
    public func release(_ button: String) throws { try remove("button-\(button)") }

    /// Puts `sheets` sheets in the ADF (replacing what was there).
    public func loadFeeder(_ sheets: Int) throws { try write("pages", "\(sheets)\n") }
    /// Sheets still in the ADF.
    public var feederCount: Int { number("pages") }
    /// Page images delivered so far by this scanner (the K of the last page).
    public var pagesDelivered: Int { number("sequence") }
    /// The next page shows K = `count` + 1 (its bars, K mod 16; none for a multiple of 16).
    public func setPagesDelivered(_ count: Int) throws { try write("sequence", "\(count)\n") }

    /// While busy, every open is refused with "Device busy".
    public func setBusy(_ on: Bool) throws { try on ? touch("busy") : remove("busy") }
    /// Unplugged: no device is listed, opens fail, an open handle gets I/O errors.
    public func unplug() throws { try touch("gone") }
    public func replug() throws { try remove("gone") }

    /// Claims the device as another program would, until the holder is released (or dropped).
    public func hold() throws -> DeviceHolder { try DeviceHolder(lock: control.appendingPathComponent("lock").path) }

    /// What the scanner was asked to do: `open`, `close`, `start page=K mode=M resolution=R
    /// source=S brightness=B area=TLX,TLY,BRX,BRY`, one per line.
    public var log: [String] {
        guard let text = try? String(contentsOf: control.appendingPathComponent("log"), encoding: .utf8) else { return [] }
        return text.split(separator: "\n").map(String.init)
    }

    /// Runs `scanimage` (sane-utils) with this scanner's environment.
    public func scanimage(_ arguments: [String], in directory: URL? = nil) throws -> Run {
        try Self.execute(try Self.tool("scanimage"), arguments, environment: environment, in: directory)
    }

    private func touch(_ name: String) throws { try write(name, "") }

    private func write(_ name: String, _ text: String) throws {
        try text.write(to: control.appendingPathComponent(name), atomically: true, encoding: .utf8)
    }

    private func remove(_ name: String) throws {
        guard unlink(control.appendingPathComponent(name).path) == 0 || errno == ENOENT else {
            throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
        }
    }

    private func number(_ name: String) -> Int {
        let text = try? String(contentsOf: control.appendingPathComponent(name), encoding: .utf8)
        return text.flatMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) } ?? 0
    }
}

public enum TinySaneError: Error, CustomStringConvertible, Equatable, Sendable {
    case buildFailed(command: String, output: String)
    case missingTool(String)
    case deviceHeld
    case notPNM(String)

    public var description: String {
        switch self {
        case let .buildFailed(command, output): "tiny SANE backend: \(command) failed:\n\(output)"
        case let .missingTool(name): "tiny SANE backend: \(name) is not on PATH (apt-get install sane-utils build-essential)"
        case .deviceHeld: "tiny SANE backend: the device is already held"
        case let .notPNM(why): "not a PNM image: \(why)"
        }
    }
}

/// Holds the device's lock the way an open handle does (flock on `lock`), so opens elsewhere fail
/// with "Device busy".
public final class DeviceHolder {
    private var descriptor: Int32

    init(lock path: String) throws {
        descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            close(descriptor)
            throw TinySaneError.deviceHeld
        }
    }

    public func release() {
        if descriptor >= 0 { close(descriptor) }
        descriptor = -1
    }

    deinit { release() }
}

// MARK: Building the backend

extension TinySane {
    public struct Library: Sendable {
        /// `.../pdftrapper-tiny-sane-PID/lib/libsane-tiny.so.1`
        public let file: URL
        /// What the compiler said (empty: no warnings).
        public let compilerOutput: String
    }

    /// The built backend; the first call builds it, later calls (and failures) are remembered.
    public static func library() throws -> Library { try built.get() }

    public static let source = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fixtures/tiny-sane/tiny.c")

    private static let built = Result<Library, TinySaneError> { () throws(TinySaneError) -> Library in
        let folder = URL(fileURLWithPath: NSTemporaryDirectory())
            .appendingPathComponent("pdftrapper-tiny-sane-\(getpid())/lib")
        let file = folder.appendingPathComponent("libsane-tiny.so.1")
        let partial = folder.appendingPathComponent("libsane-tiny.so.1.part")
        let arguments = ["-std=c11", "-Wall", "-Wextra", "-shared", "-fPIC", "-I/usr/include",
                         "-o", partial.path, source.path]
        let command = (["cc"] + arguments).joined(separator: " ")
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            let run = try execute(try tool("cc"), arguments, environment: [:], in: nil)
            guard run.status == 0 else { throw TinySaneError.buildFailed(command: command, output: run.stderr) }
            // Renamed into place whole: dlopen never sees half a library.
            guard rename(partial.path, file.path) == 0 else {
                throw TinySaneError.buildFailed(command: command, output: "rename: \(String(cString: strerror(errno)))")
            }
            return Library(file: file, compilerOutput: run.stderr)
        } catch let error as TinySaneError {
            throw error
        } catch {
            throw TinySaneError.buildFailed(command: command, output: "\(error)")
        }
    }

    /// The full path of a program on PATH.
    public static func tool(_ name: String) throws -> String {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        for folder in path.split(separator: ":") where access("\(folder)/\(name)", X_OK) == 0 {
            return "\(folder)/\(name)"
        }
        throw TinySaneError.missingTool(name)
    }

    /// Like `Binary.run`, for any program: output through files, so a chatty child never blocks.
    static func execute(_ executable: String, _ arguments: [String], environment: [String: String], in directory: URL?) throws -> Run {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        if let directory { process.currentDirectoryURL = directory }
        let outFile = FileManager.default.temporaryDirectory.appendingPathComponent("run-\(UUID().uuidString).out")
        let errFile = outFile.deletingPathExtension().appendingPathExtension("err")
        _ = FileManager.default.createFile(atPath: outFile.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errFile.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: outFile); try? FileManager.default.removeItem(at: errFile) }
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = try FileHandle(forWritingTo: outFile)
        process.standardError = try FileHandle(forWritingTo: errFile)
        try process.run()
        process.waitUntilExit()
        return Run(status: process.terminationStatus,
                   stdout: String(decoding: try Data(contentsOf: outFile), as: UTF8.self),
                   stderr: String(decoding: try Data(contentsOf: errFile), as: UTF8.self))
    }
}

// MARK: Reading pages

/// A binary PNM image (P4 bitmap, P5 gray, P6 RGB), as scanimage writes them.
public struct PNMImage {
    public let kind: String
    public let width: Int
    public let height: Int
    private let bytes: [UInt8]
    private let start: Int

    public init(_ data: Data) throws {
        bytes = [UInt8](data)
        // Header: magic, width, height, maxval (not for P4), whitespace-separated, "#" comments.
        var tokens: [String] = [], index = 0
        while tokens.count < (tokens.first == "P4" ? 3 : 4) {
            guard index < bytes.count else { throw TinySaneError.notPNM("header ends early") }
            let byte = bytes[index]
            if byte == UInt8(ascii: "#") {
                while index < bytes.count, bytes[index] != UInt8(ascii: "\n") { index += 1 }
            } else if byte == 0x20 || (0x09...0x0D).contains(byte) {
                index += 1
            } else {
                var token = ""
                while index < bytes.count, bytes[index] > 0x20 { token.append(Character(UnicodeScalar(bytes[index]))); index += 1 }
                tokens.append(token)
            }
        }
        kind = tokens[0]
        guard ["P4", "P5", "P6"].contains(kind) else { throw TinySaneError.notPNM("magic \(kind)") }
        guard let width = Int(tokens[1]), let height = Int(tokens[2]) else { throw TinySaneError.notPNM("size \(tokens[1]) \(tokens[2])") }
        self.width = width
        self.height = height
        start = index + 1      // one whitespace byte ends the header
        let rowBytes = kind == "P4" ? (width + 7) / 8 : kind == "P5" ? width : 3 * width
        guard bytes.count - start >= rowBytes * height else { throw TinySaneError.notPNM("\(bytes.count - start) bytes of pixels for \(width)x\(height) \(kind)") }
    }

    /// Whether the pixel is nearer black than white.
    public func isDark(x: Int, y: Int) -> Bool {
        switch kind {
        case "P4": return bytes[start + y * ((width + 7) / 8) + x / 8] & (0x80 >> UInt8(x % 8)) != 0
        case "P5": return bytes[start + y * width + x] < 128
        default:
            let pixel = start + 3 * (y * width + x)
            return (Int(bytes[pixel]) + Int(bytes[pixel + 1]) + Int(bytes[pixel + 2])) < 3 * 128
        }
    }
}

extension TinySane {
    /// The page mark (K mod 16) of a tiny page: the black bars along a row in its top quarter.
    public static func bars(in image: PNMImage) -> Int {
        let row = image.height / 8
        return bars(inRow: (0..<image.width).map { image.isDark(x: $0, y: row) })
    }

    /// Runs of dark pixels along a row (of any decoded image, e.g. after JPEG).
    public static func bars(inRow dark: [Bool]) -> Int {
        zip([false] + dark, dark).filter { !$0 && $1 }.count
    }
}
