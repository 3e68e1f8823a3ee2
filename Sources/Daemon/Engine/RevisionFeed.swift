import Foundation
import TrapperCore

/// A revision a target now ends with, told once to every subscriber of a `RevisionFeed`: made by
/// this process's store (a capture, an edit, OCR, undo, redo, a compaction), said after it is
/// durable; or found made by another process (`elsewhere`). Nothing a subscriber does can undo or
/// delay it: it stands before anyone hears of it.
public struct RevisionCommitted: Sendable {
    public var target: String
    /// Where the revision starts and ends in the file; `end` is the file's length now (after an
    /// undo, where the revision undone began).
    public var base: Int
    public var end: Int
    /// What made it: `created` or `ingest` (a capture), `edit`, `ocr`, `undo`, `redo`, `compact`,
    /// `repair`, `extract`; for one found, what its trailer says, `undo` when the file got shorter,
    /// `changed` when another program wrote it.
    public var operation: String
    /// It made the file (a new document).
    public var created: Bool { operation == "created" }
    /// Found made by another process (`LibraryWatch`), not by this process's store.
    public var elsewhere: Bool
    /// The state folder of the store that made it (where its OCR requests go); nil for one found.
    public var state: StateDirectory?
    public var position: PDFPagePosition
    /// How many pages it added.
    public var pagesAdded: Int
    /// The history's note for it: what the page steps did, the document of a split, the scan.
    public var note: String?
    /// The pages it asks to have read by OCR, each with its languages: a capture's new pages when
    /// its plan asks for OCR, a page cut again that had a text layer.
    public var toRead: [PageToRead]
    /// The files whose pages it holds, as the history names them.
    public var inputs: [RevisionRecord.Input]
    public var rule: String?
    public var date: Date

    public init(target: String, base: Int, end: Int, operation: String, elsewhere: Bool = false, state: StateDirectory? = nil,
                position: PDFPagePosition = .end, pagesAdded: Int = 0,
                note: String? = nil, toRead: [PageToRead] = [], inputs: [RevisionRecord.Input] = [], rule: String? = nil,
                date: Date = Date()) {
        self.target = target
        self.base = base
        self.end = end
        self.operation = operation
        self.elsewhere = elsewhere
        self.state = state
        self.position = position
        self.pagesAdded = pagesAdded
        self.note = note
        self.toRead = toRead
        self.inputs = inputs
        self.rule = rule
        self.date = date
    }
}

/// A page to be read by OCR once its revision stands, and in which languages.
public struct PageToRead: Sendable, Equatable {
    public var page: PDFReference
    public var languages: [String]

    public init(_ page: PDFReference, languages: [String]) {
        self.page = page
        self.languages = languages
    }
}

public protocol RevisionSubscriber {
    func revisionCommitted(_ event: RevisionCommitted)
}

/// The one publish of revisions in a process. Every `TargetStore` publishes each change it makes
/// here once it is durable (the daemon gives all its stores one feed); `LibraryWatch` adds those
/// other processes make. Subscribers (the OCR queue, the live view, `pdftrapper ingest`'s lines)
/// hear each revision once, in the order published, and must return at once.
///
/// A revision is told once: one found that a store of this process is still making (its change
/// under way) or that ends where the target's last told one ended is not told again; nor one read
/// before a change of this process's began or ended (the file has moved on since, and what it now
/// ends with is told by the store, or found again from that change's own writes).
public final class RevisionFeed: @unchecked Sendable {
    private let lock = NSLock()
    private var subscribers: [any RevisionSubscriber] = []
    /// Per target, where its last told revision ended.
    private var told: [String: Int] = [:]
    /// Targets this process's stores are changing now, with how many changes each.
    private var changing: [String: Int] = [:]
    /// Per target, how many times a change of this process's stores began or ended.
    private var moves: [String: Int] = [:]

    public init(_ subscribers: [any RevisionSubscriber] = []) { self.subscribers = subscribers }

    public func subscribe(_ subscriber: any RevisionSubscriber) {
        lock.withLock { subscribers.append(subscriber) }
    }

    /// Tells every subscriber of `event`, unless it was found and is already told, still being made,
    /// or read before the target last moved (`readAt`: its `moves` when the file was read).
    public func publish(_ event: RevisionCommitted, readAt: Int? = nil) {
        lock.lock()
        defer { lock.unlock() }
        if event.elsewhere, changing[event.target, default: 0] > 0 || told[event.target] == event.end
            || readAt.map({ $0 != moves[event.target, default: 0] }) == true { return }
        told[event.target] = event.end
        // Under the lock, so that every subscriber hears revisions in the order they were told.
        for subscriber in subscribers { subscriber.revisionCommitted(event) }
    }

    /// Runs a store's change of `target`: revisions of it found meanwhile are this change's own,
    /// told by the store once it stands.
    func changing<T, Failure: Error>(_ target: String, _ body: () throws(Failure) -> T) throws(Failure) -> T {
        lock.withLock {
            changing[target, default: 0] += 1
            moves[target, default: 0] += 1
        }
        defer {
            lock.withLock {
                changing[target, default: 1] -= 1
                if changing[target] == 0 { changing[target] = nil }
                moves[target, default: 0] += 1
            }
        }
        return try body()
    }

    /// How many times a change of `target` by this process's stores began or ended: read before a
    /// file is, handed to `publish` with what was found in it.
    public func moves(_ target: String) -> Int { lock.withLock { moves[target, default: 0] } }

    /// Where `target`'s last told revision ended, if one was told.
    public func lastTold(_ target: String) -> Int? { lock.withLock { told[target] } }
}
