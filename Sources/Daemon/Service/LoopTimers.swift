import Foundation

/// When the daemon's loop does its periodic work, decided from clock readings alone, so that the
/// back-offs and intervals are tested without a daemon (`Tests/DaemonTests/LoopTimersTests.swift`):
///
/// - an input not whole yet is looked at again 1 s after, then 2, 4, 8, 16 and every 30 s;
/// - claims whose job hit a temporary problem are tried again every `claimRetrySeconds`;
/// - systemd's watchdog is pinged at half its interval;
/// - a STATUS= line goes out at most once a second.
struct LoopTimers {
    /// The longest wait between two looks at an input that is not whole yet.
    static let longestWait = 30.0
    /// Claims are tried again no more often than this, whatever the rescan interval.
    static let shortestClaimRetry = 30.0

    /// Inputs not whole yet, by path below the inbox: when to look again, and the wait before that.
    private(set) var waiting: [String: (next: Date, interval: Double)] = [:]
    private var lastClaimRetry: Date
    private var lastWatchdog = Date.distantPast
    private var lastStatus = Date.distantPast

    /// The loop starts at `now`: the first claim retry comes one interval later.
    init(now: Date) { lastClaimRetry = now }

    static func claimRetrySeconds(rescanSeconds: Double) -> Double { max(shortestClaimRetry, rescanSeconds) }

    /// `input` was found not whole at `now`: when it is looked at again. True when it was already
    /// waited for (the same wait goes on: said once, not at every look).
    mutating func notWhole(_ input: String, now: Date) -> Bool {
        let known = waiting[input]
        let interval = known.map { min($0.interval * 2, Self.longestWait) } ?? 1
        waiting[input] = (now.addingTimeInterval(interval), interval)
        return known != nil
    }

    /// `input` is no longer waited for (taken, refused, gone).
    mutating func done(_ input: String) { waiting[input] = nil }

    /// The inputs whose look again is due at `now`, in name order.
    func dueInputs(now: Date) -> [String] {
        waiting.filter { $0.value.next <= now }.map(\.key).sorted()
    }

    /// Whether the claims are to be tried again at `now` (and then not again for an interval).
    mutating func claimRetryDue(now: Date, rescanSeconds: Double) -> Bool {
        guard now.timeIntervalSince(lastClaimRetry) >= Self.claimRetrySeconds(rescanSeconds: rescanSeconds) else { return false }
        lastClaimRetry = now
        return true
    }

    /// Whether the watchdog is to be pinged at `now`, for a watchdog of `microseconds` (nil: none).
    mutating func watchdogDue(now: Date, microseconds: UInt64?) -> Bool {
        guard let microseconds, now.timeIntervalSince(lastWatchdog) * 1_000_000 >= Double(microseconds) / 2 else { return false }
        lastWatchdog = now
        return true
    }

    /// Whether a STATUS= line may go out at `now`.
    mutating func statusDue(now: Date) -> Bool {
        guard now.timeIntervalSince(lastStatus) >= 1 else { return false }
        lastStatus = now
        return true
    }
}
