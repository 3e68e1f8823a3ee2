import Foundation
import TrapperCore

/// Each change's event goes to the outbox after the change is durable and before its journal
/// record goes: a crash in between leaves the record, and recovery, finding the change finished,
/// queues the event then (made from the trailer and the journal, so with the same bytes and key).
extension TargetStore {
    /// Queues the event of `record`, which ends at `end`; false, said in the log, when the outbox
    /// cannot be written: the journal record then stays, and the next lock of the target tries again.
    func announce(_ journal: JournalRecord, _ record: RevisionRecord, end: Int) -> Bool {
        guard let outbox else { return true }
        let origin = journal.origin ?? RevisionOrigin(madeBy: record.operation.rawValue)
        let event = OutboundEvent.revision(target: journal.target, libraryRoot: outbox.libraryRoot, record: record, end: end,
                                           origin: origin, time: journal.started, host: outbox.host)
        return queue(event, outbox)
    }

    /// After a crash: the event of the revision the journal record describes, which ends at `end`.
    func announceFinished(_ journal: JournalRecord, end: Int) throws(EngineError) {
        guard outbox != nil else { return }
        guard let reader = try? PDFTailReader(path: journal.target, decoder: decoder),
              let record = RevisionRecord(trailer: reader.tail.trailer) else { return }
        guard announce(journal, record, end: end) else { throw .writing(outboxFailure) }
    }

    /// An undo's event, made before the cut and kept in its journal record.
    func announceUndo(_ journal: JournalRecord) throws(EngineError) {
        guard let outbox, let body = journal.event, let event = try? OutboundEvent(body: Array(body.utf8)) else { return }
        guard queue(event, outbox) else { throw .writing(outboxFailure) }
    }

    private var outboxFailure: Durable.Failure {
        Durable.Failure(step: "queue an event in", path: outbox?.folder ?? "", code: EIO)
    }

    private func queue(_ event: OutboundEvent, _ outbox: EventOutbox) -> Bool {
        do {
            try outbox.emit(event)
            return true
        } catch {
            log.append("\(event.targetPath ?? ""): its \(event.madeBy ?? "revision") event could not be queued yet: \(error)")
            return false
        }
    }

    /// How many revisions the file has up to `reader`'s end: the last one's number when it is
    /// PDFTrapper's and says it, else counted along the file (once, for a file another program wrote).
    func revisionCount(_ reader: PDFTailReader, _ target: String) throws -> Int {
        let source = PDFPrefixSource(try PDFFileSource(path: target), length: reader.tail.fileLength)
        if let record = RevisionRecord(trailer: reader.tail.trailer), let number = record.number,
           try RevisionHistory.isRevision(record, trailer: reader.tail.trailer, end: reader.tail.fileLength, in: source) {
            return number
        }
        return try RevisionHistory.read(source, decoder: decoder).count
    }
}

extension TargetStore {
    /// A compaction's event: the file rewritten whole, one revision now. Queued after the rewrite
    /// (which keeps no journal: qpdf writes a new file and renames it over the old).
    func announceRewrite(_ target: String, length: Int) {
        guard let outbox else { return }
        let record = RevisionRecord(operation: .edit, date: Date(), base: 0, pagesAdded: 0, inputs: [], note: nil)
        var numbered = record
        numbered.number = 1
        let event = OutboundEvent.revision(target: target, libraryRoot: outbox.libraryRoot, record: numbered, end: length,
                                           origin: RevisionOrigin(madeBy: "compact"), time: record.date, host: outbox.host)
        _ = queue(event, outbox)
    }
}
