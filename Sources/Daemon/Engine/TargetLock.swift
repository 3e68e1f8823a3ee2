import Glibc

/// An exclusive flock(2) on a target's lock file in the state folder: the daemon, a CLI run and a
/// second daemon on a shared inbox all take it before touching the target, so revisions never
/// interleave. Released when the lock is dropped (or the process dies, which the kernel handles).
public final class TargetLock {
    private let fd: Int32

    public init(_ path: String, in folders: ConfinedFolders) throws(Durable.Failure) {
        fd = try folders.open(path, flags: O_RDWR | O_CREAT, mode: 0o600)
        while flock(fd, LOCK_EX) != 0 {
            guard errno == EINTR else {
                let code = errno
                close(fd)
                throw Durable.Failure(step: "lock", path: path, code: code)
            }
        }
    }

    deinit { close(fd) }
}
