import Glibc

/// The lock on a target PDF that every PDFTrapper process takes before writing it, whatever its
/// state folder: an exclusive flock(2) on the file itself. flock belongs to the inode, so the lock
/// is the same for the daemon, a command run with `--state-dir` elsewhere, and a second daemon
/// on a shared library (flock works across GlusterFS clients).
///
/// A lock on an inode only protects that inode. Another program may save the file by renaming a
/// new one over it, between our open and our flock or at any time after: so the lock is taken
/// only once the file at the path is still the one locked (otherwise taken again on the new
/// file), and a writer checks `isStillAtPath` again after its write (see TargetStore's append).
public final class TargetLock {
    public enum Failure: Error, CustomStringConvertible {
        case notRegular(path: String)
        case system(step: String, path: String, code: Int32)
        /// Replaced at every attempt: something renames over the file faster than it can be locked.
        case keepsBeingReplaced(path: String)

        public var description: String {
            switch self {
            case .notRegular(let path): "\(path) is not a regular file; only regular files are written"
            case .system(let step, let path, let code): "\(step) \(path): \(String(cString: strerror(code)))"
            case .keepsBeingReplaced(let path): "\(path) is replaced by another program faster than it can be locked"
            }
        }
    }

    /// Open on the locked file (read-only): read the file through it, and it is the file written.
    public let descriptor: Int32
    /// The file as it was when the lock was granted.
    public let identity: FileIdentity
    public let path: String
    private let status: () -> stat?

    /// How often a file replaced between open and flock is tried again.
    static let attempts = 20

    /// Locks the regular file at `path`, waiting for any other holder. `open` opens it with the
    /// flags given (the caller confines the path: it is the daemon's configured folders that
    /// decide what may be opened); `status` is the path's stat as it is now (without following
    /// a link), nil when nothing is there. Throws ENOENT as `.system` when there is no file.
    public init(path: String, open: (Int32) throws -> Int32, status: @escaping () -> stat?) throws {
        self.path = path
        self.status = status
        for _ in 0..<Self.attempts {
            // Non-blocking: a FIFO put where the PDF was would otherwise hang the open for ever.
            let descriptor = try open(O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC)
            var opened = stat()
            guard fstat(descriptor, &opened) == 0, opened.st_mode & S_IFMT == S_IFREG else {
                close(descriptor)
                throw Failure.notRegular(path: path)
            }
            do { try Self.flockExclusive(descriptor, path) } catch { close(descriptor); throw error }
            // Granted: but the file at the path may be another one by now.
            if let now = status(), let locked = FileIdentity.of(descriptor: descriptor),
               FileIdentity(now).isSameFile(as: locked) {
                self.descriptor = descriptor
                self.identity = locked
                return
            }
            close(descriptor)
        }
        throw Failure.keepsBeingReplaced(path: path)
    }

    /// Locks a file this process has just written under another name and is about to link into
    /// place: the lock is on its inode, so it holds once the file is at the target's path.
    public init(adopting descriptor: Int32, path: String, status: @escaping () -> stat?) throws {
        let own = dup(descriptor)
        guard own >= 0 else { throw Failure.system(step: "lock", path: path, code: errno) }
        do { try Self.flockExclusive(own, path) } catch { close(own); throw error }
        self.descriptor = own
        self.path = path
        self.status = status
        identity = FileIdentity.of(descriptor: own) ?? FileIdentity(stat())
    }

    deinit { close(descriptor) }

    /// The locked file is still the one at the path (no other program renamed a file over it).
    public var isStillAtPath: Bool {
        guard let now = status() else { return false }
        return FileIdentity(now).isSameFile(as: identity)
    }

    /// A new descriptor for reading the locked file (with an offset of its own), whatever is at the
    /// path meanwhile; -1 with errno set when it cannot be opened.
    public func openForReading() -> Int32 {
        open("/proc/self/fd/\(descriptor)", O_RDONLY | O_CLOEXEC)
    }

    /// The locked file as it is now (its size grows with every append).
    public var current: FileIdentity? { FileIdentity.of(descriptor: descriptor) }

    private static func flockExclusive(_ descriptor: Int32, _ path: String) throws {
        if case .failed(let code) = FileLock.take(descriptor) { throw Failure.system(step: "lock", path: path, code: code) }
    }
}
