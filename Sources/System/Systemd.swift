import CSystemd
import Glibc

/// Tells the service manager what the daemon is doing (`READY=1`, `STATUS=...`, `WATCHDOG=1`),
/// through libsystemd's `sd_notify`, which writes to the socket named by `NOTIFY_SOCKET`.
public struct ServiceNotifier: Sendable {
    public init() {}

    /// What systemd tells its service in the environment: a child the daemon starts (an agent, an
    /// edit worker) is no service of its own and is started without them.
    public static let variables: Set<String> = ["NOTIFY_SOCKET", "WATCHDOG_USEC", "WATCHDOG_PID"]

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

/// Entries for the journal, through libsystemd's `sd_journal_sendv`.
public enum Journal {
    /// Sends one entry, its "KEY=value" parts in order; returns `sd_journal_sendv`'s result: 0, or a
    /// negative errno (-ENOSYS when libsystemd cannot be opened). (0 also when no journald socket
    /// exists: libsystemd then drops the entry without a word.) `sd_journal_sendv` frames a value
    /// that holds a line break in the journal's length-prefixed form itself, so any text arrives intact.
    @discardableResult
    public static func send(_ entry: [[UInt8]]) -> Int32 {
        // One buffer for all parts, so every iovec points into memory that lives through the call.
        let joined = entry.flatMap { $0 }
        return joined.withUnsafeBytes { raw -> Int32 in
            var iovecs: [iovec] = []
            var offset = 0
            for part in entry {
                let base = UnsafeMutableRawPointer(mutating: raw.baseAddress.map { $0 + offset })
                iovecs.append(iovec(iov_base: base, iov_len: part.count))
                offset += part.count
            }
            guard let systemd = try? Systemd.library.get() else { return -ENOSYS }
            return systemd.sd_journal_sendv(iovecs, Int32(iovecs.count))
        }
    }
}

/// libsystemd's functions, opened the first time the daemon speaks to systemd or the journal.
enum Systemd {
    static let library = SharedLibrary.open("libsystemd.so.0", for: "telling systemd and the journal") { trapper_systemd_load($0, $1) }
}
