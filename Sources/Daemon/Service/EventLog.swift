import TrapperCore

/// Where the daemon reports what it does: one event, one call.
///
/// `message` must read well on its own (it is what `journalctl` and stderr show), so it names the
/// file it is about: `"/srv/scans/inbox/x.jpg: truncated JPEG (ends at byte 18231)"`. `fields` carry
/// the same facts for machines (see `EventField`); a log may drop them.
public protocol EventLog: Sendable {
    func log(_ level: LogLevel, _ message: String, fields: [String: String])
}

extension EventLog {
    public func log(_ level: LogLevel, _ message: String) {
        log(level, message, fields: [:])
    }
}

/// The structured fields the daemon attaches to events, named as the journal stores them, so
/// `journalctl PDFTRAPPER_TARGET=/srv/documents/Receipts/2026/Receipts\ 2026-11.pdf` finds every
/// event about one PDF.
public enum EventField {
    public static let target = "PDFTRAPPER_TARGET"
    public static let input = "PDFTRAPPER_INPUT"
    public static let rule = "PDFTRAPPER_RULE"
    /// Where the revision ends in the target: a byte offset, as `pdftrapper history` shows it.
    public static let end = "PDFTRAPPER_END"
}

extension LogLevel {
    /// Higher is more severe: debug 0 ... error 4.
    public var severity: Int { LogLevel.allCases.firstIndex(of: self)! }

    /// The syslog(3) priority journald stores as `PRIORITY=`.
    public var syslogPriority: Int {
        switch self {
        case .error: 3
        case .warning: 4
        case .notice: 5
        case .info: 6
        case .debug: 7
        }
    }

    /// Whether an event at this level passes a log whose minimum is `minimum`.
    public func passes(_ minimum: LogLevel) -> Bool { severity >= minimum.severity }
}
