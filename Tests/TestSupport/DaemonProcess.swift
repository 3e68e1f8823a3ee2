import Foundation
import Glibc

/// A datagram socket standing in for systemd's notify socket: the daemon under test sends its
/// READY=1, STATUS=..., STOPPING=1 here (through `NOTIFY_SOCKET`).
public final class NotifyListener {
    public let path: String
    private let fd: Int32
    public private(set) var messages: [String] = []

    public init() throws {
        path = FileManager.default.temporaryDirectory.appendingPathComponent("notify-\(UUID().uuidString.prefix(8)).sock").path
        fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            path.utf8CString.withUnsafeBytes { raw.copyMemory(from: $0) }
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard fd >= 0, bound == 0 else { throw POSIXError(.EADDRINUSE) }
    }

    deinit {
        close(fd)
        unlink(path)
    }

    /// Reads what has arrived; then waits up to `timeout` for a message containing `text`.
    @discardableResult
    public func wait(for text: String, timeout: Double = 10) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            drain()
            if messages.contains(where: { $0.contains(text) }) { return true }
            if Date() > deadline { return false }
            usleep(20_000)
        }
    }

    public func drain() {
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = recv(fd, &buffer, buffer.count, Int32(MSG_DONTWAIT))
            guard count > 0 else { return }
            messages.append(String(decoding: buffer.prefix(count), as: UTF8.self))
        }
    }
}

/// The real daemon (`pdftrapper run`) running in the background of a test, its stderr in a file.
public final class DaemonProcess {
    public let process = Process()
    public let notify: NotifyListener
    public let logFile: String

    public init(config: String, in directory: URL, environment: [String: String] = [:]) throws {
        notify = try NotifyListener()
        logFile = directory.appendingPathComponent("daemon-\(UUID().uuidString.prefix(6)).log").path
        FileManager.default.createFile(atPath: logFile, contents: nil)
        process.executableURL = URL(fileURLWithPath: Binary.path)
        process.arguments = ["run", "--config", config]
        var env = ProcessInfo.processInfo.environment
        env.removeValue(forKey: "JOURNAL_STREAM")
        env["NOTIFY_SOCKET"] = notify.path
        env.merge(environment) { $1 }
        process.environment = env
        process.currentDirectoryURL = directory
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: logFile))
        process.standardError = handle
        process.standardOutput = handle
        try process.run()
    }

    deinit {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }

    public var log: String { (try? String(contentsOfFile: logFile, encoding: .utf8)) ?? "" }

    public func signal(_ number: Int32) { kill(process.processIdentifier, number) }

    /// SIGTERM, then the exit status (nil if it did not stop within `timeout`).
    public func stop(timeout: Double = 20) -> Int32? {
        signal(SIGTERM)
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning, Date() < deadline { usleep(20_000) }
        guard !process.isRunning else { return nil }
        return process.terminationStatus
    }
}

/// Polls `condition` until it holds or `timeout` passes; returns whether it held.
public func eventually(timeout: Double = 20, _ condition: () throws -> Bool) rethrows -> Bool {
    let deadline = Date().addingTimeInterval(timeout)
    while Date() < deadline {
        if try condition() { return true }
        usleep(50_000)
    }
    return try condition()
}
