import Foundation
import Glibc
import TrapperCore

/// Undo cuts the file back to where its last revision began, keeping the cut bytes in the state
/// folder; redo appends exactly those bytes again. A full rewrite (repair, compaction) is undone by
/// putting back the file it replaced (TargetStore+Rewrite). Both refuse when another program has
/// changed the file since PDFTrapper last wrote it.
extension TargetStore {
    /// Undoes up to `steps` revisions; returns the records of those undone, newest first.
    /// `expecting`: the length the file must have once locked (an edit script's base_end), and
    /// `revision`: the revision it must be (base_revision); else nothing is undone.
    public func undo(target: String, steps: Int = 1, expecting: Int? = nil, revision: RevisionID? = nil, claim: String? = nil)
        throws(EngineError) -> [RevisionRecord]
    {
        // The file now ends where the oldest revision undone began, or, after a full rewrite undone,
        // where the file put back ends.
        try publishing(target, { () throws(EngineError) in try undoLocked(target, steps, expecting, revision, claim) }, told: { undone in
            let end = undone.last.flatMap { $0.base > 0 ? $0.base : nil } ?? fileLength(target) ?? 0
            return RevisionCommitted(target: target, base: end, end: end, operation: "undo")
        })
    }

    private func undoLocked(_ target: String, _ steps: Int, _ expecting: Int?, _ revision: RevisionID?, _ claim: String?)
        throws(EngineError) -> [RevisionRecord]
    {
        let held = try self.lock(target)
        defer { withExtendedLifetime(held) {} }
        let key = held.key
        try checkLength(target, expecting)
        try checkRevision(target, revision)
        try refuseAppliedClaim(claim, key, target)
        var undone: [RevisionRecord] = []
        for _ in 0..<steps {
            do {
                undone.append(try undoOne(target, key, claim))
            } catch let error as EngineError {
                throw undone.isEmpty ? error : .refused(target: target, reason: "undid \(undone.count) of \(steps): \(error)")
            } catch {
                throw .unreadable(target: target, reason: "\(error)")
            }
        }
        return undone
    }

    private func undoOne(_ target: String, _ key: String, _ claim: String?) throws -> RevisionRecord {
        guard let length = fileLength(target) else { throw EngineError.unreadable(target: target, reason: "no such file") }
        var targetState = loadState(key, target)
        try checkUnchanged(target, length, targetState)
        if let rewrite = targetState.rewrites?.last, try TargetState.Span.read(target, base: 0, end: length) == rewrite.after {
            // The state it leads to, carried by its journal record, counts the claim too.
            var current = targetState
            current.add(claim: claim)
            return try undoRewrite(target, key, current, rewrite)
        }
        let reader = try PDFTailReader(path: target, decoder: decoder)
        guard let record = RevisionRecord(trailer: reader.tail.trailer),
              try RevisionHistory.isRevision(record, trailer: reader.tail.trailer, end: length,
                                             in: PDFFileSource(path: target)) else {
            throw EngineError.refused(target: target, reason: "its last revision was written by another program; "
                                      + "undo stops at PDFTrapper's first revision")
        }
        guard record.base > 0 else {
            if record.operation == .repair || record.operation == .compact {
                throw EngineError.refused(target: target, reason: "the file it rewrote is no longer kept "
                                          + "(the last \(TargetState.keptRewrites) full rewrites of a file can be undone)")
            }
            throw EngineError.refused(target: target, reason: "this is the revision that created the file; "
                                      + "undoing it would leave no PDF (delete the file instead)")
        }
        let tailFile = "\(state.targets)/\(key).\(targetState.redo.count + 1).tail"
        try saveTail(target, from: record.base, to: length, into: tailFile)
        var journal = JournalRecord(kind: .undo, target: target, oldLength: length, newLength: record.base,
                                    tailFile: tailFile, inputs: record.inputs.map { SHA256.hex($0.sha256) })
        journal.claim = claim
        if let outbox {
            let event = OutboundEvent.revision(target: target, libraryRoot: outbox.libraryRoot, record: record, end: length,
                                               origin: RevisionOrigin(madeBy: "undo"), time: journal.started, host: outbox.host)
            journal.event = String(decoding: event.body, as: UTF8.self)
        }
        try writeJournal(journal, key)
        try folders.truncate(target, to: record.base)
        let span = try TargetState.Span(base: record.base, end: length,
                                        sha256: TargetState.Span.read(tailFile, base: 0, end: length - record.base).sha256)
        targetState.redo.append(TargetState.Undone(span: span, tailFile: tailFile))
        targetState.lastWrite = try previousSpan(target, end: record.base)
        targetState.remove(record)
        targetState.add(claim: claim)
        try saveState(targetState, key)
        if announceUndo(journal) { try clearJournal(key) }
        return record
    }

