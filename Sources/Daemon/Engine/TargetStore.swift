import Foundation
import Glibc
import System
import TrapperCore

/// Every change to a target PDF goes through here: appends and new files (`commit`), `undo`,
/// `redo`, and the recovery of whatever a crash left half-done. Each change takes the target's locks
/// (its journal's in this state folder, then the file's own, which every process shares), journals
/// the target's length first, and removes the journal record only once the change and the state
/// that describes it are durable.
public final class TargetStore {
    public let state: StateDirectory
    /// Decodes compressed xref and object streams of targets (Flate, in PDFAccess).
    let decoder: any PDFStreamDecoding
    /// Lines for the log: repairs, roll-backs.
    public internal(set) var log: [String] = []
    /// Where the store may write: the daemon's configured folders, or anywhere for a `--to` command.
    public let folders: ConfinedFolders
    /// Where each revision's event is queued before its journal record goes; nil: nobody subscribes.
    public var outbox: EventOutbox?
    /// Folders whose mount was looked at (SharedMount).
    var checkedFolders: [String: CheckedMount] = [:]
    /// Where every change is told once it is durable (TargetStore+Publish). A store's own feed
    /// queues OCR of the pages a revision asks to have read; the daemon gives all its stores one.
    public var revisions: RevisionFeed

    public init(state: StateDirectory, decoder: any PDFStreamDecoding, folders: ConfinedFolders? = nil) throws(EngineError) {
        self.state = state
        self.decoder = decoder
        revisions = RevisionFeed()
        do throws(Durable.Failure) {
            if let folders { self.folders = folders } else { self.folders = try .anywhere() }
            try state.prepare(in: self.folders)
        } catch { throw .writing(error) }
        revisions.subscribe(OCRFollowUp { [weak self] line in self?.log.append(line) })
    }

    func journalPath(_ key: String) -> String { "\(state.journal)/\(key).json" }
    func statePath(_ key: String) -> String { "\(state.targets)/\(key).json" }

    func loadState(_ key: String, _ target: String) -> TargetState {
        TargetState.load(statePath(key), target: target, state: state)
    }

    func saveState(_ targetState: TargetState, _ key: String) throws(Durable.Failure) {
        try targetState.save(statePath(key), state: state, in: folders)
    }

    /// What a change to a target holds: this state folder's lock on its journal and, while the
    /// target exists, the lock on the file itself (nil for a target not yet created).
    struct Held {
        let journal: JournalLock
        var file: TargetLock?
        let key: String
    }

    /// Takes the target's locks and finishes or rolls back anything a crash left in its journal.
    func lock(_ target: String) throws(EngineError) -> Held {
        try refuseIncoherent((target as NSString).deletingLastPathComponent)
        let key = state.key(for: target)
        let journal: JournalLock
        do { journal = try JournalLock("\(state.locks)/\(key).lock", in: folders) } catch { throw .writing(error) }
        adoptLegacyFiles(of: target, as: key)
        var held = Held(journal: journal, file: try lockFile(target), key: key)
        try recover(key)
        // Recovery may have removed a half-made target, or put another file in its place.
        if held.file?.isStillAtPath != true { try held.relockFile(self, target) }
        return held
    }

    /// The lock on the target file itself, shared with every process whatever its state folder;
    /// nil when there is no file yet. Waits for whoever holds it.
    func lockFile(_ target: String) throws(EngineError) -> TargetLock? {
        do {
            return try TargetLock(path: target, open: { [folders] flags in try folders.open(target, flags: flags) },
                                  status: { [folders] in folders.status(target) })
        } catch let failure as Durable.Failure {
            if failure.code == ENOENT { return nil }
            throw .writing(failure)
        } catch let failure as TargetLock.Failure {
            switch failure {
            case .notRegular: throw .unreadable(target: target, reason: "not a regular file; only regular files are written")
            case .system(let step, let path, let code): throw .writing(Durable.Failure(step: step, path: path, code: code))
            case .keepsBeingReplaced: throw .busy(target: target, reason: "\(failure)")
            }
        } catch {
            throw .unreadable(target: target, reason: "\(error)")
        }
    }

    /// A state folder written before targets were named by their path inside the library keyed
    /// them by their absolute path: their journal record and state move to the new key, once.
    private func adoptLegacyFiles(of target: String, as key: String) {
        let legacy = StateDirectory.key(for: target)
        guard legacy != key else { return }
        for (old, new) in [(journalPath(legacy), journalPath(key)), (statePath(legacy), statePath(key))]
        where folders.exists(old) && !folders.exists(new) {
            if (try? folders.renameOver(old, new)) != nil { log.append("\(target): its state files renamed to its name in the library") }
        }
    }

