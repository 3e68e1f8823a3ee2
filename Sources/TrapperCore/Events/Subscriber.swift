/// `[[notify]]`: who hears of which events, and how: a POST of the event's JSON to a URL, or a
/// command run with the event on standard input.
public struct Subscriber: Sendable {
    public enum Delivery: Sendable, Equatable {
        case url(String)
        /// An absolute program and its arguments, run without a shell; `{name}` in an argument is
        /// replaced with the event's field of that name (`{target_path}`, `{summary}`, ...).
        case command([String])
    }

    /// Names its folders in the outbox, so it keeps its pending events when the config is reordered.
    public var name: String
    public var events: Set<OutboundEvent.Kind>
    /// Only events of these rules (or scan profiles); empty: all.
    public var rules: [String] = []
    /// Only events of targets matching these patterns (relative to the library); empty: all.
    public var targets: [Glob] = []
    public var delivery: Delivery
    /// Signs each body: `X-PDFTrapper-Signature: sha256=HEX`, the HMAC-SHA256 of the body.
    public var secret: String?
    /// Sent with every POST (an API token, say).
    public var headers: [(String, String)] = []
    public var timeoutSeconds = 10.0
    public var verifyTLS = true
    /// Retries wait 1 s, 2 s, 4 s, ... up to this.
    public var backoffMaxSeconds = 300.0

    public init(name: String, events: Set<OutboundEvent.Kind>, delivery: Delivery) {
        self.name = name
        self.events = events
        self.delivery = delivery
    }

    /// Whether the event is one this subscriber asked for.
    public func wants(_ event: OutboundEvent) -> Bool {
        guard events.contains(event.event) else { return false }
        if !rules.isEmpty {
            guard rules.contains(where: { $0 == event.rule || $0 == event.profile }) else { return false }
        }
        if !targets.isEmpty {
            guard let target = event.target, targets.contains(where: { $0.matches(relativePath: target) }) else { return false }
        }
        return true
    }

    /// The fields a command's `{name}` may stand for.
    public static let placeholders = ["event", "key", "time", "host", "summary", "target", "target_path", "revision", "base",
                                      "end", "made_by", "pages_added", "rule", "profile", "file", "reason", "quarantined_as",
                                      "device"]

    /// The command's arguments with `{name}` replaced by the event's fields (empty when it lacks one),
    /// in one pass: a field's value is never read for placeholders of its own.
    public static func arguments(_ command: [String], for event: OutboundEvent) -> [String] {
        let fields = event.environment
        return command.map { argument in
            var result = "", rest = Substring(argument)
            while let open = rest.firstIndex(of: "{"), let close = rest[open...].firstIndex(of: "}") {
                let name = String(rest[rest.index(after: open)..<close])
                result += rest[..<open]
                if placeholders.contains(name) {
                    result += fields["PDFTRAPPER_" + name.uppercased()] ?? ""
                    rest = rest[rest.index(after: close)...]
                } else {
                    result += "{"
                    rest = rest[rest.index(after: open)...]
                }
            }
            return result + rest
        }
    }
}
