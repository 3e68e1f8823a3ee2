import Foundation
import Glibc
import PDFAccess
import System
import TrapperCore

/// Full rewrites (a repair, a compaction) and their undo and redo. A rewrite is written beside the
/// target and checked against it (PDFRewriter) before anything replaces the target; the target's
/// bytes are then kept whole in the state folder and the new file renamed over it. Undo puts the
/// kept bytes back and keeps the rewrite for redo. Each of the three is one whole-file replace,
/// journaled with the state it leads to, so a crash leaves the old file or the new one with its state.
extension TargetStore {
    /// Rewrites the target whole as `purpose` says, under its lock; returns what the rewrite did.
    public func rewriteWhole(target: String, _ purpose: PDFRewriter.Purpose) throws(EngineError) -> PDFRewriter.Report {
        try publishing(target, { () throws(EngineError) in
            let held = try self.lock(target)
            defer { withExtendedLifetime(held) {} }
            return try rewrite(target, held.key, purpose)
        }, told: { report in
            RevisionCommitted(target: target, base: 0, end: report.bytesAfter, operation: purpose == .repair ? "repair" : "compact")
        })
    }

    /// The rewrite, the target's lock held. A file qpdf cannot read, or whose rewrite falls short
    /// of it, is `damaged` and left as it was; an encrypted one is never rewritten.
    func rewrite(_ target: String, _ key: String, _ purpose: PDFRewriter.Purpose) throws(EngineError) -> PDFRewriter.Report {
        guard let length = fileLength(target) else { throw .unreadable(target: target, reason: "no such file") }
        let operation: RevisionRecord.Operation = purpose == .repair ? .repair : .compact
        let started = Date()
        let replacement = sibling(of: target, "rewrite")
        let report: PDFRewriter.Report
        do {
            // Through the pinned folder: a swap of a folder on the way cannot redirect qpdf.
            report = try folders.pinned(target) { pinned in
                do {
                    return try PDFRewriter.rewrite(pinned, to: sibling(of: pinned, "rewrite"), purpose: purpose, shown: target) { lines in
                        var record = RevisionRecord(operation: operation, date: started, base: 0, pagesAdded: 0, inputs: [],
                                                    note: lines.isEmpty ? nil : lines.joined(separator: "; "))
                        record.number = 1
                        return record.dictionary
                    }
                } catch PDFRewriteError.encrypted {
                    throw EngineError.encrypted(target: target)
                } catch {
                    throw EngineError.damaged(target: target, reason: "\(error)".replacingOccurrences(of: pinned, with: target))
                }
            }
        } catch {
            throw .from(error, target: target)
        }
        let current = loadState(key, target)
        var next = current
        let kept = "\(state.targets)/\(key).kept-\(UUID().uuidString).pdf"
        do {
            let rewritten = TargetState.Rewritten(
                kept: kept, before: try TargetState.Span.read(target, base: 0, end: length),
                after: try TargetState.Span.read(replacement, base: 0, end: report.bytesAfter), lastWriteBefore: current.lastWrite)
            // A new revision: what was undone before can no longer be redone.
            next.redo = []
            next.lastWrite = rewritten.after
            let dropped = next.pushRewrite(rewritten)
            try replaceWhole(target, key, with: replacement, bytes: rewritten.after, keeping: kept, after: next,
                             obsolete: current.redo.map(\.tailFile) + dropped,
                             event: event(target, operation.rawValue, trailerOf: replacement, end: report.bytesAfter, time: started))
        } catch {
            try? folders.remove(replacement)
            throw .from(error, target: target)
        }
        return report
    }

    /// Undoes the last full rewrite, whose bytes the target still has: the kept original put back,
    /// the rewrite kept for redo. Returns the rewrite's record.
    func undoRewrite(_ target: String, _ key: String, _ current: TargetState, _ rewrite: TargetState.Rewritten) throws -> RevisionRecord {
        let record = rewriteRecord(target)
        let replacement = sibling(of: target, "undo")
        var next = current
        next.rewrites?.removeLast()
        let kept = "\(state.targets)/\(key).\(current.redo.count + 1).tail"
        next.redo.append(TargetState.Undone(span: rewrite.after, tailFile: kept, rewrite: rewrite))
        next.lastWrite = rewrite.lastWriteBefore
        do {
            try copyWhole(rewrite.kept, to: replacement)
            try replaceWhole(target, key, with: replacement, bytes: rewrite.before, keeping: kept, after: next,
                             obsolete: [rewrite.kept],
                             event: event(target, "undo", record: record, end: rewrite.after.end))
        } catch {
            try? folders.remove(replacement)
            throw error
        }
        return record
    }

    /// Redoes an undone full rewrite, once the target is again the original it replaced.
    func redoRewrite(_ target: String, _ key: String, _ current: TargetState, _ undone: TargetState.Undone,
                     _ rewrite: TargetState.Rewritten) throws(EngineError) -> RevisionRecord {
        guard let length = fileLength(target), (try? TargetState.Span.read(target, base: 0, end: length)) == rewrite.before else {
            throw .refused(target: target, reason: "changed since the undo; redo would not put back the same document")
        }
        let replacement = sibling(of: target, "redo")
        var next = current
        next.redo.removeLast()
        let kept = "\(state.targets)/\(key).kept-\(UUID().uuidString).pdf"
        var redone = rewrite
        redone.kept = kept
        let dropped = next.pushRewrite(redone)
        next.lastWrite = rewrite.after
        do {
            try copyWhole(undone.tailFile, to: replacement)
            let record = rewriteRecord(replacement)
            try replaceWhole(target, key, with: replacement, bytes: rewrite.after, keeping: kept, after: next,
                             obsolete: [undone.tailFile] + dropped,
                             event: event(target, "redo", record: record, end: rewrite.after.end))
            return record
        } catch {
            try? folders.remove(replacement)
            throw .from(error, target: target)
        }
    }

