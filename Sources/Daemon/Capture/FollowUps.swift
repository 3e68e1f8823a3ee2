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
/// library (the workspace), and while there is one, a `LibraryWatch` adds to the feed the revisions
/// other processes make. The view is replaced when a reload restarts the workspace.
public final class LiveFollowUp: RevisionSubscriber, @unchecked Sendable {
    private let feed: RevisionFeed
    private let lock = NSLock()
    private var view: (any LiveFeed)?
    private var watch: LibraryWatch?

    /// Subscribes to `feed`, for as long as the process lives.
    public init(_ feed: RevisionFeed) {
        self.feed = feed
        feed.subscribe(self)
    }

    /// Shows the library at `root` live on `view` (instead of any view before).
    public func show(_ view: any LiveFeed, library root: String, log: @escaping @Sendable (String) -> Void) {
        stop()
        let started = LibraryWatch.start(root: root, feed: feed, log: log)
        lock.withLock { (self.view, watch) = (view, started) }
    }

    /// Nothing shows the library any more: the view is told nothing, and the watch stops.
    public func stop() {
        let old = lock.withLock { () -> LibraryWatch? in
            defer { (view, watch) = (nil, nil) }
            return watch
        }
        old?.stop()
    }

    public func revisionCommitted(_ event: RevisionCommitted) {
        lock.withLock { view }?.revisionLanded(target: event.target, end: event.end, operation: event.operation)
    }
}

/// What serves beside the daemon's loop (the workspace): it hears of every revision and status
/// change, and is stopped before the daemon stops.
public protocol Companion: LiveFeed {
    func stop()
}

/// Starts the companion with the daemon's config, edit workers and log, once the daemon is set up.
public typealias CompanionStarter = (Config, EditWorkers, any EventLog) throws -> (any Companion)?
