import Foundation
import Glibc
import System
import TrapperCore

extension ChildProcess {
    /// Writes `bytes` to its standard input on a thread of its own, then closes it: a program that
    /// does not read never blocks the caller, and one that exits without reading makes the write
    /// fail (EPIPE: the writing thread blocks SIGPIPE, which would otherwise end the daemon).
    func sendInput(_ bytes: [UInt8]) {
        guard let input else { return }
        Thread {
            var pipeSignal = sigset_t()
            sigemptyset(&pipeSignal)
            sigaddset(&pipeSignal, SIGPIPE)
            pthread_sigmask(SIG_BLOCK, &pipeSignal, nil)
            _ = bytes.withUnsafeBytes { Durable.writeAll(input, $0) }
            close(input)
        }.start()
    }
}

extension ChildProcess {
    /// Its standard output read to the end on a thread of its own, so that a child that prints a
    /// lot never blocks on a full pipe; at most `limit` bytes are kept. The descriptor is closed
    /// at the end.
    func collectOutput(limit: Int = .max) -> CollectedOutput {
        CollectedOutput(output!, limit: limit)
    }
}

/// What a child printed, gathered by `ChildProcess.collectOutput`.
final class CollectedOutput: @unchecked Sendable {
    private let lock = NSLock()
    private var kept: [UInt8] = []
    private let ended = DispatchSemaphore(value: 0)

    fileprivate init(_ fd: Int32, limit: Int) {
        Thread { [self] in
            var buffer = [UInt8](repeating: 0, count: 65536)
            while true {
                let count = Glibc.read(fd, &buffer, buffer.count)
                if count < 0, errno == EINTR { continue }
                guard count > 0 else { break }
                lock.withLock { kept += buffer.prefix(min(count, max(0, limit - kept.count))) }
            }
            close(fd)
            ended.signal()
        }.start()
    }

    /// Waits until the output has ended (the child and whatever it left holding the pipe are gone),
    /// at most `seconds` when given; false when it has not.
    @discardableResult
    func waitForEnd(seconds: Double? = nil) -> Bool {
        guard let seconds else {
            ended.wait()
            ended.signal()
            return true
        }
        guard ended.wait(timeout: .now() + seconds) == .success else { return false }
        ended.signal()
        return true
    }

    var bytes: [UInt8] { lock.withLock { kept } }
}
