import System
import TrapperCore

/// Events as structured journal entries, through libsystemd's `sd_journal_sendv`: `MESSAGE=`,
/// `PRIORITY=` (syslog numbers), `SYSLOG_IDENTIFIER=pdftrapper`, and the daemon's own fields
/// (`PDFTRAPPER_TARGET=` ...), each a field of its own that `journalctl FIELD=value` can match.
/// Any text (line breaks, NUL) arrives intact (see `Journal.send`).
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
        if Journal.send(Self.entry(level, message, fields: fields)) < 0 {
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
}
