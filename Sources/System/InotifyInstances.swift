import Glibc
import Synchronization

/// Every inotify instance this process opens or closes goes through here, one at a time.
///
/// libinotifytools keeps its instance's descriptor private, so `InotifySession` finds it by listing
/// the process's inotify descriptors before and after opening it. Were another instance opened
/// (`FileChanges`, a test's) or closed at the same moment, that difference could miss it, or name
/// another's descriptor, whose watches and events would then be mixed with the session's. Opening and
/// closing under one lock leaves nothing else to differ.
public enum InotifyInstances {
    private static let lock = Mutex(())

    /// `body`, with no other inotify instance opened or closed meanwhile.
    public static func exclusively<T, E: Error>(_ body: () throws(E) -> T) throws(E) -> T {
        try lock.withLock { _ throws(E) -> T in try body() }
    }

    /// A new inotify instance (inotify_init1 with `flags`), or -1 with errno set.
    public static func open(flags: Int32) -> Int32 {
        var code: Int32 = 0
        let descriptor = exclusively {
            let descriptor = inotify_init1(flags)
            code = errno
            return descriptor
        }
        errno = code  // as inotify_init1 left it, whatever the lock did since
        return descriptor
    }

    /// Closes an inotify instance this process opened with `open`.
    public static func close(_ descriptor: Int32) {
        exclusively { _ = Glibc.close(descriptor) }
    }
}
