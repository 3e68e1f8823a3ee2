import Foundation
import Glibc

/// A datagram socket standing in for systemd's notify socket: the daemon under test sends its
/// READY=1, STATUS=..., STOPPING=1 here (through `NOTIFY_SOCKET`). Like systemd, it reads all the
/// time (a full socket would block the sender), on a thread of its own.
public final class NotifyListener: @unchecked Sendable {
    public let path: String
    private let fd: Int32
    private let lock = NSLock()
    private var received: [String] = []
    private var open = true

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
        Thread.detachNewThread { [self] in readUntilClosed() }
    }

    deinit {
        lock.withLock { open = false }
        shutdown(fd, Int32(SHUT_RDWR))
        unlink(path)
    }

    public var messages: [String] { lock.withLock { received } }

    /// Waits up to `timeout` for a message containing `text`.
    @discardableResult
    public func wait(for text: String, timeout: Double = 10) -> Bool {
        eventually(timeout: timeout) { messages.contains { $0.contains(text) } }
    }

    private func readUntilClosed() {
        var buffer = [UInt8](repeating: 0, count: 4096)
        var waiting = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        while lock.withLock({ open }) {
            guard poll(&waiting, 1, 100) > 0 else { continue }
            let count = recv(fd, &buffer, buffer.count, Int32(MSG_DONTWAIT))
            if count > 0 {
                let message = String(decoding: buffer.prefix(count), as: UTF8.self)
                lock.withLock { received.append(message) }
            }
        }
        close(fd)
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
