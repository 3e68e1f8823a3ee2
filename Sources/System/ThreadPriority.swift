import CLinux
import Glibc

/// Work that must never slow what users wait for (indexing for search beside captures).
public enum ThreadPriority {
    /// Lowers the calling thread, and only it, to nice 10: Linux schedules each thread by its own
    /// nice value (setpriority on its thread id), so the rest of the process keeps its priority.
    public static func lowerCurrent(by nice: Int32 = 10) {
        let thread = id_t(trapper_gettid())
        errno = 0
        let current = getpriority(__priority_which_t(PRIO_PROCESS.rawValue), thread)
        guard errno == 0 else { return }
        _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), thread, min(19, current + nice))
    }
}
