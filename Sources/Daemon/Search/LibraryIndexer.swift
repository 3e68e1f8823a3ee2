import Foundation
import PDFAccess
import Search
import System
import TrapperCore

/// Keeps the library's search index (`LibraryIndex`, `STATE/search.sqlite`) current. Subscribed
/// to the one publish, it hears every revision (a capture, an edit, OCR, undo, redo, a compaction,
/// and those other processes made, found by the library watch) and reads the document again on a
/// thread of its own, at a lower priority than captures, so that a page is never slower to land
/// for being indexed. An append of pages reads only the new pages; anything else reads the whole
/// document as the file now stands, so an undo takes its words out with it.
///
/// The PDFs are the truth: at start (and before every command-line search) each document's file is
/// compared with what the index recorded of it (device, inode, length, time), and any that differ,
/// are new or are gone are read again or forgotten. An index that is missing, damaged or half
/// written by a killed process is made anew from the library.
public final class LibraryIndexer: RevisionSubscriber, @unchecked Sendable {
    /// What an update asks: a document to read again, and what is known of the revision.
    struct Pending {
        var path: String
        /// The revision appended pages at the end, beginning at `base`: only those need reading.
        var appendedFrom: Int?
        var rule: String?
    }

    public struct Summary: Equatable, CustomStringConvertible {
        public var documents = 0
        public var read = 0
        public var forgotten = 0
        public var failed = 0
        public var description: String {
            "\(documents) documents; \(read) read again, \(forgotten) gone\(failed > 0 ? ", \(failed) unreadable" : "")"
        }
    }

    public let root: String
    public let indexPath: String
    private let log: @Sendable (LogLevel, String) -> Void
    private let lock = NSCondition()
    private var queue: [Pending] = []
    private var stopping = false
    private var thread: Thread?
    /// Set when the thread has ended (its connection closed): a process must not exit while it
    /// is inside poppler or SQLite.
    private var finished = false
    /// Updates done since start, for tests and `status`: (revisions heard, documents read).
    private var counts = (heard: 0, done: 0)

    public static func indexPath(_ config: Config) -> String { config.daemon.stateDir + "/search.sqlite" }

    public init(config: Config, log: @escaping @Sendable (LogLevel, String) -> Void) {
        root = config.library.root
        indexPath = Self.indexPath(config)
        self.log = log
    }

    /// Starts the thread that brings the index up to date with the library and then follows the
    /// revisions it hears.
    public func start() {
        let thread = Thread { [self] in run() }
        thread.name = "pdftrapper-index"
        self.thread = thread
        thread.start()
    }

    /// Ends the thread after the document in hand (what is still queued is found again at the
    /// next start), and waits for it, 10 s at most.
    public func stop() {
        lock.withLock {
            stopping = true
            lock.broadcast()
            guard thread != nil else { return }
            let deadline = Date().addingTimeInterval(10)
            while !finished, lock.wait(until: deadline) {}
        }
    }

    private var isStopping: Bool { lock.withLock { stopping } }

    public func revisionCommitted(_ event: RevisionCommitted) {
        guard let relative = relative(event.target), lock.withLock({ !stopping }) else { return }
        let append = ["created", "ingest"].contains(event.operation) && event.position == .end && event.base > 0
        lock.withLock {
            counts.heard += 1
            queue.append(Pending(path: relative, appendedFrom: append ? event.base : nil, rule: event.rule))
            lock.signal()
        }
    }

    /// Revisions heard and documents read since start.
    public var progress: (heard: Int, done: Int) { lock.withLock { counts } }

    private func run() {
        ThreadPriority.lowerCurrent()
        // Its connection is closed when `follow` returns, before the thread says it has ended.
        follow()
        lock.withLock {
            finished = true
            lock.broadcast()
        }
    }

    private func follow() {
        let index: LibraryIndex
        do {
            index = try open()
            let summary = try catchUp(index, stop: { [unowned self] in isStopping })
            if summary.read + summary.forgotten > 0 { log(.info, "search index: \(summary)") }
        } catch {
            log(.error, "search is unavailable: \(error)")
            return
        }
        while true {
            let batch: [Pending] = lock.withLock {
                while queue.isEmpty && !stopping { lock.wait() }
                defer { queue.removeAll() }
                return stopping ? [] : queue
            }
            if batch.isEmpty { return }
            // Several revisions of one document read it once, as it now stands.
            var merged: [String: Pending] = [:]
            var order: [String] = []
            for pending in batch {
                if let earlier = merged[pending.path] {
                    // Appends in a row are one append from the first one's base; anything else, a whole read.
                    let appended = pending.appendedFrom == nil ? nil : earlier.appendedFrom
                    merged[pending.path] = Pending(path: pending.path, appendedFrom: appended, rule: pending.rule ?? earlier.rule)
                } else {
                    merged[pending.path] = pending
                    order.append(pending.path)
                }
            }
            for path in order where !isStopping {
                do {
                    try update(index, merged[path]!)
                } catch {
                    log(.warning, "search index: \(error)")
                }
                lock.withLock { counts.done += 1 }
            }
        }
    }

