import CSystemd

/// Tells the service manager what the daemon is doing (`READY=1`, `STATUS=...`, `WATCHDOG=1`),
/// through libsystemd's `sd_notify`, which writes to the socket named by `NOTIFY_SOCKET`.
public struct ServiceNotifier: Sendable {
    public init() {}

    /// True when a message was sent; false when no service manager is listening (not an error: the
    /// daemon may run by hand).
    @discardableResult
    public func notify(_ state: String) -> Bool {
        sd_notify(0, state) > 0
    }

    /// The watchdog interval the unit asked for, in microseconds, or nil when it asked for none.
    public var watchdogMicroseconds: UInt64? {
        var usec: UInt64 = 0
        return sd_watchdog_enabled(0, &usec) > 0 ? usec : nil
    }
}
