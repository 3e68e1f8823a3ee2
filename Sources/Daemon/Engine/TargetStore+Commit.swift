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
        // Damage found once the writing began (a broken /Prev chain, an object cut short) takes the
        // same one repair path as damage found in the tail: rewritten whole, then tried once more.
        do {
            return try append(target, key, origin, build, repaired: nil)
        } catch let error as PDFError where error.needsRepair {
            let note: String
            do { note = try repairWhole(target) } catch {
                throw EngineError.damaged(target: target, reason: "\(error)")
            }
            log.append(note)
            do {
                return try append(target, key, origin, build, repaired: note)
            } catch let error as PDFError {
                throw EngineError.damaged(target: target, reason: "\(error)")
            }
        }
    }

    /// One revision at the end of an existing target; a damaged tail is repaired first (unless it
    /// was just repaired, `repaired`), damage found while writing is thrown as the PDFError it is.
    private func append(_ target: String, _ key: String, _ origin: RevisionOrigin?,
                        _ build: (inout Writer, PDFTailReader?) throws -> RevisionRecord, repaired: String?) throws -> Committed
    {
        var repairNote = repaired
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
        } catch let error as PDFError where error.needsRepair && repaired == nil {
            do {
                repairNote = try repairWhole(target)
                log.append(repairNote!)
                reader = try checkedTail()
            } catch {
                throw EngineError.damaged(target: target, reason: "\(error)")
            }
        } catch let error as PDFError where error.needsRepair {
            throw EngineError.damaged(target: target, reason: "\(error)")
        } catch {
            throw EngineError.unreadable(target: target, reason: "\(error)")
        }
        let base = reader.tail.fileLength
        let journal = announcing(JournalRecord(kind: .append, target: target, oldLength: base, origin: origin))
        try writeJournal(journal, key)
        CrashPoint.afterJournal.hit()
        var remembered = false
        do {
            let handle = try openForWriting(target)
            defer { try? handle.close() }
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
            return Committed(target: target, record: record, base: base, end: end, created: false, repairNote: repairNote)
        } catch {
            // Once the state says the revision is there, it stays (recovery clears the journal).
            // Before that nothing of it may stay: cut back, and forget the journal only if that worked.
            if !remembered, (try? folders.truncate(target, to: base)) != nil { try? clearJournal(key) }
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
