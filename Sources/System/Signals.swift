import Glibc

/// SIGHUP (reload), SIGTERM and SIGINT (stop) are blocked and collected between jobs instead of
/// interrupting one: the loop asks `pending()` after each job and acts then, so a stop always comes
/// after the job in hand, and no handler runs in the middle of a write.
public struct Signals {
    public enum Request: Sendable, Equatable { case reload, stop }

    private var set = sigset_t()

    /// Blocks the signals for this thread and any thread it starts later (call before starting threads).
    public init() {
        sigemptyset(&set)
        for signal in [SIGHUP, SIGTERM, SIGINT] { sigaddset(&set, signal) }
        pthread_sigmask(SIG_BLOCK, &set, nil)
    }

    /// The requests that arrived since the last call; a stop wins over a reload.
    public mutating func pending() -> [Request] {
        wait(seconds: 0)
    }

    /// Sleeps until a signal arrives or `seconds` pass; returns what arrived (a loop's idle wait).
    public mutating func wait(seconds: Double) -> [Request] {
        var requests: [Request] = []
        let whole = max(0, seconds)
        var timeout = timespec(tv_sec: Int(whole), tv_nsec: Int((whole - whole.rounded(.down)) * 1e9))
        while true {
            let signal = sigtimedwait(&set, nil, &timeout)
            guard signal > 0 else { break }
            requests.append(signal == SIGHUP ? .reload : .stop)
            timeout = timespec(tv_sec: 0, tv_nsec: 0)
        }
        return requests
    }
}

extension Signals {
    /// Whether a stop is waiting, without taking it (the loop takes it at the top).
    public func peekStop() -> Bool {
        var waiting = sigset_t()
        sigpending(&waiting)
        return sigismember(&waiting, SIGTERM) == 1 || sigismember(&waiting, SIGINT) == 1
    }
}
