import Foundation
import PDFAccess
import TrapperCore

/// What the library list shows of a document beyond what its folder says (name, size, date): its
/// pages, its end and its last revision. Those are in the PDF, and opening every PDF for every
/// listing took 8-11 s past 64 documents; so each is read once per state of the file (device,
/// inode, modification time, size), on a thread of its own, and only for the documents a listing
/// shows. A listing never waits: what is not read yet is listed without it (`pending`), and
/// `filled` is called once the queue has run dry, so that open pages ask again.
final class LibrarySummaries: @unchecked Sendable {
    struct Summary: Sendable {
        var pages: Int
        var end: Int
        var last: RevisionHistory.Entry?
    }

    /// What is known of a document in one state: its summary, or that it could not be read (it
    /// is not tried again until the file changes).
    enum Known: Sendable {
        case read(Summary)
        case unreadable
    }

    private struct Waiting {
        var relative: String
        var path: String
        var identity: String
    }

    private let condition = NSCondition()
    /// By path below the library: the identity it was read at, and what was found.
    private var known: [String: (identity: String, value: Known)] = [:]
    /// Newest request last, taken from the end: the page the person looks at now comes first.
    private var waiting: [Waiting] = []
    private var queued: Set<String> = []
    private var stopping = false
    /// The reading thread, started by the first listing.
    private var started = false
    private let filled: @Sendable () -> Void

    init(filled: @escaping @Sendable () -> Void) {
        self.filled = filled
    }

    func stop() {
        condition.withLock {
            stopping = true
            condition.broadcast()
        }
    }

    /// What is known of each listed document (`path` the file, `relative` its name below the
    /// library); those not known in their present state are queued, in the listing's order, and
    /// get nil.
    func lookup(_ listed: [(relative: String, path: String, identity: String)]) -> [Known?] {
        condition.withLock {
            var answers: [Known?] = []
            var asked: [Waiting] = []
            for item in listed {
                if let entry = known[item.relative], entry.identity == item.identity {
                    answers.append(entry.value)
                    continue
                }
                answers.append(nil)
                if queued.insert(item.relative + "\u{0}" + item.identity).inserted {
                    asked.append(Waiting(relative: item.relative, path: item.path, identity: item.identity))
                }
            }
            waiting += asked.reversed()
            if !asked.isEmpty { condition.signal() }
            if !started, !stopping {
                started = true
                let thread = Thread { [weak self] in self?.work() }
                thread.name = "pdftrapper-web-library"
                thread.start()
            }
            return answers
        }
    }

    /// Forgets documents no longer in the library (the list of those there now), once more are
    /// known than there are.
    func keep(only present: [String]) {
        condition.withLock {
            guard known.count > present.count else { return }
            let there = Set(present)
            known = known.filter { there.contains($0.key) }
        }
    }

    private func work() {
        while let next = take() {
            let value = Self.read(next.path)
            // A file that changed while it was read is left for the next listing to queue again.
            let unchanged = fileIdentity(next.path) == next.identity
            let idle = condition.withLock {
                queued.remove(next.relative + "\u{0}" + next.identity)
                if unchanged { known[next.relative] = (next.identity, value) }
                return waiting.isEmpty
            }
            if idle { filled() }
        }
    }

    /// The next document to read, waiting for one; nil once stopping.
    private func take() -> Waiting? {
        condition.withLock {
            while waiting.isEmpty, !stopping { condition.wait() }
            return stopping ? nil : waiting.removeLast()
        }
    }

    /// The page count and the history's last revision, read from the file at `path`.
    static func read(_ path: String) -> Known {
        do {
            let file = try PDFFileSource(path: path)
            let editor = try PDFPageEditor(reader: PDFTailReader(source: file, decoder: FlateStreamDecoder()))
            let history = (try? RevisionHistory.read(file, decoder: FlateStreamDecoder())) ?? []
            return .read(Summary(pages: editor.pageCount, end: file.length, last: history.last))
        } catch {
            return .unreadable
        }
    }
}
