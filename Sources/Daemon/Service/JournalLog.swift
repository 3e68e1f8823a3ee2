import CSystemd
import Glibc
import TrapperCore

/// Events as structured journal entries, through libsystemd's `sd_journal_sendv`: `MESSAGE=`,
/// `PRIORITY=` (syslog numbers), `SYSLOG_IDENTIFIER=pdftrapper`, and the daemon's own fields
/// (`PDFTRAPPER_TARGET=` ...), each a field of its own that `journalctl FIELD=value` can match.
///
/// `sd_journal_sendv` takes "KEY=value" iovecs and frames a value that holds a line break in the
/// journal's length-prefixed form itself, so any text (line breaks, NUL) arrives intact.
public struct JournalLog: EventLog {
    public static let identifier = "pdftrapper"

    public let minimum: LogLevel
    /// When sending fails, the event goes to stderr as a plain line (which, under systemd, the
    /// journal takes anyway). libsystemd reports no error when the socket is missing altogether
    /// (it drops the entry on purpose), which is why `EventLogs.automatic` picks this log only when
    /// stderr is itself connected to journald.
    private let fallback: StderrLog

    public init(minimum: LogLevel = .info) {
        self.minimum = minimum
        fallback = StderrLog(minimum: minimum)
    }

    public func log(_ level: LogLevel, _ message: String, fields: [String: String]) {
        guard level.passes(minimum) else { return }
        if Self.send(Self.entry(level, message, fields: fields)) < 0 {
            fallback.log(level, message, fields: fields)
        }
    }

    /// The "KEY=value" byte strings for one event, in the order sent: MESSAGE, PRIORITY,
    /// SYSLOG_IDENTIFIER, then the fields by name. Field names are made valid journal names (see
    /// `fieldName`); a field that would repeat one of the first three is left out.
    public static func entry(_ level: LogLevel, _ message: String, fields: [String: String] = [:]) -> [[UInt8]] {
        var entry = [
            Array("MESSAGE=\(message)".utf8),
            Array("PRIORITY=\(level.syslogPriority)".utf8),
            Array("SYSLOG_IDENTIFIER=\(identifier)".utf8),
        ]
        let reserved: Set = ["MESSAGE", "PRIORITY", "SYSLOG_IDENTIFIER"]
        for (key, value) in fields.sorted(by: { $0.key < $1.key }) {
            let name = fieldName(key)
            guard !reserved.contains(name) else { continue }
            entry.append(Array("\(name)=".utf8) + Array(value.utf8))
        }
        return entry
    }

    /// A name journald accepts: upper-case ASCII letters, digits and `_`, not starting with a digit
    /// or `_` (names with a leading `_` are journald's trusted fields, and it drops them from
    /// clients), at most 64 characters. Anything else becomes `_`; a bad start gets `PDFTRAPPER_`.
    public static func fieldName(_ key: String) -> String {
        var name = String(key.uppercased().unicodeScalars.map { scalar -> Character in
            switch scalar {
            case "A"..."Z", "0"..."9", "_": Character(scalar)
            default: "_"
            }
        })
        if name.isEmpty || name.first == "_" || name.first!.isNumber { name = "PDFTRAPPER_" + name }
        return String(name.prefix(64))
    }

    /// Sends one entry; returns `sd_journal_sendv`'s result: 0, or a negative errno (-ENOSYS when
    /// libsystemd cannot be opened). (0 also when no journald socket exists: libsystemd then drops
    /// the entry without a word.)
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
