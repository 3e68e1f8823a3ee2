import Foundation
import TrapperCore

/// The one publish: every change this store makes (commit, undo, redo, a full rewrite) is told to
/// `revisions` once, after it is durable and its event is in the outbox. Each runs inside
/// `RevisionFeed.changing`, so that `LibraryWatch`, which sees the file change first, leaves the
/// telling to the store.
extension TargetStore {
    /// Runs `body`, a change of `target`, and tells the feed of the revision it returns.
    func publishing<T, Failure: Error>(_ target: String, _ body: () throws(Failure) -> T, told: (T) -> RevisionCommitted)
        throws(Failure) -> T
    {
        try revisions.changing(target) { () throws(Failure) -> T in
            let result = try body()
            var event = told(result)
            event.state = state
            revisions.publish(event)
            return result
        }
    }

    /// The revision of a commit: `created` for a new file, else what its origin or record says.
    static func told(_ committed: Committed, origin: RevisionOrigin?, reading: ReadingList?) -> RevisionCommitted {
        let record = committed.record
        return RevisionCommitted(target: committed.target, base: committed.base, end: committed.end,
                                 operation: committed.created ? "created" : origin?.madeBy ?? record.operation.rawValue,
                                 position: record.position, pagesAdded: record.pagesAdded, note: record.note, toRead: reading?.pages ?? [],
                                 inputs: record.inputs, rule: origin?.rule, date: record.date)
    }
}

/// The pages a revision asks to have read by OCR once it stands, noted while it is built (when its
/// page objects are known), and told with it.
public final class ReadingList {
    public private(set) var pages: [PageToRead] = []

    public init() {}

    public func add(_ pages: [PDFReference], languages: [String]) {
        guard !languages.isEmpty else { return }
        self.pages += pages.map { PageToRead($0, languages: languages) }
    }
}