    /// Opens the index, saying so when a damaged one was made anew.
    /// `thorough`: SQLite's check of every page first (see `LibraryIndex.init`).
    public func open(thorough: Bool = true) throws -> LibraryIndex {
        try Durable.makeFolder((indexPath as NSString).deletingLastPathComponent)
        let index = try LibraryIndex(path: indexPath, thorough: thorough)
        if let why = index.remade { log(.warning, "search index \(indexPath) was \(why): made anew from the library") }
        return index
    }

    /// Brings `index` up to date with the library as it is now: documents new or changed since
    /// they were read are read again, those gone are forgotten.
    @discardableResult
    public func catchUp(_ index: LibraryIndex, progress: ((Int, Int) -> Void)? = nil, stop: () -> Bool = { false }) throws -> Summary {
        let known = try index.documents()
        let found = LibraryDocuments.list(root)
        var summary = Summary(documents: found.count)
        // Oldest first: a document's id, and so its pages' row ids, follow its age, which is what
        // a search that holds more pages than it ranks keeps the newest of.
        let stale = found.filter { known[$0.key]?.stamp != Self.stamp($0.value) }
            .sorted { ($0.value.st_mtim.tv_sec, $0.value.st_mtim.tv_nsec, $0.key) < ($1.value.st_mtim.tv_sec, $1.value.st_mtim.tv_nsec, $1.key) }
            .map(\.key)
        for (number, path) in stale.enumerated() {
            // Asked to stop: the rest is read at the next start.
            if stop() { return summary }
            progress?(number, stale.count)
            do {
                try update(index, Pending(path: path))
                summary.read += 1
            } catch {
                summary.failed += 1
                log(.warning, "search index: \(error)")
            }
        }
        for path in known.keys where found[path] == nil {
            try index.remove(path)
            summary.forgotten += 1
        }
        return summary
    }

    /// Reads the document at `pending.path` again (only its new pages, when that is all that changed).
    func update(_ index: LibraryIndex, _ pending: Pending) throws {
        let path = root + "/" + pending.path
        var status = stat()
        guard lstat(path, &status) == 0, status.st_mode & S_IFMT == S_IFREG else {
            try index.remove(pending.path)
            return
        }
        let stamp = Self.stamp(status)
        let length = Int(status.st_size)
        let known = try index.document(pending.path)
        if known?.stamp == stamp { return }
        let modified = Date(timeIntervalSince1970: Double(status.st_mtim.tv_sec) + Double(status.st_mtim.tv_nsec) / 1e9)
        let texts: PDFPageTexts
        do {
            texts = try PDFPageTexts(path: path, length: length)
        } catch {
            // Recorded with the reason, so that it is not tried again until the file changes.
            try index.replace(LibraryIndex.Document(path: pending.path, stamp: stamp, size: length, pages: 0, created: modified,
                                                    modified: modified, rule: pending.rule, problem: error.description), pages: [])
            throw error
        }
        // The same file as read before, grown by the pages appended: the pages before stay as read.
        var first = 0
        if let known, let base = pending.appendedFrom, known.size == base, Self.sameFile(known.stamp, stamp), texts.pageCount >= known.pages {
            first = known.pages
        }
        let pages = (first..<texts.pageCount).map { page in
            let words = texts.words(ofPage: page)
            return LibraryIndex.Page(text: words.text, notes: words.notes)
        }
        let created = known.flatMap { Self.sameFile($0.stamp, stamp) ? $0.created : nil } ?? Self.firstRevisionDate(path) ?? modified
        try index.replace(LibraryIndex.Document(path: pending.path, stamp: stamp, size: length, pages: texts.pageCount,
                                                created: created, modified: modified, rule: pending.rule),
                          pages: pages, from: first)
    }

    /// Device, inode, length and modification time: another program's save changes one of them.
    static func stamp(_ status: stat) -> String {
        "\(status.st_dev):\(status.st_ino):\(status.st_size):\(status.st_mtim.tv_sec).\(status.st_mtim.tv_nsec)"
    }

    static func sameFile(_ one: String, _ other: String) -> Bool {
        one.split(separator: ":").prefix(2) == other.split(separator: ":").prefix(2)
    }

    /// When the document's first revision of ours was made, as its history says.
    static func firstRevisionDate(_ path: String) -> Date? {
        guard let source = try? PDFFileSource(path: path),
              let history = try? RevisionHistory.read(source, decoder: FlateStreamDecoder()) else { return nil }
        return history.lazy.compactMap(\.record).first?.date
    }

    private func relative(_ target: String) -> String? {
        guard target.hasPrefix(root + "/") else { return nil }
        return String(target.dropFirst(root.count + 1))
    }
}

/// The documents of a library: its PDFs below the root, hidden folders and links left out.
enum LibraryDocuments {
    /// Each document's path below `root`, with what lstat says of it.
    static func list(_ root: String) -> [String: stat] {
        var found: [String: stat] = [:]
        guard let walker = FileManager.default.enumerator(atPath: root) else { return found }
        while let relative = walker.nextObject() as? String {
            if (relative as NSString).lastPathComponent.hasPrefix(".") {
                walker.skipDescendants()
                continue
            }
            var status = stat()
            if relative.lowercased().hasSuffix(".pdf"), lstat(root + "/" + relative, &status) == 0, status.st_mode & S_IFMT == S_IFREG {
                found[relative] = status
            }
        }
        return found
    }
}
