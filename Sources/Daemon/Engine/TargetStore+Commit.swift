import Foundation
import Glibc
import TrapperCore

/// Appending one revision to a target, or writing a new target, with the journal around it.
extension TargetStore {
    public typealias Writer = PDFUpdateWriter<PDFFileOutput>

    public struct Committed: Sendable {
        public var target: String
        public var record: RevisionRecord
        /// Where the revision starts and ends in the file.
        public var base: Int
        public var end: Int
        public var created: Bool
        /// Set when the target had to be repaired (rewritten whole) first.
        public var repairNote: String?
        /// The page objects an ingest added (for OCR to find them later, wherever they move).
        public var pages: [PDFReference] = []
    }

    /// SHA-256s (hex) of the inputs whose pages are in the target, as far as PDFTrapper knows: none
    /// when the file is gone or another program changed it since PDFTrapper's last write (its pages
    /// may no longer be there, and skipping an input as a duplicate would lose it).
    public func ingestedInputs(of target: String) -> Set<String> {
        let targetState = TargetState.load(statePath(StateDirectory.key(for: target)), target: target)
        guard let last = targetState.lastWrite, let length = fileLength(target), length == last.end,
              (try? TargetState.Span.read(target, base: last.base, end: length)) == last else { return [] }
        return targetState.inputs ?? []
    }

    /// Writes one revision. `build` writes its objects through the writer: for an existing target it
    /// gets the target's tail reader; for a new one nil, and must set `writer.root`. It returns the
    /// record kept in the trailer (its `base` is filled in here). Anything `build` throws leaves the
    /// target as it was; a failure to write the target or the state is `EngineError.io`.

    /// `origin`: what the revision's event says made it, beyond its trailer (a scan, the rule).
    public func commit(target: String, origin: RevisionOrigin? = nil, build: (inout Writer, PDFTailReader?) throws -> RevisionRecord)
        throws -> Committed
    {
        let (lock, key) = try self.lock(target)
        defer { withExtendedLifetime(lock) {} }
        guard FileManager.default.fileExists(atPath: target) else {
            return try create(target, key, origin, build)
        }
        // Damage in the tail, or found once the writing began (a broken /Prev chain, an object cut
        // short): the target is rewritten whole, its bytes kept for undo, and the revision tried
        // once more. If it still cannot go in, the repair is taken back: the file is as it was.
        do {
            return try append(target, key, origin, build)
        } catch where Self.isDamage(error) {
            let report = try rewrite(target, key, .repair)
            let note = "\(target): damaged; repaired by a full rewrite (\(report.summary))"
            log.append(note)
            do {
                var committed = try append(target, key, origin, build)
                committed.repairNote = note
                return committed
            } catch {
                try takeBackRepair(target, key)
                throw EngineError.damaged(target: target, reason: "\(error) (after a repair, now undone: the file is as it was)")
            }
        }
    }

    /// Damage in the target's structure, as the PDF layer says it, bare or as the page editor
    /// wraps it when it cannot open the document.
    static func isDamage(_ error: any Error) -> Bool {
        switch error {
        case let error as PDFError: error.needsRepair
        case let error as PDFPageEditError: if case .unreadable(let inner) = error.reason { inner.needsRepair } else { false }
        default: false
        }
    }

    /// Undoes the repair just made and forgets it: nothing of it stays to redo.
    private func takeBackRepair(_ target: String, _ key: String) throws(EngineError) {
        let current = TargetState.load(statePath(key), target: target)
        guard let repair = current.rewrites?.last else { return }
        do {
            _ = try undoRewrite(target, key, current, repair)
            var after = TargetState.load(statePath(key), target: target)
            if let undone = after.redo.popLast() {
                try after.save(statePath(key), in: folders)
                try folders.remove(undone.tailFile)
            }
        } catch {
            throw .from(error, target: target)
        }
    }

    /// One revision at the end of an existing target; damage, in its tail or found while writing,
    /// is thrown as the PDFError it is (`commit` repairs it).
    private func append(_ target: String, _ key: String, _ origin: RevisionOrigin?,
                        _ build: (inout Writer, PDFTailReader?) throws -> RevisionRecord) throws -> Committed
    {
        let reader: PDFTailReader
        // A target whose numbering leaves no room for new objects is renumbered by the repair.
        func checkedTail() throws -> PDFTailReader {
            let reader = try PDFTailReader(path: target, decoder: decoder)
            try reader.tail.checkNumberingRoom()
            return reader
        }
        do {
            reader = try checkedTail()
        } catch PDFError.encrypted {
            throw EngineError.encrypted(target: target)
        } catch let error as PDFError where error.needsRepair {
            throw error
        } catch {
            throw EngineError.unreadable(target: target, reason: "\(error)")
        }
        let base = reader.tail.fileLength
        var journal = announcing(JournalRecord(kind: .append, target: target, oldLength: base, origin: origin))
        journal.before = try? TargetState.Span.read(target, base: 0, end: base)
        try writeJournal(journal, key)
        CrashPoint.afterJournal.hit()
        var remembered = false
        var written: FileHandle?
        defer { try? written?.close() }
        do {
            let handle = try openForWriting(target)
            written = handle
            let output = try PDFFileOutput(handle: handle)
            var writer = try Writer(base: .appending(reader.tail), output: output)
            let record = try write(&writer, base: base, reader: reader, target: target, build: build)
            try output.flush()
            CrashPoint.beforeSync.hit()
            try handle.synchronize()
            CrashPoint.afterSync.hit()
            let end = base + writer.bytesWritten
            try remember(key, target, TargetState.Span.read(target, base: base, end: end), record)
            remembered = true
            CrashPoint.afterState.hit()
            if announce(journal, record, end: end) { try clearJournal(key, durable: false) }
            return Committed(target: target, record: record, base: base, end: end, created: false, repairNote: nil)
        } catch {
            // Once the state says the revision is there, it stays (recovery clears the journal).
            // Before that nothing of it may stay: cut back through the descriptor written (a file
            // another program renamed over the target meanwhile is not this one, and is never cut),
            // and forget the journal only if that worked. Nothing opened, nothing written.
            if !remembered {
                let cut = written.map { ftruncate($0.fileDescriptor, off_t(base)) == 0 && fsync($0.fileDescriptor) == 0 } ?? true
                if cut { try? clearJournal(key) }
            }
            throw Self.engineError(error, target: target)
        }
    }

