// What the scan tests share: a world with its config and SANE environment, children run with a deadline,
// and what PDF tools say about a file. Moved here so that every test target can drive a scanner.
import Foundation
import Glibc

/// One test's world: a scratch folder with `config.toml` (library `docs/`, inbox `inbox/`,
/// state `state/`, so the spool is `state/scans/` and quarantine `quarantine/`), the SANE
/// environment every child gets, and children run with a deadline: a hung scanner fails the
/// test instead of stalling the run.
public final class ScanWorld {
    public let scratch: Scratch
    public let environment: [String: String]
    /// SANE's own `test` backend, which hangs now and then (see `Profiles`), however rarely.
    public let sanesTestBackend: Bool
    public static let deadline: TimeInterval = 120

    private init(sanesTestBackend: Bool = false, environment: (Scratch) throws -> [String: String]) throws {
        scratch = try Scratch()
        self.sanesTestBackend = sanesTestBackend
        self.environment = try environment(scratch)
        for folder in ["docs", "inbox"] {
            try FileManager.default.createDirectory(at: scratch.url.appendingPathComponent(folder), withIntermediateDirectories: true)
        }
    }

    /// SANE's `test` backend only, from a private config folder (its area goes to 300 mm, so A4 fits).
    public static func testBackend(dllConf: String = "test\n") throws -> ScanWorld {
        try ScanWorld(sanesTestBackend: true) { scratch in
            try scratch.write("sane/dll.conf", dllConf)
            try scratch.write("sane/test.conf", "geometry_max 300\n")
            // No trailing ":": /etc/sane.d and the installed backends stay out.
            return ["SANE_CONFIG_DIR": scratch.path + "/sane"]
        }
    }

    public static func tiny(_ tiny: TinySane) throws -> ScanWorld {
        try ScanWorld { _ in tiny.environment }
    }

    public var root: String { scratch.path }
    public var library: String { root + "/docs" }
    public var spool: String { root + "/state/scans" }
    public var quarantine: String { root + "/quarantine" }

    public func writeConfig(_ profilesAndRules: String) throws {
        try scratch.write("config.toml", """
            [daemon]
            state_dir = "state"
            [library]
            root = "docs"
            [inbox]
            path = "inbox"

            \(profilesAndRules)
            """)
    }

    public func scan(_ profile: String, _ more: [String] = [], environment: [String: String] = [:]) throws -> ChildRun {
        try againIfSANEHung { try pdftrapper(["scan", "--profile", profile, "--config", "config.toml"] + more, environment: environment) }
    }

    /// Even with `read-delay`, SANE's test backend hung twice here in a day of full runs on a busy
    /// machine (its reader thread, cancelled asynchronously, died holding a lock; nothing was
    /// printed, by it or by us). A run on that backend killed at the deadline is tried once more,
    /// and the hang is printed; our own tiny backend never gets a second try.
    private func againIfSANEHung(_ run: () throws -> ChildRun) throws -> ChildRun {
        let first = try run()
        guard sanesTestBackend, first.timedOut else { return first }
        print("ScanWorld: SANE's test backend hung for \(Int(first.timeout)) s; trying once more")
        // The hang may have come after the batch was spooled or committed (in sane_exit, say): the
        // second try starts from an empty library and spool, or its pages would be counted twice.
        for folder in [library, root + "/state/scans"] {
            for name in (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [] {
                try? FileManager.default.removeItem(atPath: folder + "/" + name)
            }
        }
        return try run()
    }

    public func pdftrapper(_ arguments: [String], environment extra: [String: String] = [:]) throws -> ChildRun {
        try start(arguments, environment: extra).wait(timeout: Self.deadline)
    }

    public func start(_ arguments: [String], environment extra: [String: String] = [:]) throws -> Child {
        try Child(Binary.path, arguments, environment: environment.merging(extra) { $1 }, in: scratch.url)
    }

    public func scanimage(_ arguments: [String]) throws -> ChildRun {
        try againIfSANEHung {
            try Child(try TinySane.tool("scanimage"), arguments, environment: environment, in: scratch.url).wait(timeout: Self.deadline)
        }
    }

    public func history(_ target: String) throws -> [Revision] {
        let run = try pdftrapper(["history", target])
        guard run.status == 0 else { throw ChildFailure(run: run) }
        return run.stdout.split(separator: "\n").map { Revision(String($0)) }
    }

    /// Batch folders waiting in the spool.
    public func spoolBatches() -> [String] {
        ((try? contents(spool)) ?? []).filter { !$0.hasPrefix(".") }
    }

    public func contents(_ folder: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: folder).sorted()
    }
}

/// A line of `pdftrapper history`: `2  ingest  TIME  +10 pages  bytes A-B  IN (sha256 X), ...  [NOTE]`.
public struct Revision: CustomStringConvertible {
    public var line: String
    public var pages: Int
    public var inputs: [String]
    public var note: String

