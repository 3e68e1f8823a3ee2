import Foundation
import System
import TrapperCore

/// A change to a target in flight, written (durably) before the target is touched and removed once
/// the change is durable. Finding one at start means the process died in between: `Recovery`
/// then rolls the target back to `oldLength`, or forward when the change had in fact completed.
public struct JournalRecord: Codable, Sendable, Equatable {
    public enum Kind: String, Codable, Sendable {
        /// Bytes appended to an existing target (an ingest, an edit, a redo).
        case append
        /// A new target written under `temporary`, then renamed into place.
        case create
        /// An undo: the target cut back from `oldLength` to `newLength`, the tail saved as `tailFile`.
        case undo
        /// A whole-file replace (a repair or compaction, or the undo or redo of one): `temporary`,
        /// whose bytes `replacement` tells, renamed over the target, whose bytes were kept as
        /// `tailFile` first; `after` is the target's state once it is done.
        case rewrite
    }

    public var kind: Kind
    public var target: String
    public var oldLength: Int
    public var newLength: Int?
    public var temporary: String?
    public var tailFile: String?
    /// For an undo: the SHA-256s (hex) of the inputs whose pages it takes out.
    public var inputs: [String]?
    public var started: Date
    /// What is making the revision (a scan, by which rule): its event is made from this and the
    /// revision's trailer, whether the change finishes now or is found finished after a crash.
    public var origin: RevisionOrigin?
    /// For an undo: its event, made before the cut (the undone revision's trailer goes with it).
    public var event: String?
    /// The change is to be announced (the writing process had subscribers): a finished change's
    /// record then stays until some process has queued its event. And the host it happened on.
    public var announce: Bool?
    public var host: String?
    /// For an append: the file as it began (`0..<oldLength`, the hash of its last 64 KiB), so that
    /// recovery cuts only the file it was appending to, never one another program saved since.
    public var before: TargetState.Span?
    /// For an append: the bytes it writes first (a PDF comment naming it), so that recovery cuts
    /// only bytes that begin with them; and the file it was appended to, as it was locked.
    public var marker: String?
    /// For an undo: the claimed edit script making it (recovery that finishes it counts it too).
    public var claim: String?
    public var identity: FileIdentity?
    /// For a rewrite: the new file (recovery finds it done when the target has these bytes), the
    /// target's state once it is done, and the state folder's files it no longer needs (removed
    /// once that state is saved).
    public var replacement: TargetState.Span?
    public var after: TargetState?
    public var obsolete: [String]?

    public init(kind: Kind, target: String, oldLength: Int, newLength: Int? = nil, temporary: String? = nil,
                tailFile: String? = nil, inputs: [String]? = nil, started: Date = Date(), origin: RevisionOrigin? = nil) {
        self.kind = kind
        self.target = target
        self.oldLength = oldLength
        self.newLength = newLength
        self.temporary = temporary
        self.tailFile = tailFile
        self.inputs = inputs
        self.started = started
        self.origin = origin
    }
}

extension JournalRecord {
    /// The record with every path it holds passed through `relocate` (see StateDirectory.name(of:)).
    func relocated(_ relocate: (String) -> String) -> JournalRecord {
        var record = self
        record.target = relocate(target)
        record.temporary = temporary.map(relocate)
        record.tailFile = tailFile.map(relocate)
        record.obsolete = obsolete?.map(relocate)
        record.after = after?.relocated(relocate)
        return record
    }
}
