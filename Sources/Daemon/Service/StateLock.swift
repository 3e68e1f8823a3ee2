import Foundation
import Glibc
import System

/// One daemon per state folder: `run` holds an exclusive flock(2) on `STATE/daemon.lock` for as
/// long as it runs, with its PID written inside. A second daemon on the same state folder is
/// refused, naming the first; `status` asks the lock, not a file the last process to stop wrote,
/// whether a daemon runs. The kernel drops the lock when the process ends, however it ends.
public final class StateLock {
    private let fd: Int32

    public static func path(stateDir: String) -> String { stateDir + "/daemon.lock" }

    /// Why the lock could not be taken.
    public enum Refusal: Error, CustomStringConvertible {
        case held(pid: Int32?, stateDir: String)
        case failed(Durable.Failure)

        public var description: String {
            switch self {
            case .held(let pid, let stateDir):
                "another pdftrapper daemon\(pid.map { " (pid \($0))" } ?? "") runs on the state folder \(stateDir); "
                    + "stop it first, or give this one a daemon.state_dir of its own"
            case .failed(let failure): "\(failure)"
            }
        }
    }

    /// Takes the lock for this process, or says who holds it.
    public init(stateDir: String) throws(Refusal) {
        let path = Self.path(stateDir: stateDir)
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw .failed(Durable.Failure(step: "open lock", path: path, code: errno)) }
        switch FileLock.take(fd, wait: false) {
        case .taken: break
        case .held:
            defer { close(fd) }
            throw .held(pid: Self.pid(in: fd), stateDir: stateDir)
        case .failed(let code):
            close(fd)
            throw .failed(Durable.Failure(step: "lock", path: path, code: code))
        }
        let text = Array("\(getpid())\n".utf8)
        guard ftruncate(fd, 0) == 0, pwrite(fd, text, text.count, 0) == text.count else {
            let failure = Durable.Failure(step: "write", path: path, code: errno)
            close(fd)
            throw .failed(failure)
        }
        self.fd = fd
    }

    deinit { close(fd) }

    /// The PID of the daemon that holds the lock now, or nil when none does.
    public static func holder(stateDir: String) -> Int32? {
        let fd = open(path(stateDir: stateDir), O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        // A shared lock is refused only while a daemon holds its exclusive one.
        guard FileLock.take(fd, .shared, wait: false) == .held else { return nil }
        return pid(in: fd) ?? 0
    }

    private static func pid(in fd: Int32) -> Int32? {
        var buffer = [UInt8](repeating: 0, count: 32)
        let count = pread(fd, &buffer, buffer.count, 0)
        guard count > 0 else { return nil }
        return Int32(String(decoding: buffer[..<count], as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
    }
}