    /// Recovers every target with a journal record: run at start by the daemon and every command.
    public func recoverAll() throws(EngineError) {
        let records = (try? FileManager.default.contentsOfDirectory(atPath: state.journal)) ?? []
        for name in records where name.hasSuffix(".json") {
            guard let record = readJournal(String(name.dropLast(5))) else { continue }
            _ = try lock(record.target)
        }
    }

    /// Runs `body` with the target's tail, holding its lock, after any crash left in its journal is
    /// recovered: the file stays as it is meanwhile (no revision is half-written). `body` must not
    /// write, nor call another method of the store on the same target (the lock is not re-entrant).
    public func whileLocked<T>(_ target: String, _ body: (PDFTailReader) throws -> T) throws -> T {
        let held = try self.lock(target)
        defer { withExtendedLifetime(held) {} }
        let reader: PDFTailReader
        do { reader = try PDFTailReader(source: held.source(target), decoder: decoder) } catch {
            throw EngineError.unreadable(target: target, reason: "\(error)")
        }
        return try body(reader)
    }

    /// The target's tail, read after any crash left in its journal is recovered.
    public func reader(_ target: String) throws -> PDFTailReader {
        try whileLocked(target) { $0 }
    }

    func readJournal(_ key: String) -> JournalRecord? {
        guard let data = FileManager.default.contents(atPath: journalPath(key)) else { return nil }
        return (try? JSONDecoder().decode(JournalRecord.self, from: data))?.relocated(state.path(named:))
    }

    func writeJournal(_ record: JournalRecord, _ key: String) throws(EngineError) {
        // A record still there after recovery is a finished change whose event is not queued yet
        // (the outbox could not be written, or this process has none): replacing it would lose
        // that event, so the new change waits, as for any other write that cannot be made now.
        if readJournal(key) != nil {
            throw .writing(Durable.Failure(step: "queue the last revision's event for", path: record.target, code: EAGAIN))
        }
        // Encoding plain Codable structs cannot fail.
        do { try folders.replace(journalPath(key), with: try! JSONEncoder().encode(record.relocated(state.name(of:)))) } catch {
            throw .writing(error)
        }
    }

    /// `durable: false` once the state already says the change is there: a journal record that a
    /// power cut brings back is then found finished by `recover`, which clears it again. (One fsync
    /// fewer for every revision.)
    func clearJournal(_ key: String, durable: Bool = true) throws(EngineError) {
        do { try folders.remove(journalPath(key), durable: durable) } catch { throw .writing(error) }
    }

    /// Brings a target back to a whole revision after a crash: forward when the state shows the
    /// change completed, else back to where it started.
    func recover(_ key: String) throws(EngineError) {
        guard let record = readJournal(key) else { return }
        let target = record.target
        var targetState = loadState(key, target)
        let length = fileLength(target)
        do {
            switch record.kind {
            case .append, .create:
                // Finished: the state names the revision this record began, and the file still holds
                // it (another program may have appended since, if its event waited). Never cut then.
                let written = targetState.lastWrite.flatMap { last in
                    last.base == record.oldLength && (length ?? 0) >= last.end
                        && (try? TargetState.Span.read(target, base: last.base, end: last.end)) == last ? last : nil
                }
                if record.kind == .create {
                    // The new file stays under its temporary name until the state counts it: the
                    // file at the target's path is this one's only if it has the same bytes.
                    let ours = record.temporary.map { isCopy(target, of: $0) } ?? false
                    if let temporary = record.temporary { try folders.remove(temporary) }
                    if written == nil, ours {
                        try folders.remove(target)
                        log.append("\(target): removed a new file whose first revision did not finish")
                    } else if written == nil, length != nil {
                        log.append("\(target): made by another process meanwhile; left as it is")
                    }
                }
                if let written {
                    // Perhaps not yet announced: its event again (queued once, by its key).
                    guard announceFinished(record, end: written.end) else { return }
                } else if record.kind == .append, let counted = targetState.lastWrite, counted.base == record.oldLength,
                          counted.end > counted.base {
                    // Counted (the state names it), but the file no longer holds it: another program
                    // saved the file anew since. It went in; nothing is cut, and its event, kept
                    // with the state, goes out if the crash came before it did.
                    log.append("\(target): another program saved it anew since its last revision was counted; left as it is")
                    guard announceCounted(record, targetState) else { return }
                } else if record.kind == .append, let length, length > record.oldLength {
                    // Only this revision's own bytes are cut: never a file another program saved
                    // over it, nor what another process appended after it.
                    if let foreign = foreignAfter(record, target, length) {
                        log.append("\(target): \(foreign) since an unfinished revision began; left as it is")
                    } else {
                        try folders.truncate(target, to: record.oldLength)
                        log.append("\(target): rolled back an unfinished revision (\(length - record.oldLength) bytes)")
                    }
                }
            case .undo:
                let done = targetState.redo.last.map { $0.span.base == record.newLength && $0.span.end == record.oldLength } ?? false
                if !done, length == record.newLength, let tailFile = record.tailFile, let newLength = record.newLength {
                    // Cut, but not yet remembered: finish the undo, since the tail is saved.
                    targetState.redo.append(TargetState.Undone(
                        span: try TargetState.Span.read(tailFile, base: 0, end: record.oldLength - newLength).rebased(to: newLength),
                        tailFile: tailFile))
                    targetState.lastWrite = try previousSpan(target, end: newLength)
                    targetState.inputs = (targetState.inputs ?? []).subtracting(record.inputs ?? [])
                    targetState.add(claim: record.claim)
                    try saveState(targetState, key)
                    log.append("\(target): finished an interrupted undo")
                }
                let undone = done || fileLength(target) == record.newLength
                if undone, !announceUndo(record) { return }
            case .rewrite:
                if try recoverReplace(record, key) { return }
            }
            try clearJournal(key)
        } catch {
            throw .from(error, target: target)
        }
    }

