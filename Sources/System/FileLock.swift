import Glibc

/// flock(2): the one way PDFTrapper takes a file lock, on an open descriptor, exclusive or shared,
/// waiting or not. The lock belongs to the open file description: it goes when the last descriptor
/// on it is closed or the process ends, however it ends, and two descriptors opened apart conflict
/// even within one process. Every lock in the project (a target's TargetLock, a state folder's
/// journal and daemon locks, a scan batch, the outbox's delivery, an OCR request) is taken here.
public enum FileLock {
    public enum Mode: Sendable { case exclusive, shared }

    public enum Outcome: Equatable, Sendable {
        case taken
        /// Another holder has it (only when not waiting).
        case held
        /// flock failed otherwise: the errno.
        case failed(Int32)
    }

    /// Takes the lock on `descriptor`: waits for it (an interruption by a signal is retried), or
    /// with `wait: false` answers `held` at once when another has it.
    public static func take(_ descriptor: Int32, _ mode: Mode = .exclusive, wait: Bool = true) -> Outcome {
        let operation = (mode == .exclusive ? LOCK_EX : LOCK_SH) | (wait ? 0 : LOCK_NB)
        while flock(descriptor, operation) != 0 {
            let code = errno
            if code == EINTR { continue }
            return code == EWOULDBLOCK ? .held : .failed(code)
        }
        return .taken
    }
}