    /// The target opened for writing below its configured folder (never through a link). A target
    /// that cannot be opened is an I/O failure naming it and the reason (no space, read-only, ...).
    func openForWriting(_ target: String) throws(EngineError) -> FileHandle {
        do {
            return FileHandle(fileDescriptor: try folders.open(target, flags: O_WRONLY), closeOnDealloc: true)
        } catch {
            throw .writing(error)
        }
    }

    /// Errors from writing the target or the state are I/O (worth a retry); an input's own failure
    /// (`badInput`) and the engine's refusals pass as they are.
    /// A Foundation write error names neither the file (the handle has no path) nor, as a
    /// POSIXError, the reason: both are put back, so the log says `write T.pdf: No space left on device`.
    static func engineError(_ error: any Error, target: String) -> any Error {
        switch error {
        case let error as EngineError: error
        case let error as Durable.Failure: EngineError.writing(error)
        case let error as CocoaError:
            EngineError.writing(Durable.Failure(step: "write", path: error.filePath ?? target, code: posixCode(of: error)))
        default: error
        }
    }

    /// The errno beneath a Foundation file error (its NSUnderlyingError in the POSIX domain), else EIO.
    static func posixCode(of error: CocoaError) -> Int32 {
        if let posix = error.underlying as? POSIXError { return posix.code.rawValue }
        if let underlying = error.underlying as NSError?, underlying.domain == NSPOSIXErrorDomain { return Int32(underlying.code) }
        return EIO
    }

    private func create(_ target: String, _ key: String, _ origin: RevisionOrigin?,
                        _ build: (inout Writer, PDFTailReader?) throws -> RevisionRecord) throws -> Committed
    {
        let folder = (target as NSString).deletingLastPathComponent
        let temporary = folder + "/" + FileName.temporary(for: (target as NSString).lastPathComponent, tag: ".pdftrapper-\(getpid())")
        do { try folders.makeFolder(folder) } catch { throw EngineError.writing(error) }
        let journal = announcing(JournalRecord(kind: .create, target: target, oldLength: 0, temporary: temporary, origin: origin))
        try writeJournal(journal, key)
        CrashPoint.afterJournal.hit()
        var linked = false, remembered = false
        do {
            try? folders.remove(temporary)
            let handle = FileHandle(fileDescriptor: try folders.open(temporary, flags: O_WRONLY | O_CREAT | O_EXCL),
                                    closeOnDealloc: true)
            defer { try? handle.close() }
            let output = try PDFFileOutput(handle: handle)
            var writer = try Writer(base: .newFile(version: "1.7"), output: output)
            let record = try write(&writer, base: 0, reader: nil, target: target, build: build)
            try output.flush()
            CrashPoint.beforeSync.hit()
            try handle.synchronize()
            CrashPoint.afterSync.hit()
            // link(2) refuses to replace a file that appeared meanwhile; rename(2) would not.
            try folders.link(temporary, to: target)
            linked = true
            try folders.remove(temporary)
            CrashPoint.afterRename.hit()
            try remember(key, target, TargetState.Span.read(target, base: 0, end: writer.bytesWritten), record)
            remembered = true
            CrashPoint.afterState.hit()
            if announce(journal, record, end: writer.bytesWritten) { try clearJournal(key) }
            return Committed(target: target, record: record, base: 0, end: writer.bytesWritten, created: true, repairNote: nil)
        } catch {
            try? folders.remove(temporary)
            // A target this revision created goes again unless the state already counts it.
            let undone = remembered || !linked || (try? folders.remove(target)) != nil
            if !remembered, undone { try? clearJournal(key) }
            throw Self.engineError(error, target: target)
        }
    }

    private func write(_ writer: inout Writer, base: Int, reader: PDFTailReader?, target: String,
                       build: (inout Writer, PDFTailReader?) throws -> RevisionRecord) throws -> RevisionRecord {
        var record = try build(&writer, reader)
        record.base = base
        record.number = try reader.map { try revisionCount($0, target) + 1 } ?? 1
        writer.trailerExtras[RevisionRecord.trailerKey] = .dictionary(record.dictionary)
        CrashPoint.midAppend.hit()
        try writer.finish()
        return record
    }

    /// After a new revision: it is the last write, and what was undone before can no longer be redone.
    private func remember(_ key: String, _ target: String, _ span: TargetState.Span, _ record: RevisionRecord) throws {
        var targetState = TargetState.load(statePath(key), target: target)
        for undone in targetState.redo { try? folders.remove(undone.tailFile) }
        targetState.redo = []
        targetState.lastWrite = span
        if span.base == 0 { targetState.inputs = [] }
        targetState.add(record)
        try targetState.save(statePath(key), in: folders)
    }
}
