import Foundation

/// One event as subscribers get it, a flat JSON object (schema version 1, in pdftrapper(1)):
/// a revision committed to a target, an input quarantined or given up on as incomplete, a scan
/// that failed, the daemon starting or stopping. Its bytes are made once, when the event is
/// written to the outbox, and every delivery of it sends those bytes; `key` is the same on every
/// retry, so a receiver that keeps keys acts on each event once.
public struct OutboundEvent: Sendable, Equatable, Codable {
    public enum Kind: String, Sendable, Codable, CaseIterable {
        case revision, quarantined, incomplete, scanFailed = "scan-failed", started, stopping
    }

    public struct Input: Sendable, Equatable, Codable {
        public var name: String
        public var sha256: String
        public var pages: Int
    }

    public static let schemaVersion = 1

    public var version = OutboundEvent.schemaVersion
    public var event: Kind
    /// The idempotency key: a digest of what identifies the event (for a revision: the target, where
    /// the revision ends, the event kind and what made it), never of when it was sent.
    public var key: String = ""
    /// When it happened, in UTC to the second ("2026-12-02T07:15:00Z").
    public var time: String
    public var host: String
    /// One line for a person: "3 pages scanned into Mail/2026.pdf".
    public var summary: String = ""

    // A revision (and, for an undo, the revision undone).
    /// Relative to the library's root; absolute for a target outside it.
    public var target: String?
    public var targetPath: String?
    /// Its place in the file's history, 1 for the revision that made the file.
    public var revision: Int?
    /// Its bytes are `base..<end` of the target (for an undo: those cut off).
    public var base: Int?
    public var end: Int?
    /// ingest, scan, upload, edit, ocr, undo, redo or compact.
    public var madeBy: String?
    public var pagesAdded: Int?
    public var position: String?
    public var note: String?
    public var inputs: [Input]?
    public var rule: String?
    public var profile: String?

    // An input refused (quarantined, incomplete): its path below the inbox, why, and where it went.
    public var file: String?
    public var reason: String?
    public var quarantinedAs: String?

    // A scan that failed.
    public var device: String?

    // The daemon starting or stopping.
    public var pid: Int?

    public init(event: Kind, time: Date, host: String) {
        self.event = event
        self.time = Self.timestamp(time)
        self.host = host
    }

    /// The key from the fields that identify an event: SHA-256 of them, joined by newlines, in hex.
    public static func key(_ kind: Kind, _ parts: [String]) -> String {
        SHA256.hex(SHA256.hash(Array(([kind.rawValue] + parts).joined(separator: "\n").utf8)))
    }

    /// The JSON body, keys sorted so that equal events are equal bytes.
    public var body: [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.keyEncodingStrategy = .convertToSnakeCase
        // Strings, integers and arrays of them: encoding cannot fail.
        return Array(try! encoder.encode(self))
    }

    public init(body: [UInt8]) throws {
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        self = try decoder.decode(OutboundEvent.self, from: Data(body))
    }

    /// "2026-12-02T07:15:00Z", from the same civil calendar the revision records use.
    public static func timestamp(_ date: Date) -> String {
        let pdf = RevisionRecord.pdfDate(date)   // D:YYYYMMDDHHmmSSZ
        let d = Array(pdf.dropFirst(2))
        func part(_ from: Int, _ count: Int) -> String { String(d[from..<(from + count)]) }
        return "\(part(0, 4))-\(part(4, 2))-\(part(6, 2))T\(part(8, 2)):\(part(10, 2)):\(part(12, 2))Z"
    }

    /// The fields a command hook gets as `PDFTRAPPER_*` environment variables (the JSON keys in
    /// upper case; inputs as a count and the JSON on standard input).
    public var environment: [String: String] {
        guard let object = try? JSONSerialization.jsonObject(with: Data(body)) as? [String: Any] else { return [:] }
        var variables: [String: String] = [:]
        for (name, value) in object {
            let text: String? = switch value {
            case let string as String: string
            case let number as NSNumber: number.stringValue
            case let array as [Any]: String(array.count)
            default: nil
            }
            if let text { variables["PDFTRAPPER_" + name.uppercased()] = text }
        }
        return variables
    }
}
