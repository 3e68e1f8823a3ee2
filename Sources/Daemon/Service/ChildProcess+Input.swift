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
