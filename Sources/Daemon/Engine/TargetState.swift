import Foundation
import System
import TrapperCore

/// What the state folder remembers of one target: the last revision PDFTrapper wrote (so undo can
/// tell whether anything else has changed the file since) and the undone revisions redo can put back.
public struct TargetState: Codable, Sendable, Equatable {
    /// A stretch of the file, `base..<end`, with the SHA-256 of its last 64 KiB: enough to notice
    /// that another program rewrote the file (the trailer is in those bytes), while the length
    /// notices appends, and it costs the same for a 2 GB revision as for a small one.
    public struct Span: Codable, Sendable, Equatable {
        public var base: Int
        public var end: Int
        public var sha256: String
    }

    public struct Undone: Codable, Sendable, Equatable {
        public var span: Span
        /// The saved bytes, in the state folder.
        public var tailFile: String
        /// Set when what was undone is a full rewrite: `tailFile` is then the whole rewritten
        /// file, which redo puts back in place of the original this rewrite replaced.
        public var rewrite: Rewritten?
    }

    /// A full rewrite (repair, compaction): the file PDFTrapper replaced, kept whole in the state
    /// folder until the rewrite is undone (its bytes put back) or falls out of the last `keptRewrites`.
    public struct Rewritten: Codable, Sendable, Equatable {
        /// The original's bytes, in the state folder.
        public var kept: String
        /// The original, `0..<its length`, and what the rewrite wrote in its place.
        public var before: Span
        public var after: Span
        /// PDFTrapper's last write in the original (undo goes on from there once it is back).
        public var lastWriteBefore: Span?
    }

    /// How many full rewrites of a target can be undone: each keeps a whole copy of the file.
    static let keptRewrites = 3

    public var target: String
    public var lastWrite: Span?
    /// Newest undo last: redo takes from the end.
    public var redo: [Undone] = []
    /// The full rewrites undo can take back, newest last.
    public var rewrites: [Rewritten]? = []
    /// SHA-256 (hex) of every input whose pages are in the target now: the duplicate check.
    /// Kept with the last write, so a crash can never leave them out of step.
    public var inputs: Set<String>? = []

    /// The event of the revision `lastWrite` names, as it was made when the revision was counted:
    /// announced by recovery when a crash came before it was queued and another program has
    /// saved the file anew since (its trailer is then gone from the file).
    public var lastEvent: String?
    /// The ids of the claimed edit scripts whose change is in this state (the newest
    /// `keptClaims`): a script claimed again after a crash is applied only if its id is not here.
    public var claims: [String]? = []
    static let keptClaims = 256

    mutating func add(claim: String?) {
        guard let claim else { return }
        claims = Array(((claims ?? []) + [claim]).suffix(Self.keptClaims))
    }

    mutating func add(_ record: RevisionRecord) {
        inputs = (inputs ?? []).union(record.inputs.map { SHA256.hex($0.sha256) })
    }

    mutating func remove(_ record: RevisionRecord) {
        inputs = (inputs ?? []).subtracting(record.inputs.map { SHA256.hex($0.sha256) })
    }

    public init(target: String) { self.target = target }

    /// The state saved at `path`, its paths as `state` names them on this host.
    static func load(_ path: String, target: String, state: StateDirectory) -> TargetState {
        guard let data = FileManager.default.contents(atPath: path),
              let saved = try? JSONDecoder().decode(TargetState.self, from: data) else { return TargetState(target: target) }
        return saved.relocated(state.path(named:))
    }

    /// Saves the state at `path`, its paths named as on every host (`StateDirectory.name(of:)`).
    func save(_ path: String, state: StateDirectory, in folders: ConfinedFolders) throws(Durable.Failure) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        // Encoding plain Codable structs cannot fail.
        try folders.replace(path, with: try! encoder.encode(relocated(state.name(of:))))
    }
}

extension TargetState.Span {
    static let hashedTail = 64 * 1024

    /// The span `base..<end` of the file at `path`, as it is now.
    static func read(_ path: String, base: Int, end: Int) throws -> TargetState.Span {
        let start = max(base, end - hashedTail)
        let bytes = try PDFFileSource(path: path).read(offset: start, count: end - start)
        return TargetState.Span(base: base, end: end, sha256: SHA256.hex(SHA256.hash(bytes)))
    }
}

extension TargetState {
    /// The state with every path it holds passed through `relocate` (see StateDirectory.name(of:)).
    func relocated(_ relocate: (String) -> String) -> TargetState {
        var state = self
        state.target = relocate(target)
        state.redo = redo.map { undone in
            var undone = undone
            undone.tailFile = relocate(undone.tailFile)
            undone.rewrite = undone.rewrite?.relocated(relocate)
            return undone
        }
        state.rewrites = rewrites?.map { $0.relocated(relocate) }
        return state
    }
}

extension TargetState.Rewritten {
    func relocated(_ relocate: (String) -> String) -> TargetState.Rewritten {
        var rewritten = self
        rewritten.kept = relocate(kept)
        return rewritten
    }
}
