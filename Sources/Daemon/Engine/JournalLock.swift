import Glibc
import System

/// An exclusive flock(2) on a target's lock file in a state folder: it keeps two threads or
/// processes of one state folder from writing that target's journal and state at once. The
/// target's own bytes are guarded by its TargetLock (System), which every process takes whatever
/// its state folder; this one is taken first, so the two are always taken in the same order.
/// Released when the lock is dropped (or the process dies, which the kernel handles).
public final class JournalLock {
    private let fd: Int32

    public init(_ path: String, in folders: ConfinedFolders) throws(Durable.Failure) {
        fd = try folders.open(path, flags: O_RDWR | O_CREAT, mode: 0o600)
        if case .failed(let code) = FileLock.take(fd) {
            close(fd)
            throw Durable.Failure(step: "lock", path: path, code: code)
        }
    }

    deinit { close(fd) }
}
