import Foundation
import TrapperCore

/// Said once a capture's revision is durable in its target, to whoever subscribes: the OCR queue
/// now; webhooks, hooks and the workspace's live view next. Nothing a subscriber does can undo or
/// delay the capture: it stands before anyone hears of it.
public struct RevisionCommitted: Sendable {
    public var target: String
    /// Where the revision starts and ends in the file; `end` is its identity (undo, history).
    public var base: Int
    public var end: Int
    /// It made the file (a new document); else it was appended or prepended.
    public var created: Bool { base == 0 }
    public var position: PDFPagePosition
    /// The history's note for it: what the page steps did, the document of a split, the scan.
    public var note: String?
    /// The page objects it added, in order.
    public var pages: [PDFReference]
    /// The files whose pages it holds, as the history names them.
    public var inputs: [RevisionRecord.Input]
    public var rule: String?
    /// The OCR languages the plan asks for; empty for none.
    public var ocr: [String]
    public var date: Date
}

public protocol RevisionSubscriber {
    func revisionCommitted(_ event: RevisionCommitted)
}

/// What follows a revision: every subscriber hears of it, in order.
public struct FollowUps {
    public var subscribers: [any RevisionSubscriber]

    public init(_ subscribers: [any RevisionSubscriber]) { self.subscribers = subscribers }

    /// The OCR queue of `store`'s state folder: what every way in has.
    public static func standard(_ store: TargetStore) -> FollowUps { FollowUps([OCRFollowUp(store: store)]) }

    func publish(_ event: RevisionCommitted) {
        for subscriber in subscribers { subscriber.revisionCommitted(event) }
    }
}

/// Queues OCR of the pages a capture added, when its plan asks for it. A queue that cannot be
/// written loses only the text layer, never a page: said in the store's log, and the capture stands.
public struct OCRFollowUp: RevisionSubscriber {
    let store: TargetStore

    public func revisionCommitted(_ event: RevisionCommitted) {
        guard !event.ocr.isEmpty, !event.pages.isEmpty else { return }
        do {
            try OCRQueue(state: store.state).enqueue(target: event.target, pages: event.pages, languages: event.ocr)
        } catch {
            store.log.append("\(event.target): OCR could not be queued: \(error)")
        }
    }
}

/// Whoever shows the library live (the workspace): told of every revision, whatever made it (a
/// capture, an edit, undo or redo), and of every change of the daemon's status. It must return at
/// once; what it does with the news is its own affair.
public protocol LiveFeed: AnyObject, Sendable {
    func revisionLanded(target: String, end: Int, operation: String)
    func statusChanged()
}

/// Passes each capture's revision on to the live view.
public struct LiveFollowUp: RevisionSubscriber {
    let feed: any LiveFeed

    public init(_ feed: any LiveFeed) { self.feed = feed }

    public func revisionCommitted(_ event: RevisionCommitted) {
        feed.revisionLanded(target: event.target, end: event.end, operation: event.created ? "created" : "ingest")
    }
}

extension FollowUps {
    /// The standard follow-ups, and the live view when there is one.
    public static func standard(_ store: TargetStore, live: (any LiveFeed)?) -> FollowUps {
        FollowUps(standard(store).subscribers + (live.map { [LiveFollowUp($0)] } ?? []))
    }
}

/// What serves beside the daemon's loop (the workspace): it hears of every revision and status
/// change, and is stopped before the daemon stops.
public protocol Companion: LiveFeed {
    func stop()
}

/// Starts the companion with the daemon's config, edit workers and log, once the daemon is set up.
public typealias CompanionStarter = (Config, EditWorkers, any EventLog) throws -> (any Companion)?