    private func checkLength(_ target: String, _ expected: Int?) throws(EngineError) {
        guard let expected, let length = fileLength(target), length != expected else { return }
        throw .refused(target: target, reason: EditApply.baseMoved(expected, length))
    }

    /// An undo or redo whose claim the state counts was made already: refused as a conflict-free
    /// `refused`, which the edit job reads as "applied before a restart".
    private func refuseAppliedClaim(_ claim: String?, _ key: String, _ target: String) throws(EngineError) {
        guard let claim else { return }
        do { try refuseApplied([claim], key, target) } catch {
            throw .refused(target: target, reason: "\(error)")
        }
    }

    private func checkRevision(_ target: String, _ expected: RevisionID?) throws(EngineError) {
        guard let expected, let now = Self.revision(of: target), now != expected else { return }
        throw .refused(target: target, reason: Self.revisionMoved(expected, now))
    }

    /// The revision the file at `path` is now (read it under the target's lock to act on it).
    public static func revision(of path: String) -> RevisionID? {
        guard let source = try? PDFFileSource(path: path) else { return nil }
        return revision(in: source, end: source.length)
    }

    /// The revision that ends at `end` in `source` (its first `end` bytes).
    public static func revision(in source: PDFFileSource, end: Int) -> RevisionID? {
        let start = max(0, end - TargetState.Span.hashedTail)
        guard end <= source.length, let bytes = try? source.read(offset: start, count: end - start) else { return nil }
        return RevisionID(end: end, sha256Hex: SHA256.hex(SHA256.hash(bytes)))
    }

    public static func revisionMoved(_ expected: RevisionID, _ now: RevisionID) -> String {
        "the target has changed since revision \(expected) (it is now revision \(now)); "
            + "write the script against the current revision, or set on_conflict = \"apply\""
    }

    /// Whether `redo` would put a revision back: one was undone, and the file still ends where the undo left it.
    public func canRedo(target: String) -> Bool {
        let targetState = loadState(state.key(for: target), target)
        guard let undone = targetState.redo.last, let length = fileLength(target) else { return false }
        if let rewrite = undone.rewrite { return (try? TargetState.Span.read(target, base: 0, end: length)) == rewrite.before }
        return length == undone.span.base
    }

    /// Puts back the most recently undone revision, byte for byte.
    public func redo(target: String, expecting: Int? = nil, revision: RevisionID? = nil, claim: String? = nil)
        throws(EngineError) -> RevisionRecord
    {
        try publishing(target, { () throws(EngineError) in try redoLocked(target, expecting, revision, claim) }, told: { record in
            RevisionCommitted(target: target, base: record.base, end: fileLength(target) ?? 0, operation: "redo", note: record.note,
                              inputs: record.inputs, date: record.date)
        })
    }