    /// Why the bytes after an unfinished append's start are not (only) its own, or nil when they
    /// are. Its own: the file still begins with the bytes it had (`before`), what follows begins
    /// with the marker the append wrote first (or the zeros a power cut can leave), and the file
    /// either ends torn or ends with that same revision, complete but not yet counted.
    func foreignAfter(_ record: JournalRecord, _ target: String, _ length: Int) -> String? {
        if let before = record.before, (try? TargetState.Span.read(target, base: 0, end: record.oldLength)) != before {
            return "another program saved it"
        }
        guard let marker = record.marker else { return nil }
        let count = min(marker.utf8.count + 3, length - record.oldLength)
        guard let found = try? PDFFileSource(path: target).read(offset: record.oldLength, count: count),
              Self.beginsWithMarker(found, marker) || found.allSatisfy({ $0 == 0 }) else {
            return "another program appended to it"
        }
        // A whole revision after the start that is not this one: another process's. The tail a
        // reader finds may also be the old one, when the torn bytes are fewer than the 2 KB it looks
        // back through: then nothing whole follows the start, and the bytes are this append's.
        if let reader = try? PDFTailReader(path: target, decoder: decoder),
           reader.tail.startxref + reader.tail.headerOffset >= record.oldLength,
           RevisionRecord(trailer: reader.tail.trailer)?.base != record.oldLength {
            return "another process appended after it"
        }
        return nil
    }

    /// `path` and `original` both exist with the same bytes (the length and the last 64 KiB).
    func isCopy(_ path: String, of original: String) -> Bool {
        guard let length = fileLength(original), fileLength(path) == length,
              let mine = try? TargetState.Span.read(original, base: 0, end: length) else { return false }
        return (try? TargetState.Span.read(path, base: 0, end: length)) == mine
    }

    func fileLength(_ path: String) -> Int? {
        (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.intValue
    }

    /// The span of the revision that ends at `end`, if PDFTrapper wrote it (its trailer says where it began).
    func previousSpan(_ target: String, end: Int) throws -> TargetState.Span? {
        guard end > 0, let reader = try? PDFTailReader(source: PDFPrefixSource(PDFFileSource(path: target), length: end),
                                                       decoder: decoder),
              let record = RevisionRecord(trailer: reader.tail.trailer) else { return nil }
        return try TargetState.Span.read(target, base: record.base, end: end)
    }
}

extension TargetStore.Held {
    /// Takes the target's file lock again, on whatever file is at its path now. The old lock goes
    /// first: when it was on that same file (a stale view said it was replaced), taking the new
    /// one while holding it would wait on ourselves for ever. The journal lock, held throughout,
    /// keeps every other PDFTrapper process out meanwhile.
    mutating func relockFile(_ store: TargetStore, _ target: String) throws(EngineError) {
        file = nil
        file = try store.lockFile(target)
    }

    /// The target's bytes for reading: the locked file's, whatever is at the path meanwhile.
    func source(_ target: String) throws -> PDFFileSource {
        guard let file else { return try PDFFileSource(path: target) }
        return try PDFFileSource(descriptor: file.openForReading(), path: target)
    }
}

extension TargetState.Span {
    func rebased(to base: Int) -> TargetState.Span {
        TargetState.Span(base: base, end: base + (end - self.base), sha256: sha256)
    }
}
