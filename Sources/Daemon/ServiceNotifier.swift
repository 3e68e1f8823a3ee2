import CSystemd
import System
import TrapperCore

/// Tells the service manager what the daemon is doing (`READY=1`, `STATUS=...`, `WATCHDOG=1`),
/// through libsystemd's `sd_notify`, which writes to the socket named by `NOTIFY_SOCKET`.
public struct ServiceNotifier: Sendable {
    public init() {}

    /// What systemd tells its service in the environment: a child the daemon starts (an agent, an
    /// edit worker) is no service of its own and is started without them.
    static let variables: Set<String> = ["NOTIFY_SOCKET", "WATCHDOG_USEC", "WATCHDOG_PID"]

    /// True when a message was sent; false when no service manager is listening (not an error: the
    /// daemon may run by hand), or libsystemd cannot be opened.
    @discardableResult
    public func notify(_ state: String) -> Bool {
        guard let systemd = try? Systemd.library.get() else { return false }
        return systemd.sd_notify(0, state) > 0
    }

    /// The watchdog interval the unit asked for, in microseconds, or nil when it asked for none.
    public var watchdogMicroseconds: UInt64? {
        guard let systemd = try? Systemd.library.get() else { return nil }
        var usec: UInt64 = 0
        return systemd.sd_watchdog_enabled(0, &usec) > 0 ? usec : nil
    }
}

/// libsystemd's functions, opened the first time the daemon speaks to systemd or the journal.
enum Systemd {
    static let library = SharedLibrary.open("libsystemd.so.0", for: "telling systemd and the journal") { trapper_systemd_load($0, $1) }
}