    private func redoLocked(_ target: String, _ expecting: Int?, _ revision: RevisionID?, _ claim: String?)
        throws(EngineError) -> RevisionRecord
    {
        let held = try self.lock(target)
        defer { withExtendedLifetime(held) {} }
        let key = held.key
        try checkLength(target, expecting)
        try checkRevision(target, revision)
        try refuseAppliedClaim(claim, key, target)
        var targetState = loadState(key, target)
        guard let undone = targetState.redo.last else {
            throw .refused(target: target, reason: "nothing to redo")
        }
        if let rewrite = undone.rewrite {
            targetState.add(claim: claim)
            return try redoRewrite(target, key, targetState, undone, rewrite)
        }
        guard let length = fileLength(target) else { throw .unreadable(target: target, reason: "no such file") }
        guard length == undone.span.base else {
            throw .refused(target: target, reason: "changed since the undo (\(length) bytes, expected \(undone.span.base)); "
                           + "redo would not put back the same document")
        }
        var remembered = false
        defer {
            // A redo that failed part-way leaves nothing behind.
            if !remembered, fileLength(target).map({ $0 > length }) == true,
               (try? folders.truncate(target, to: length)) != nil {
                try? clearJournal(key)
            }
        }
        do {
            var journal = announcing(JournalRecord(kind: .append, target: target, oldLength: length,
                                                   origin: RevisionOrigin(madeBy: "redo")))
            journal.before = try TargetState.Span.read(target, base: 0, end: length)
            try writeJournal(journal, key)
            try appendFile(undone.tailFile, to: target, at: length)
            let span = try TargetState.Span.read(target, base: undone.span.base, end: undone.span.end)
            guard span == undone.span else {
                try folders.truncate(target, to: length)
                throw EngineError.refused(target: target, reason: "the saved revision \(undone.tailFile) is damaged; not redone")
            }
            let reader = try PDFTailReader(path: target, decoder: decoder)
            guard let record = RevisionRecord(trailer: reader.tail.trailer) else {
                try folders.truncate(target, to: length)
                throw EngineError.refused(target: target, reason: "redone bytes carry no PDFTrapper record")
            }
            targetState.redo.removeLast()
            targetState.lastWrite = span
            targetState.add(record)
            targetState.add(claim: claim)
            try saveState(targetState, key)
            remembered = true
            try folders.remove(undone.tailFile)
            if announce(journal, record, end: span.end) { try clearJournal(key) }
            return record
        } catch {
            throw .from(error, target: target)
        }
    }

    /// The file must still end where PDFTrapper's last write ended, with the same bytes there.
    private func checkUnchanged(_ target: String, _ length: Int, _ targetState: TargetState) throws {
        guard let last = targetState.lastWrite else { return }
        let now = try TargetState.Span.read(target, base: last.base, end: length)
        guard now == last else {
            throw EngineError.refused(target: target, reason: "changed by another program since PDFTrapper's last revision "
                                      + "(\(length) bytes, expected \(last.end)); undo would lose that change")
        }
    }

    private func saveTail(_ target: String, from base: Int, to end: Int, into path: String) throws {
        let handle = FileHandle(fileDescriptor: try folders.open(path, flags: O_WRONLY | O_CREAT | O_TRUNC), closeOnDealloc: true)
        defer { try? handle.close() }
        try Self.copy(PDFFileSource(path: target), from: base, to: end, into: handle)
        try folders.syncFolder(state.targets)
    }

    /// At `offset`, the end as read under the lock (never a cached size: see append).
    private func appendFile(_ path: String, to target: String, at offset: Int) throws {
        let handle = try openForWriting(target)
        defer { try? handle.close() }
        try handle.seek(toOffset: UInt64(offset))
        let source = try PDFFileSource(path: path)
        try Self.copy(source, from: 0, to: source.length, into: handle)
    }

    /// Bytes `base..<end` of `source` written at `handle`'s position, a megabyte at a time, then fsynced.
    static func copy(_ source: PDFFileSource, from base: Int, to end: Int, into handle: FileHandle) throws {
        var offset = base
        while offset < end {
            let chunk = try source.read(offset: offset, count: min(1 << 20, end - offset))
            guard !chunk.isEmpty else { break }
            try handle.write(contentsOf: chunk)
            offset += chunk.count
        }
        try handle.synchronize()
    }
}