    /// Puts `replacement` (complete and fsynced, beside the target) in place of the target, whose
    /// bytes are first kept as `kept` in the state folder. `after` is the target's state once done,
    /// `obsolete` the state folder's files it no longer names. Journaled: recovery finds the target
    /// either untouched (and removes the replacement and the copy) or replaced (and finishes).
    /// `bytes`: the replacement's, as the state already knows them (read once, when the rewrite was made).
    private func replaceWhole(_ target: String, _ key: String, with replacement: String, bytes: TargetState.Span, keeping kept: String,
                              after: TargetState, obsolete: [String], event: OutboundEvent?) throws {
        var journal = announcing(JournalRecord(kind: .rewrite, target: target, oldLength: fileLength(target) ?? 0,
                                               temporary: replacement, tailFile: kept))
        journal.replacement = bytes
        journal.after = after
        journal.obsolete = obsolete
        journal.event = event.map { String(decoding: $0.body, as: UTF8.self) }
        try writeJournal(journal, key)
        do {
            try keepWhole(target, as: kept)
            CrashPoint.beforeSync.hit()
            try folders.renameOver(replacement, target)
            CrashPoint.afterRename.hit()
        } catch {
            try? folders.remove(kept)
            try? clearJournal(key)
            throw error
        }
        try finishReplace(journal, key)
    }

    /// After the rename (now, or found done after a crash): the state it leads to, the files it
    /// made obsolete gone, its event queued; then the journal record goes.
    func finishReplace(_ journal: JournalRecord, _ key: String) throws {
        if let after = journal.after { try saveState(after, key) }
        for path in journal.obsolete ?? [] { try folders.remove(path) }
        if announceUndo(journal) { try clearJournal(key) }
    }

    /// Recovery of a whole-file replace: finished when the target has the new file's bytes (told
    /// by its length and the hash of its tail, not its inode, which a restore or copy changes);
    /// else the target is as it was, or another program's, and is left alone.
    func recoverReplace(_ journal: JournalRecord, _ key: String) throws -> Bool {
        let target = journal.target
        if let replacement = journal.replacement, let length = fileLength(target), length == replacement.end,
           (try? TargetState.Span.read(target, base: 0, end: length)) == replacement {
            try finishReplace(journal, key)
            log.append("\(journal.target): finished an interrupted full rewrite")
            return true
        }
        if let temporary = journal.temporary { try folders.remove(temporary) }
        if let kept = journal.tailFile { try folders.remove(kept) }
        return false
    }

    /// The target's bytes under a second name in the state folder: a hard link where both are on
    /// one file system (the rename then leaves the old file to it alone), else a copy.
    private func keepWhole(_ target: String, as kept: String) throws {
        do {
            try folders.link(target, to: kept)
            try folders.syncFolder(state.targets)
        } catch let failure as Durable.Failure where failure.code == EXDEV {
            try copyWhole(target, to: kept)
        }
    }

    /// A new file at `destination` with the bytes of `source`, fsynced, its folder too.
    private func copyWhole(_ source: String, to destination: String) throws {
        try? folders.remove(destination)  // what a process of the same pid left, killed before its journal
        let handle = FileHandle(fileDescriptor: try folders.open(destination, flags: O_WRONLY | O_CREAT | O_EXCL), closeOnDealloc: true)
        defer { try? handle.close() }
        let bytes = try PDFFileSource(path: source)
        try Self.copy(bytes, from: 0, to: bytes.length, into: handle)
        try folders.syncFolder((destination as NSString).deletingLastPathComponent)
    }

    /// A hidden name beside `path` for a new file that will replace it.
    private func sibling(of path: String, _ tag: String) -> String {
        (path as NSString).deletingLastPathComponent + "/"
            + FileName.temporary(for: (path as NSString).lastPathComponent, tag: ".pdftrapper-\(tag)-\(getpid())")
    }

    /// The record in the trailer a rewrite wrote; a plain one where there is none to read (a
    /// target a failed append left longer, say).
    private func rewriteRecord(_ path: String) -> RevisionRecord {
        (try? PDFTailReader(path: path, decoder: decoder)).flatMap { RevisionRecord(trailer: $0.tail.trailer) }
            ?? RevisionRecord(operation: .compact, date: Date(), base: 0, pagesAdded: 0, inputs: [])
    }

    private func event(_ target: String, _ madeBy: String, trailerOf path: String, end: Int, time: Date) -> OutboundEvent? {
        guard outbox != nil else { return nil }  // nobody subscribes: no trailer to read
        return event(target, madeBy, record: rewriteRecord(path), end: end, time: time)
    }

    private func event(_ target: String, _ madeBy: String, record: RevisionRecord, end: Int, time: Date = Date()) -> OutboundEvent? {
        outbox.map { outbox in
            OutboundEvent.revision(target: target, libraryRoot: outbox.libraryRoot, record: record, end: end,
                                   origin: RevisionOrigin(madeBy: madeBy), time: time, host: outbox.host)
        }
    }
}

extension TargetState {
    /// Adds a rewrite undo can take back; returns the kept files of those that fall out of the
    /// last `keptRewrites` (no longer undoable, so no longer kept).
    mutating func pushRewrite(_ rewrite: Rewritten) -> [String] {
        var all = (rewrites ?? []) + [rewrite]
        let dropped = all.count > Self.keptRewrites ? all.prefix(all.count - Self.keptRewrites).map(\.kept) : []
        all.removeFirst(dropped.count)
        rewrites = all
        return dropped
    }
}
