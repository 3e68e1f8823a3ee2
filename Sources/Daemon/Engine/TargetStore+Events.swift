import Foundation
import TrapperCore

/// Each change's event goes to the outbox after the change is durable and before its journal
/// record goes: a crash in between leaves the record, and recovery, finding the change finished,
/// queues the event then (made from the trailer and the journal, so with the same bytes and key).
extension TargetStore {
    /// Queues the event of `record`, which ends at `end`; false, said in the log, when the outbox
    /// cannot be written: the journal record then stays, and the next lock of the target tries again.
    func announce(_ journal: JournalRecord, _ record: RevisionRecord, end: Int, recovering: Bool = false) -> Bool {
        guard let outbox, let event = event(journal, record, end: end) else { return true }
        return queue(event, outbox, recovering: recovering)
    }

    /// The revision's event, when it is to be announced.
    func event(_ journal: JournalRecord, _ record: RevisionRecord, end: Int) -> OutboundEvent? {
        guard let outbox, journal.announce == true else { return nil }
        let origin = journal.origin ?? RevisionOrigin(madeBy: record.operation.rawValue)
        return OutboundEvent.revision(target: journal.target, libraryRoot: outbox.libraryRoot, record: record, end: end,
                                      origin: origin, time: journal.started, host: journal.host ?? outbox.host)
    }

    /// After a crash: the event of a revision the state counts but the file no longer holds
    /// (another program saved the file anew since): the state kept it, made when it was counted.
    func announceCounted(_ journal: JournalRecord, _ targetState: TargetState) -> Bool {
        guard journal.announce == true, let body = targetState.lastEvent else { return true }
        guard let outbox, let event = try? OutboundEvent(body: Array(body.utf8)) else {
            log.append("\(journal.target): the event of its last revision waits for a process with the config's outbox "
                       + "(pdftrapper recover --config FILE)")
            return false
        }
        return queue(event, outbox, recovering: true)
    }

    /// After a crash: the event of the finished revision the journal record began, which ends at
    /// `end` (read from the file as it was then). False when it cannot be queued here: the record
    /// then stays for a process that can (one with the config's outbox), and new changes to the
    /// target wait (`writeJournal`); reading the target is not held up.
    func announceFinished(_ journal: JournalRecord, end: Int) -> Bool {
        guard journal.announce == true else { return true }
        guard outbox != nil,
              let source = try? PDFPrefixSource(PDFFileSource(path: journal.target), length: end),
              let reader = try? PDFTailReader(source: source, decoder: decoder),
              let record = RevisionRecord(trailer: reader.tail.trailer) else {
            log.append("\(journal.target): the event of its last revision waits for a process with the config's outbox "
                       + "(pdftrapper recover --config FILE)")
            return false
        }
        return announce(journal, record, end: end, recovering: true)
    }

    /// An undo's event, made before the cut and kept in its journal record; false when it cannot be
    /// queued here (as for `announceFinished`).
    func announceUndo(_ journal: JournalRecord) -> Bool {
        guard let body = journal.event else { return true }
        guard let outbox, let event = try? OutboundEvent(body: Array(body.utf8)) else {
            log.append("\(journal.target): the event of an undo waits for a process with the config's outbox "
                       + "(pdftrapper recover --config FILE)")
            return false
        }
        return queue(event, outbox, recovering: true)
    }

    /// `recovering`: the event may have been queued before the crash (then it is not queued twice).
    private func queue(_ event: OutboundEvent, _ outbox: EventOutbox, recovering: Bool = false) -> Bool {
        do {
            try outbox.emit(event, once: recovering)
            return true
        } catch {
            log.append("\(event.targetPath ?? ""): its \(event.madeBy ?? "revision") event could not be queued yet: \(error)")
            return false
        }
    }

    /// A new file an edit script made (extract), announced once the script stands: its event
    /// queued, and its revision told.
    public func announceMade(_ path: String, madeBy: String) {
        guard let reader = try? PDFTailReader(path: path, decoder: decoder),
              let record = RevisionRecord(trailer: reader.tail.trailer) else { return }
        if outbox != nil {
            let journal = announcing(JournalRecord(kind: .create, target: path, oldLength: 0, origin: RevisionOrigin(madeBy: madeBy)))
            _ = announce(journal, record, end: reader.tail.fileLength)
        }
        revisions.publish(RevisionCommitted(target: path, base: 0, end: reader.tail.fileLength, operation: "created", state: state,
                                            pagesAdded: record.pagesAdded, note: record.note, inputs: record.inputs, date: record.date))
    }

    /// The record, marked to be announced when this store has subscribers.
    func announcing(_ record: JournalRecord) -> JournalRecord {
        guard let outbox else { return record }
        var record = record
        record.announce = true
        record.host = outbox.host
        return record
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
    /// A compaction's event: the file rewritten whole, one revision of `length` bytes now; made from
    /// the journal record, so that one made again after a crash is the same.
    func announceRewrite(_ journal: JournalRecord, length: Int) -> Bool {
        var record = RevisionRecord(operation: .edit, date: journal.started, base: 0, pagesAdded: 0, inputs: [])
        record.number = 1
        var compact = journal
        compact.origin = RevisionOrigin(madeBy: "compact")
        return announce(compact, record, end: length, recovering: true)
    }
}
