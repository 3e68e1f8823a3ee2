import Foundation
import TrapperCore

/// Queues OCR of the pages a revision asks to have read (a capture whose plan asks for OCR, a page
/// cut again that had a text layer). A queue that cannot be written loses only the text layer,
/// never a page: said in the log, and the revision stands.
/// The request goes into the state folder of the store that made the revision.
public struct OCRFollowUp: RevisionSubscriber {
    let log: (String) -> Void

    public init(log: @escaping (String) -> Void) { self.log = log }

    public func revisionCommitted(_ event: RevisionCommitted) {
        guard let state = event.state, !event.toRead.isEmpty else { return }
        // One request per set of languages, the pages in the revision's order.
        var groups: [(languages: [String], pages: [PDFReference])] = []
        for item in event.toRead where !item.languages.isEmpty {
            if let index = groups.firstIndex(where: { $0.languages == item.languages }) {
                groups[index].pages.append(item.page)
            } else {
                groups.append((item.languages, [item.page]))
            }
        }
        for group in groups {
            do {
                try OCRQueue(state: state).enqueue(target: event.target, pages: group.pages, languages: group.languages)
            } catch {
                log("\(event.target): OCR could not be queued: \(error)")
            }
        }
    }
}

/// Whoever shows the library live (the workspace): told of every revision, whatever made it, and
/// of every change of the daemon's status. It must return at once; what it does with the news is
/// its own affair.
public protocol LiveFeed: AnyObject, Sendable {
    func revisionLanded(target: String, end: Int, operation: String)
    func statusChanged()
}

/// The live view's subscription: every revision a feed tells goes on to the view showing the
/// library (the workspace). The view is replaced when a reload restarts the workspace.
public final class LiveFollowUp: RevisionSubscriber, @unchecked Sendable {
    private let lock = NSLock()
    private var view: (any LiveFeed)?

    /// Subscribes to `feed`, for as long as the process lives.
    public init(_ feed: RevisionFeed) {
        feed.subscribe(self)
    }

    /// Shows every revision on `view` (instead of any view before).
    public func show(_ view: any LiveFeed) {
        lock.withLock { self.view = view }
    }

    /// Nothing shows the library any more.
    public func stop() {
        lock.withLock { view = nil }
    }

    public func revisionCommitted(_ event: RevisionCommitted) {
        lock.withLock { view }?.revisionLanded(target: event.target, end: event.end, operation: event.operation)
    }
}

/// What follows the library whoever serves it: a `LibraryWatch`, which adds to the feed the
/// revisions other processes make, and the search indexer, which hears every revision the feed
/// tells. Started by the daemon and by `pdftrapper serve`, and started anew when a reload moves the
/// library or the state folder.
public final class LibraryFollowers: @unchecked Sendable {
    public let indexer: LibraryIndexer
    private let watch: LibraryWatch?

    public init(_ config: Config, feed: RevisionFeed, log: @escaping @Sendable (LogLevel, String) -> Void) {
        indexer = LibraryIndexer(config: config, log: log)
        feed.subscribe(indexer)
        indexer.start()
        watch = LibraryWatch.start(root: config.library.root, feed: feed) { log(.warning, $0) }
    }

    /// Whether `fresh` follows another library, or keeps its index elsewhere.
    public func differs(_ fresh: Config) -> Bool {
        fresh.library.root != indexer.root || LibraryIndexer.indexPath(fresh) != indexer.indexPath
    }

    public func stop() {
        watch?.stop()
        indexer.stop()
    }
}

/// What serves beside the daemon's loop (the workspace): it hears of every revision and status
/// change, and is stopped before the daemon stops.
public protocol Companion: LiveFeed {
    func stop()
}

/// Starts the companion with the daemon's config, edit workers and log, once the daemon is set up.
public typealias CompanionStarter = (Config, EditWorkers, any EventLog) throws -> (any Companion)?
