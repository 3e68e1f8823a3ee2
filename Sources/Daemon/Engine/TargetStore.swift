import Foundation
import TrapperCore

/// Every change to a target PDF goes through here: appends and new files (`commit`), `undo`,
/// `redo`, and the recovery of whatever a crash left half-done. Each change takes the target's lock,
/// journals the target's length first, and removes the journal record only once the change and the
/// state that describes it are durable.
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

    public init(state: StateDirectory, decoder: any PDFStreamDecoding, folders: ConfinedFolders? = nil) throws(EngineError) {
        self.state = state
        self.decoder = decoder
        do throws(Durable.Failure) {
            if let folders { self.folders = folders } else { self.folders = try .anywhere() }
            try state.prepare(in: self.folders)
        } catch { throw .writing(error) }
    }

    func journalPath(_ key: String) -> String { "\(state.journal)/\(key).json" }
    func statePath(_ key: String) -> String { "\(state.targets)/\(key).json" }

    /// Takes the target's lock and finishes or rolls back anything a crash left in its journal.
    func lock(_ target: String) throws(EngineError) -> (TargetLock, String) {
        let key = StateDirectory.key(for: target)
        let lock: TargetLock
        do { lock = try TargetLock("\(state.locks)/\(key).lock", in: folders) } catch { throw .writing(error) }
        try recover(key)
        return (lock, key)
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
        let (lock, _) = try self.lock(target)
        defer { withExtendedLifetime(lock) {} }
        let reader: PDFTailReader
        do { reader = try PDFTailReader(path: target, decoder: decoder) } catch {
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
        return try? JSONDecoder().decode(JournalRecord.self, from: data)
    }

    func writeJournal(_ record: JournalRecord, _ key: String) throws(EngineError) {
        // A record still there after recovery is a finished change whose event is not queued yet
        // (the outbox could not be written, or this process has none): replacing it would lose
        // that event, so the new change waits, as for any other write that cannot be made now.
        if readJournal(key) != nil {
            throw .writing(Durable.Failure(step: "queue the last revision's event for", path: record.target, code: EAGAIN))
        }
        // Encoding plain Codable structs cannot fail.
        do { try folders.replace(journalPath(key), with: try! JSONEncoder().encode(record)) } catch { throw .writing(error) }
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
        var targetState = TargetState.load(statePath(key), target: target)
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
                if record.kind == .create, let temporary = record.temporary { try folders.remove(temporary) }
                if let written {
                    // Perhaps not yet announced: its event again (queued once, by its key).
                    guard announceFinished(record, end: written.end) else { return }
                } else if record.kind == .create, length != nil {
                    try folders.remove(target)
                    log.append("\(target): removed a new file whose first revision did not finish")
                } else if let length, length > record.oldLength {
                    // Only the file the revision was appended to: one another program saved over
                    // it meanwhile (a new file renamed into place) has other bytes there, and stays.
                    if let before = record.before, (try? TargetState.Span.read(target, base: 0, end: record.oldLength)) != before {
                        log.append("\(target): another program changed it since an unfinished revision began; left as it is")
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
                    try targetState.save(statePath(key), in: folders)
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

extension TargetState.Span {
    func rebased(to base: Int) -> TargetState.Span {
        TargetState.Span(base: base, end: base + (end - self.base), sha256: sha256)
    }
}
