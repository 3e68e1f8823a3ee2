import Foundation
import Glibc
import PDFAccess
import Synchronization
import System
import TrapperCore

/// Revisions other processes make in the library (`pdftrapper ingest`, `apply`, `undo`, an edit
/// worker, another program saving a PDF), found through inotify (`FileChanges`) and told to a
/// `RevisionFeed` as made `elsewhere`. The feed leaves out those a store of this process is making
/// or has told, so each revision is told once.
///
/// inotify sees only what this host's kernel writes. On a shared mount (GlusterFS, NFS, SMB) another
/// host's writes come through the network file system unseen, so there the library is also looked
/// over every `sweepSeconds`, each document's length compared with the last seen.
public final class LibraryWatch: @unchecked Sendable {
    public static let sweepSeconds = 10.0

    private let root: String
    private let feed: RevisionFeed
    private let stopping = Atomic<Bool>(false)
    private let log: @Sendable (String) -> Void

    /// Starts watching `root` on a thread of its own; nil, said in `log`, when inotify cannot be had
    /// (too many watches: `fs.inotify.max_user_watches`).
    public static func start(root: String, feed: RevisionFeed, log: @escaping @Sendable (String) -> Void) -> LibraryWatch? {
        let changes: FileChanges
        do {
            changes = try FileChanges(root: root, skipFolder: { (($0 as NSString).lastPathComponent).hasPrefix(".") })
        } catch {
            log("revisions other processes make in \(root) are not seen live: \(error)")
            return nil
        }
        let watch = LibraryWatch(root: root, feed: feed, log: log)
        let sweeps = SharedMount.containing(root)?.isShared == true
        let thread = Thread { watch.run(changes, sweeps: sweeps) }
        thread.name = "pdftrapper-library-watch"
        thread.start()
        return watch
    }

    private init(root: String, feed: RevisionFeed, log: @escaping @Sendable (String) -> Void) {
        self.root = root
        self.feed = feed
        self.log = log
    }

    /// Ends the watch within half a second.
    public func stop() { stopping.store(true, ordering: .releasing) }

    /// How long a change another process has under way (its journal record still there) is waited
    /// for before its file is read anyway (a record a crash left stays until that target is next locked).
    static let journalPatience = 10.0

    private func run(_ changes: FileChanges, sweeps: Bool) {
        // Lengths last seen, for the sweep: what the library holds when the watch begins is not told.
        var seen = sweeps ? lengths() : [:]
        var lastSweep = Date()
        // Files whose change another process is still making, and since when.
        var deferred: [String: Date] = [:]
        while !stopping.load(ordering: .acquiring) {
            var paths = Array(deferred.keys)
            for change in changes.next(waiting: deferred.isEmpty ? 0.5 : 0.05) {
                switch change {
                case .finished(let path): paths.append(path)
                case .overflowed: paths += lengths().keys
                }
            }
            if sweeps, Date().timeIntervalSince(lastSweep) >= Self.sweepSeconds {
                lastSweep = Date()
                let now = lengths()
                paths += now.filter { seen[$0.key] != $0.value }.keys
                seen = now
            }
            var told: Set<String> = []
            for path in paths where Self.isDocument(path, below: root) && told.insert(path).inserted {
                // Read once the change is whole: its state saved and its journal record gone.
                if isBeingChanged(path), Date().timeIntervalSince(deferred[path] ?? Date()) < Self.journalPatience {
                    if deferred[path] == nil { deferred[path] = Date() }
                    continue
                }
                deferred[path] = nil
                let moves = feed.moves(path)
                if let found = found(path) {
                    if sweeps { seen[path] = found.end }
                    feed.publish(found, readAt: moves)
                }
            }
        }
    }

    /// A PDF's name, not hidden, in no hidden folder below the library (the state folder, temporaries).
    static func isDocument(_ path: String, below root: String) -> Bool {
        guard path.hasPrefix(root + "/"), path.lowercased().hasSuffix(".pdf") else { return false }
        return !path.dropFirst(root.count + 1).split(separator: "/").contains { $0.hasPrefix(".") }
    }

    /// The revision the file now ends with: `undo` when it is shorter than last told and ends with a
    /// revision of ours (or the state keeps what was cut for redo), else what its last trailer says
    /// made it, or `changed` when another program wrote it last; nil while it does not end
    /// as a whole PDF does (another program still writing it).
    func found(_ path: String) -> RevisionCommitted? {
        guard let source = try? PDFFileSource(path: path), source.length > 0, Self.endsWithEOF(source) else { return nil }
        let end = source.length
        let record = (try? PDFTailReader(source: source, decoder: FlateStreamDecoder())).flatMap { RevisionRecord(trailer: $0.tail.trailer) }
        let endsWithOurs = record.map { $0.base < end } ?? false
        var operation = "changed"
        if let told = feed.lastTold(path), end < told, endsWithOurs || wasUndone(path, to: end) {
            operation = "undo"
        } else if let record, endsWithOurs {
            operation = record.base == 0 && record.operation == .ingest ? "created" : record.operation.rawValue
        }
        return RevisionCommitted(target: path, base: record?.base ?? 0, end: end, operation: operation, elsewhere: true,
                                 pagesAdded: record?.pagesAdded ?? 0, note: record?.note, inputs: record?.inputs ?? [],
                                 date: record?.date ?? Date())
    }

    /// A store (of any process) has a change of `path` under way: its journal record in the
    /// library's state folder is there from before the file is touched until the change and its
    /// state are durable.
    private func isBeingChanged(_ path: String) -> Bool {
        let state = StateDirectory(path: root + "/" + StateDirectory.libraryFolderName)
        return access(state.journal + "/" + state.key(for: path) + ".json", F_OK) == 0
    }

    /// Cut back by an undo to `end` though it now ends with another program's revision: what the
    /// library's state keeps for redo begins there.
    private func wasUndone(_ path: String, to end: Int) -> Bool {
        let state = StateDirectory(path: root + "/" + StateDirectory.libraryFolderName)
        let kept = TargetState.load(state.targets + "/" + state.key(for: path) + ".json", target: path, state: state)
        return kept.redo.last?.span.base == end
    }

    /// "%%EOF" in the last kilobyte, where every whole PDF has it.
    private static func endsWithEOF(_ source: PDFFileSource) -> Bool {
        let count = min(1024, source.length)
        guard let tail = try? source.read(offset: source.length - count, count: count) else { return false }
        let marker = Array("%%EOF".utf8)
        return tail.count >= marker.count && (0...(tail.count - marker.count)).contains { Array(tail[$0..<($0 + marker.count)]) == marker }
    }

    /// Every document below the library with its length.
    private func lengths() -> [String: Int] {
        Dictionary(uniqueKeysWithValues: LibraryDocuments.list(root).map { (root + "/" + $0.key, Int($0.value.st_size)) })
    }
}