    public init(_ line: String) {
        self.line = line
        let fields = line.components(separatedBy: "  ")
        pages = fields.first { $0.hasPrefix("+") }.flatMap { Int($0.dropFirst().split(separator: " ")[0]) } ?? -1
        let listed = fields.first { $0.contains("(sha256 ") } ?? ""
        inputs = listed.components(separatedBy: "), ").map { $0.components(separatedBy: " (sha256")[0] }
        note = fields.last.flatMap { $0.hasPrefix("[") ? String($0.dropFirst().dropLast()) : nil } ?? ""
    }

    public var description: String { line }
}

/// The `[profile.NAME]` tables the tests write.
public enum Profiles {
    /// A profile on SANE's `test` device. Every one passes `read-delay`: the test backend kills
    /// its reader thread with an asynchronous pthread_cancel once a page is read, and when the
    /// frontend reads fast the thread can die holding glibc's loader lock, so that the next
    /// sane_start hangs for ever (4 of 16 ten-page batches did). A pause of `delay` µs after each
    /// buffer makes the cancel land while the thread sleeps (0 of 16 hung at 1000). The options
    /// also show that `[profile.NAME.options]` reach the device by their SANE names.
    public static func onTestScanner(_ name: String, _ keys: String, delay: Int = 1000, options: String = "") -> String {
        """
        [profile.\(name)]
        device = "test:0"
        \(keys)
        [profile.\(name).options]
        read-delay = true
        read-delay-duration = \(delay)
        \(options)

        """
    }

    /// The same pause for scanimage runs that make reference pages.
    public static func scanimageDelay(_ delay: Int = 1000) -> [String] {
        ["--read-delay=yes", "--read-delay-duration=\(delay)"]
    }
}

/// What PDF tools say about a file.
public enum PDFs {
    /// A row of `pdfimages -list`.
    public struct ListedImage: CustomStringConvertible {
        public var page, width, height: Int
        public var color: String
        public var components, bitsPerComponent: Int
        /// "jpeg", "ccitt", "image" (Flate or none)...
        public var encoding: String
        public var object: Int
        public var xPPI, yPPI: Int
        public var description: String { "\(width)x\(height) \(color) \(components)x\(bitsPerComponent) bpc \(encoding) \(xPPI)x\(yPPI) ppi (object \(object))" }
    }

    public static func images(_ pdf: String) throws -> [ListedImage] {
        let text = try PDFReaders.succeeded("pdfimages", ["-list", pdf]).text
        // page num type width height color comp bpc enc interp object gen x-ppi y-ppi size ratio
        return text.split(separator: "\n").dropFirst(2).map { row in
            let f = row.split(separator: " ").map(String.init)
            return ListedImage(page: Int(f[0]) ?? 0, width: Int(f[3]) ?? 0, height: Int(f[4]) ?? 0, color: f[5],
                               components: Int(f[6]) ?? 0, bitsPerComponent: Int(f[7]) ?? 0, encoding: f[8],
                               object: Int(f[10]) ?? 0, xPPI: Int(f[12]) ?? 0, yPPI: Int(f[13]) ?? 0)
        }
    }

    /// qpdf's view of an object's dictionary.
    public static func objectDictionary(_ pdf: String, _ object: Int) throws -> String {
        try PDFReaders.succeeded("qpdf", ["--show-object=\(object)", pdf]).text
    }

    /// Each page's size in points, from pdfinfo.
    public static func pageSizes(_ pdf: String) throws -> [(width: Double, height: Double)] {
        let text = try PDFReaders.succeeded("pdfinfo", ["-f", "1", "-l", "99999", pdf]).text
        return text.split(separator: "\n").compactMap { line in
            guard let match = line.firstMatch(of: #/Page\s+\d+ size:\s+([0-9.]+) x ([0-9.]+) pts/#) else { return nil }
            return (Double(match.1) ?? 0, Double(match.2) ?? 0)
        }
    }

    /// Every page rendered by pdftoppm, as PPM (or PGM with `gray`) bytes, in page order.
    public static func renders(_ pdf: String, dpi: Int = 36, gray: Bool = false) throws -> [Data] {
        let folder = try Scratch()
        _ = try PDFReaders.succeeded("pdftoppm", ["-r", "\(dpi)"] + (gray ? ["-gray"] : []) + [pdf, folder.path + "/p"])
        return try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
            .map { try Data(contentsOf: folder.url.appendingPathComponent($0)) }
    }

    /// The tiny scanner's page marks (K mod 16 bars) on each page, in page order.
    public static func bars(_ pdf: String) throws -> [Int] {
        try renders(pdf, dpi: 40, gray: true).map { TinySane.bars(in: try PNMImage($0)) }
    }

    public static func count(_ needle: String, in file: String) throws -> Int {
        let data = try Data(contentsOf: URL(fileURLWithPath: file))
        var count = 0, from = data.startIndex
        while let found = data.range(of: Data(needle.utf8), in: from..<data.endIndex) {
            count += 1
            from = found.upperBound
        }
        return count
    }
}

/// A child process with a deadline. Output goes through files, so a chatty child never blocks.
public final class Child {
    private let process = Process()
    private let outFile: URL, errFile: URL

