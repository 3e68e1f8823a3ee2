import Foundation
import Glibc
import System
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
    }

    /// SHA-256s (hex) of the inputs whose pages are in the target, as far as PDFTrapper knows: none
    /// when the file is gone or another program changed it since PDFTrapper's last write (its pages
    /// may no longer be there, and skipping an input as a duplicate would lose it).
    public func ingestedInputs(of target: String) -> Set<String> {
        let targetState = loadState(state.key(for: target), target)
        guard let last = targetState.lastWrite, let length = fileLength(target), length == last.end,
              (try? TargetState.Span.read(target, base: last.base, end: length)) == last else { return [] }
        return targetState.inputs ?? []
    }

    /// Writes one revision. `build` writes its objects through the writer: for an existing target it
    /// gets the target's tail reader; for a new one nil, and must set `writer.root`. It returns the
    /// record kept in the trailer (its `base` is filled in here). Anything `build` throws leaves the
    /// target as it was; a failure to write the target or the state is `EngineError.io`.

    /// `origin`: what the revision's event says made it, beyond its trailer (a scan, the rule).
    /// `claims`: the ids of the claimed files making it (an edit script, inbox inputs), kept in the
    /// state with the revision. A claim the state already counts is `AlreadyApplied`, checked
    /// under the lock: a worker a crash left behind and its successor never both apply one.
    /// `reading`: the pages `build` asks to have read by OCR, told with the revision.
    public func commit(target: String, origin: RevisionOrigin? = nil, claims: [String] = [], reading: ReadingList? = nil,
                       build: (inout Writer, PDFTailReader?) throws -> RevisionRecord) throws -> Committed
    {
        try publishing(target, { () throws in try commitLocked(target, origin, claims, build) },
                       told: { Self.told($0, origin: origin, reading: reading) })
    }

    private func commitLocked(_ target: String, _ origin: RevisionOrigin?, _ claims: [String],
                              _ build: (inout Writer, PDFTailReader?) throws -> RevisionRecord) throws -> Committed
    {
        var held = try self.lock(target)
        defer { withExtendedLifetime(held) {} }
        try refuseApplied(claims, held.key, target)
        // Another program may save the target (a new file renamed over it) while a revision is
        // written: the revision then went into a file no longer there, and is written again, to
        // the file that is. Likewise a new target another process created first is appended to.
        for attempt in 1...Self.attempts {
            do {
                guard let file = held.file else { return try create(target, held.key, origin, claims, build) }
                return try appendOrRepair(target, held.key, file, origin, claims, build)
            } catch let replaced as Replaced where attempt < Self.attempts {
                log.append("\(target): \(replaced.reason); writing the revision again")
                try held.relockFile(self, target)
            } catch let replaced as Replaced {
                throw EngineError.busy(target: target, reason: "\(replaced.reason), \(Self.attempts) times; nothing of the revision was kept")
            }
        }
        preconditionFailure("the last attempt returns or throws")
    }

    /// How often a revision is written again when the target is replaced under it.
    static let attempts = 5

    /// The target at the path is not the file the revision was being written to (or not the size
    /// it was read at): nothing of the revision stays, and it is written again.
    struct Replaced: Error { var reason: String }

    private func appendOrRepair(_ target: String, _ key: String, _ file: TargetLock, _ origin: RevisionOrigin?,
                                _ claims: [String], _ build: (inout Writer, PDFTailReader?) throws -> RevisionRecord) throws -> Committed
    {
        // Damage in the tail, or found once the writing began (a broken /Prev chain, an object cut
        // short): the target is rewritten whole, its bytes kept for undo, and the revision tried
        // once more. If it still cannot go in, the repair is taken back: the file is as it was.
        do {
            do {
                return try append(target, key, file, origin, claims, build)
            } catch where Self.isDamage(error) {
                // Judged once more, read afresh, before anything is rewritten: a file another host
                // is writing can look torn through a stale view, and is not damaged.
                usleep(200_000)
                return try append(target, key, file, origin, claims, build)
            }
        } catch where Self.isDamage(error) {
            let report = try rewrite(target, key, .repair)
            let note = "\(target): damaged; repaired by a full rewrite (\(report.summary))"
            log.append(note)
            do {
                // The repair put a new file in place: its lock is the one to write under.
                guard let repaired = try lockFile(target) else { throw Replaced(reason: "removed after its repair") }
                var committed = try append(target, key, repaired, origin, claims, build)
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
        let current = loadState(key, target)
        guard let repair = current.rewrites?.last else { return }
        do {
            _ = try undoRewrite(target, key, current, repair)
            var after = loadState(key, target)
            if let undone = after.redo.popLast() {
                try saveState(after, key)
                try folders.remove(undone.tailFile)
            }
        } catch {
            throw .from(error, target: target)
        }
    }

    /// One revision at the end of an existing target, through the file `file` locks; damage, in
    /// its tail or found while writing, is thrown as the PDFError it is (`commit` repairs it).
    /// The file written is checked to be the locked one, at the length read, before the first
    /// byte and again after the sync: otherwise `Replaced`, with nothing of the revision left.
    private func append(_ target: String, _ key: String, _ file: TargetLock, _ origin: RevisionOrigin?,
                        _ claims: [String], _ build: (inout Writer, PDFTailReader?) throws -> RevisionRecord) throws -> Committed
    {
        waitUntilNotBehind(target, key, file)
        let reader: PDFTailReader
        do {
            reader = try PDFTailReader(source: PDFFileSource(descriptor: file.openForReading(), path: target), decoder: decoder)
            // A target whose numbering leaves no room for new objects is renumbered by the repair.
            try reader.tail.checkNumberingRoom()
        } catch PDFError.encrypted {
            throw EngineError.encrypted(target: target)
        } catch let error as PDFError where error.needsRepair {
            throw error
        } catch {
            throw EngineError.unreadable(target: target, reason: "\(error)")
        }
        let base = reader.tail.fileLength
        var journal = announcing(JournalRecord(kind: .append, target: target, oldLength: base, origin: origin))
        journal.marker = "PDFTrapper revision \(UUID().uuidString)"
        journal.identity = file.current
        var written: FileHandle?
        defer { try? written?.close() }
        var journaled = false, remembered = false
        do {
            journal.before = try TargetState.Span.read(target, base: 0, end: base)
            let handle = try openForWriting(target)
            guard let opened = FileIdentity.of(descriptor: handle.fileDescriptor), opened.isSameFile(as: file.identity) else {
                try? handle.close()
                throw Replaced(reason: "another program replaced it before the revision began")
            }
            guard opened.size == base else {
                try? handle.close()
                throw Replaced(reason: "another program changed its length while it was read")
            }
            try writeJournal(journal, key)
            journaled = true
            CrashPoint.afterJournal.hit()
            written = handle
            let output = try PDFFileOutput(handle: handle, at: base)
            var writer = try Writer(base: .appending(reader.tail), output: output)
            try writer.comment(journal.marker!)
            let record = try write(&writer, base: base, reader: reader, target: target, build: build)
            try output.flush()
            CrashPoint.beforeSync.hit()
            try handle.synchronize()
            CrashPoint.afterSync.hit()
            let end = base + writer.bytesWritten
            // The revision counts only if it is in the file at the target's path, whole: checked
            // through a descriptor opened anew (on a shared file system, what the server has).
            guard FileIdentity.of(descriptor: handle.fileDescriptor)?.size == end, file.isStillAtPath else {
                throw Replaced(reason: "another program replaced it while the revision was written")
            }
            guard endsWithRevision(target, file, base: base, end: end, marker: journal.marker!) else {
                throw Replaced(reason: "the file read back after the write does not end with the revision")
            }
            try remember(key, target, TargetState.Span.read(target, base: base, end: end), record, claims,
                         event: event(journal, record, end: end))
            remembered = true
            CrashPoint.afterState.hit()
            if announce(journal, record, end: end) { try clearJournal(key, durable: false) }
            return Committed(target: target, record: record, base: base, end: end, created: false, repairNote: nil)
        } catch {
            // Once the state says the revision is there, it stays (recovery clears the journal).
            // Before that nothing of it may stay: cut back through the descriptor written, which
            // is the locked file (a file another program renamed over the target meanwhile is not
            // this one, and is never cut), and forget the journal only if that worked.
            if !remembered {
                let cut = written.map { ftruncate($0.fileDescriptor, off_t(base)) == 0 && fsync($0.fileDescriptor) == 0 } ?? true
                if cut, journaled { try? clearJournal(key) }
            }
            if error is Replaced { throw error }
            throw Self.engineError(error, target: target)
        }
    }

    /// On a shared file system, a file shorter than PDFTrapper's last revision in it, as the
    /// shared state records that, may be a stale view (a client that cached the size before
    /// another host's append): it is looked at again, through new descriptors, before it is read.
    /// A file that stays shorter was cut or saved anew by another program, and is written as it
    /// is. (On a local file system what the lock holder sees is the file: no wait.)
    private func waitUntilNotBehind(_ target: String, _ key: String, _ file: TargetLock) {
        guard mount(of: (target as NSString).deletingLastPathComponent).shared,
              let last = loadState(key, target).lastWrite else { return }
        for pause in [0, 10, 50, 200] {
            usleep(useconds_t(pause * 1000))
            let fresh = file.openForReading()
            guard fresh >= 0 else { return }
            defer { close(fresh) }
            guard let now = FileIdentity.of(descriptor: fresh), now.size < last.end else { return }
            if pause == 0 { log.append("\(target): shorter (\(now.size) bytes) than its last revision (\(last.end)); looking again") }
        }
    }

    /// The file at the target's path, opened anew, is the locked file, `end` bytes long, with this
    /// revision's marker at `base`: the write reached the file every other process reads.
    private func endsWithRevision(_ target: String, _ file: TargetLock, base: Int, end: Int, marker: String) -> Bool {
        guard let descriptor = try? folders.open(target, flags: O_RDONLY | O_NONBLOCK | O_CLOEXEC),
              let source = try? PDFFileSource(descriptor: descriptor, path: target),
              let opened = FileIdentity.of(descriptor: descriptor), opened.isSameFile(as: file.identity), opened.size == end,
              let found = try? source.read(offset: base, count: min(end - base, marker.utf8.count + 3)),
              found.count > marker.utf8.count + 1 else { return false }  // a read cut short proves nothing
        return Self.beginsWithMarker(found, marker)
    }

    /// `found` (bytes at a revision's start) begins with the comment naming `marker`, after the
    /// newline the writer adds when the file did not end with one; or is a prefix of it.
    static func beginsWithMarker(_ found: [UInt8], _ marker: String) -> Bool {
        let comment = Array("%\(marker)\n".utf8)
        return [comment, [0x0A] + comment].contains { expected in
            let common = min(expected.count, found.count)
            return found.prefix(common).elementsEqual(expected.prefix(common))
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

    /// A new target: written under a temporary name beside it, locked, then linked into place. It
    /// keeps the temporary name too until the state counts it, so recovery can tell it is this
    /// process's file (same bytes) and not one another process made meanwhile. A target that
    /// appears meanwhile (another process won the race) is `Replaced`: the revision goes into it.
    private func create(_ target: String, _ key: String, _ origin: RevisionOrigin?, _ claims: [String],
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
            // Locked before it has the target's name: whoever opens it there waits for this revision.
            let lock = try TargetLock(adopting: handle.fileDescriptor, path: target, status: { [folders] in folders.status(target) })
            defer { withExtendedLifetime(lock) {} }
            // link(2) refuses to replace a file that appeared meanwhile; rename(2) would not.
            if folders.exists(target) { throw Replaced(reason: "made by another process meanwhile") }
            do { try folders.link(temporary, to: target) } catch {
                if error.code == EEXIST { throw Replaced(reason: "made by another process meanwhile") }
                throw error
            }
            linked = true
            CrashPoint.afterRename.hit()
            try remember(key, target, TargetState.Span.read(target, base: 0, end: writer.bytesWritten), record, claims,
                         event: event(journal, record, end: writer.bytesWritten))
            remembered = true
            try folders.remove(temporary)
            CrashPoint.afterState.hit()
            if announce(journal, record, end: writer.bytesWritten) { try clearJournal(key) }
            return Committed(target: target, record: record, base: 0, end: writer.bytesWritten, created: true, repairNote: nil)
        } catch {
            try? folders.remove(temporary)
            // A target this revision created goes again unless the state already counts it.
            let undone = remembered || !linked || (try? folders.remove(target)) != nil
            if !remembered, undone { try? clearJournal(key) }
            if error is Replaced { throw error }
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
    private func remember(_ key: String, _ target: String, _ span: TargetState.Span, _ record: RevisionRecord,
                          _ claims: [String], event: OutboundEvent?) throws {
        var targetState = loadState(key, target)
        for undone in targetState.redo { try? folders.remove(undone.tailFile) }
        targetState.redo = []
        targetState.lastWrite = span
        targetState.lastEvent = event.map { String(decoding: $0.body, as: UTF8.self) }
        if span.base == 0 { targetState.inputs = [] }
        targetState.add(record)
        claims.forEach { targetState.add(claim: $0) }
        try saveState(targetState, key)
    }

    /// A change whose claim the state counts was made already (before a crash, or by a worker a
    /// crash left running): it is not made again.
    public struct AlreadyApplied: Error, CustomStringConvertible {
        public var claim: String
        public var description: String { "applied before a restart (claim \(claim))" }
    }

    func refuseApplied(_ claims: [String], _ key: String, _ target: String) throws(AlreadyApplied) {
        let counted = loadState(key, target).claims ?? []
        if let applied = claims.first(where: counted.contains) { throw AlreadyApplied(claim: applied) }
    }

    /// Whether the change of the claimed edit script `claim` is in the target's state (it was
    /// applied, and a crash came before the script was filed).
    public func hasApplied(claim: String, to target: String) -> Bool {
        loadState(state.key(for: target), target).claims?.contains(claim) ?? false
    }
}
