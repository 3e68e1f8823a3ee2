import Foundation

/// What became of one input: for the log, `pdftrapper status`, and the tests.
public struct JobOutcome: Sendable, Equatable, Codable {
    public enum Result: String, Sendable, Codable {
        /// Its pages are in the target.
        case ingested
        /// Its content was already in the target (same SHA-256); not added again.
        case duplicate
        /// Moved to quarantine with a note.
        case quarantined
        /// No rule takes it; it stays in the inbox.
        case noRule
        /// Another daemon took it first.
        case takenElsewhere
        /// A front pass, held in the claims until its back pass comes (`collate = "double-sided"`).
        case held
        /// A temporary problem (I/O, a full disk); it waits among the claimed inputs and is tried again.
        case retryLater
        /// Not whole yet (an upload that paused): left where it is, and looked at again.
        case waiting
        /// An edit script, applied or failed (`reason` says which and how).
        case edit
        /// OCR of a target, as a revision of its own (`reason` says what it did).
        case ocr
    }

    public var input: String
    public var result: Result
    public var rule: String?
    public var target: String?
    public var pages: Int?
    /// Where the revision ends in the target (a byte offset; its identity for undo).
    public var end: Int?
    public var reason: String?
    public var date: Date

    public init(input: String, result: Result, rule: String? = nil, target: String? = nil, pages: Int? = nil,
                end: Int? = nil, reason: String? = nil, date: Date = Date()) {
        self.input = input
        self.result = result
        self.rule = rule
        self.target = target
        self.pages = pages
        self.end = end
        self.reason = reason
        self.date = date
    }

    /// The reason without the input's own name in front (the line names it already).
    private var shortReason: String {
        let reason = reason ?? ""
        let name = (input as NSString).lastPathComponent
        for prefix in [input + ": ", name + ": "] where reason.hasPrefix(prefix) { return String(reason.dropFirst(prefix.count)) }
        return reason
    }

    /// What chose the target: a rule, a scan profile, or `--to`.
    private var chooser: String {
        guard let rule else { return "rule ?" }
        if rule == "--to" { return "--to" }
        if rule.hasPrefix("profile ") { return rule }
        return "rule \(rule)"
    }

    /// One line for the log.
    public var summary: String {
        switch result {
        case .ingested:
            "\(input): \(pages ?? 0) page\(pages == 1 ? "" : "s") into \(target ?? "?") (\(chooser))"
        case .duplicate: "\(input): already in \(target ?? "?"); not added again"
        case .quarantined: "\(input): quarantined: \(shortReason)"
        case .noRule: "\(input): no rule matches; left in the inbox"
        case .takenElsewhere: "\(input): taken by another daemon"
        case .held: "\(input): held: \(reason ?? "")"
        case .retryLater: "\(input): will retry: \(shortReason)"
        case .waiting: "waiting: \(input) \(reason ?? "")"
        case .edit: "edit script \(reason ?? input)"
        case .ocr: reason ?? input
        }
    }
}
