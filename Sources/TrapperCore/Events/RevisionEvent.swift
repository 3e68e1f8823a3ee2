import Foundation

/// What made a revision, beyond what its trailer says: the way in (a scan, an upload, a redo) and
/// the rule or profile that chose the target. Kept in the journal while the revision is written,
/// so an event made again after a crash is the event the crash interrupted.
public struct RevisionOrigin: Sendable, Codable, Equatable {
    /// ingest, scan, upload, edit, ocr, undo, redo or compact.
    public var madeBy: String
    public var rule: String?
    public var profile: String?

    public init(madeBy: String, rule: String? = nil, profile: String? = nil) {
        self.madeBy = madeBy
        self.rule = rule
        self.profile = profile
    }
}

extension OutboundEvent {
    /// The event of a revision: made only from what the file's trailer and the journal hold, so
    /// that the one made after a crash has the same bytes. `end`: where the revision ends (for an
    /// undo, where the undone one ended); `time`: when the change began.
    public static func revision(target: String, libraryRoot: String, record: RevisionRecord, end: Int,
                                origin: RevisionOrigin, time: Date, host: String) -> OutboundEvent {
        var event = OutboundEvent(event: .revision, time: time, host: host)
        let relative = target.hasPrefix(libraryRoot + "/") ? String(target.dropFirst(libraryRoot.count + 1)) : target
        event.target = relative
        event.targetPath = target
        event.revision = record.number
        event.base = record.base
        event.end = end
        event.madeBy = origin.madeBy
        event.rule = origin.rule
        event.profile = origin.profile
        event.pagesAdded = record.pagesAdded
        event.position = record.position == .front ? "front" : "end"
        event.note = record.note
        event.inputs = record.inputs.map { Input(name: $0.name, sha256: SHA256.hex($0.sha256), pages: $0.pages) }
        event.summary = summary(origin.madeBy, relative, record)
        // The start to the microsecond, as the journal keeps it: an undo, a redo and an undo of
        // the same revision within one second are three events.
        event.key = key(.revision, [relative, String(end), origin.madeBy, String(time.timeIntervalSince1970)])
        return event
    }

    private static func summary(_ madeBy: String, _ target: String, _ record: RevisionRecord) -> String {
        let pages = record.pagesAdded == 1 ? "1 page" : "\(record.pagesAdded) pages"
        let number = record.number.map { "revision \($0) of " } ?? "a revision of "
        return switch madeBy {
        case "scan": "\(pages) scanned into \(target)"
        case "upload": "\(pages) uploaded into \(target)"
        case "ingest": "\(pages) from \(record.inputs.map(\.name).joined(separator: ", ")) into \(target)"
        case "ocr": "text layer added to \(target)"
        case "undo": "undid \(number)\(target)"
        case "redo": "redid \(number)\(target)"
        case "compact": "\(target) compacted"
        case "repair": "\(target) repaired" + (record.note.map { ": \($0)" } ?? "")
        default: "\(target) edited" + (record.note.map { ": \($0)" } ?? "")
        }
    }

    /// An input refused: quarantined (or given up on as incomplete) with its reason. `identity`
    /// tells this file from a later one of the same name (its inode, size and change time).
    public static func refused(_ kind: Kind, file: String, reason: String, rule: String?, quarantinedAs: String?,
                               identity: String, time: Date, host: String) -> OutboundEvent {
        var event = OutboundEvent(event: kind, time: time, host: host)
        event.file = file
        event.reason = reason
        event.rule = rule
        event.quarantinedAs = quarantinedAs
        let why = reason.hasPrefix(file + ": ") ? String(reason.dropFirst(file.count + 2)) : reason
        event.summary = "\(file) \(kind == .incomplete ? "given up on as incomplete" : "quarantined"): \(why)"
        event.key = key(kind, [file, identity])
        return event
    }
}