    public init(_ executable: String, _ arguments: [String], environment: [String: String], in directory: URL) throws {
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("child-\(UUID().uuidString)")
        outFile = base.appendingPathExtension("out")
        errFile = base.appendingPathExtension("err")
        _ = FileManager.default.createFile(atPath: outFile.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errFile.path, contents: nil)
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        var inherited = ProcessInfo.processInfo.environment
        inherited.removeValue(forKey: "PDFTRAPPER_CONFIG")
        process.environment = inherited.merging(environment) { $1 }
        process.currentDirectoryURL = directory
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = try FileHandle(forWritingTo: outFile)
        process.standardError = try FileHandle(forWritingTo: errFile)
        try process.run()
    }

    deinit {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        try? FileManager.default.removeItem(at: outFile)
        try? FileManager.default.removeItem(at: errFile)
    }

    public var pid: pid_t { process.processIdentifier }
    public var isRunning: Bool { process.isRunning }

    /// Waits for the child; past `timeout` seconds it is killed and the run says so.
    public func wait(timeout: TimeInterval) -> ChildRun {
        let timedOut = !eventually(timeout: timeout) { !process.isRunning }
        if timedOut { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        let signalled = process.terminationReason == .uncaughtSignal
        return ChildRun(status: signalled ? 128 + process.terminationStatus : process.terminationStatus,
                        signal: signalled ? process.terminationStatus : nil,
                        stdout: (try? String(contentsOf: outFile, encoding: .utf8)) ?? "",
                        stderr: (try? String(contentsOf: errFile, encoding: .utf8)) ?? "",
                        timedOut: timedOut, timeout: timeout)
    }
}

public struct ChildRun: CustomStringConvertible {
    /// The exit status; 128 + N when killed by signal N.
    public var status: Int32
    public var signal: Int32?
    public var stdout: String
    public var stderr: String
    public var timedOut: Bool
    public var timeout: TimeInterval

    public var description: String {
        let end = timedOut ? "still running after \(Int(timeout)) s, killed (a hung scanner backend?)"
            : signal.map { "killed by signal \($0)" } ?? "exit \(status)"
        return "\(end)\n--- stdout:\n\(stdout)--- stderr:\n\(stderr)"
    }
}

public struct ChildFailure: Error, CustomStringConvertible {
    public var run: ChildRun
    public var description: String { "\(run)" }
}


/// The tiny scanner's log made a FIFO. The backend opens the log for each line it writes, and
/// opening a FIFO to write waits until someone opens it to read: so between two `pass` calls
/// the scanning process stops at its next log line.
public final class LogGate {
    public let path: String

    public init(_ tiny: TinySane) throws {
        path = tiny.control.appendingPathComponent("log").path
        unlink(path)
        guard mkfifo(path, 0o644) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
    }

    /// Opens the FIFO until at least one whole line has come, then closes it; nil if none came in time.
    public func pass(timeout: TimeInterval) -> [String]? {
        let descriptor = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var text = ""
        let end = Date().addingTimeInterval(timeout)
        while !text.hasSuffix("\n") {
            guard let chunk = read(descriptor, until: end) else { return nil }
            text += chunk
        }
        return text.split(separator: "\n").map(String.init)
    }

    /// Keeps the FIFO open, reading every line, until `done` (or `timeout`).
    public func drain(until done: () -> Bool, timeout: TimeInterval) -> [String] {
        let descriptor = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else { return [] }
        defer { close(descriptor) }
        var text = ""
        let end = Date().addingTimeInterval(timeout)
        while !done(), Date() < end {
            text += read(descriptor, until: min(end, Date().addingTimeInterval(0.05))) ?? ""
        }
        return text.split(separator: "\n").map(String.init)
    }

    /// What one wait for data brings: "" at end of file (no writer now), nil at the deadline.
    private func read(_ descriptor: Int32, until end: Date) -> String? {
        var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        let milliseconds = Int32(max(0, end.timeIntervalSinceNow) * 1000)
        guard poll(&poller, 1, milliseconds) > 0 else { return nil }
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = Glibc.read(descriptor, &buffer, buffer.count)
        if count <= 0 {
            // No writer: wait a moment rather than spin on the hang-up.
            usleep(1000)
            return ""
        }
        return String(decoding: buffer[0..<count], as: UTF8.self)
    }
}
