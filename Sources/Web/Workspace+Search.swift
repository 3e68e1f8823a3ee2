import Daemon
import Foundation
import System
import HTTPServer
import PDFAccess
import Search
import TrapperCore

/// Finding and taking out: `GET /api/search` over the library's index (kept current by the
/// daemon's or `serve`'s indexer), and `GET /api/download` of a document as it is now, as one of
/// its revisions left it (those bytes exactly: the file's beginning up to the revision's end), or
/// of some of its pages as a new PDF.
extension Workspace {
    /// `GET /api/search?q=WORDS[&path=DOC][&in=FOLDER][&after=DATE][&before=DATE][&limit=N][&offset=N]`:
    /// the pages found, best first, each with its snippet in pieces (`found` marks the words found).
    func search(_ request: HTTPRequest) -> HTTPResponse {
        guard let text = request.query("q") else { return WebJSON.error(400, "q= is needed") }
        var dates: [String: Date] = [:]
        for name in ["after", "before"] {
            guard let value = request.query(name), !value.isEmpty else { continue }
            guard let date = SearchQuery.date(value) else { return WebJSON.error(400, "\(name)=\(value) is not a date (YYYY-MM-DD)") }
            dates[name] = date
        }
        let document = request.query("path").flatMap { $0.isEmpty ? nil : $0 }
        if let document, library.resolve(document) == nil { return HTTPResponse(status: 404) }
        let query: SearchQuery
        do {
            query = try SearchQuery(text, document: document, folder: request.query("in"), after: dates["after"], before: dates["before"],
                                    limit: request.query("limit").flatMap(Int.init) ?? 50, offset: request.query("offset").flatMap(Int.init) ?? 0)
        } catch {
            return WebJSON.error(400, "\(error)")
        }
        let results: SearchResults
        do {
            results = try searchIndex.withIndex { try $0.search(query) }
        } catch {
            return WebJSON.error(503, "search is not ready: \(error)")
        }
        let hits: [[String: Any]] = results.hits.map { hit in
            ["path": hit.path, "page": hit.page, "pages": hit.pages, "modified": WebJSON.date(hit.modified),
             "snippet": hit.pieces.map { ["text": $0.text, "found": $0.found] }]
        }
        var answer: [String: Any] = ["hits": hits, "more": results.more, "literal": results.literal]
        if results.more, results.hits.count == query.limit { answer["next"] = query.offset + query.limit }
        answer["window"] = results.window
        return WebJSON.response(answer)
    }

    /// `GET /api/download?path=DOC[&end=N][&pages=LIST]`: the PDF as a file to keep. `end` picks a
    /// past revision (its bytes as it left them); `pages` (`2-4, 7`, as edit scripts write them)
    /// makes a new PDF of those pages of the document as it is now.
    func download(_ request: HTTPRequest) -> HTTPResponse {
        guard let relative = request.query("path"), let path = library.resolve(relative) else { return HTTPResponse(status: 404) }
        let name = Self.downloadName(relative)
        do {
            let current = try documents.info(path)
            if let list = request.query("pages"), !list.isEmpty {
                let selection: PageSelection
                do {
                    selection = try PageSelection(parsing: list)
                } catch {
                    return WebJSON.error(400, "pages=\(list): \(error.message)")
                }
                let bytes = try Self.pagesDocument(path, selection: selection, end: current.end)
                let stem = (name as NSString).deletingPathExtension
                return Self.attachment(.bytes(bytes), length: bytes.count, name: "\(stem) pages \(Self.pagesLabel(list)).pdf")
            }
            var end = current.end
            var label = name
            if let asked = request.query("end").flatMap(Int.init), asked != current.end {
                guard let number = current.history.firstIndex(where: { $0.end == asked }) else {
                    return WebJSON.error(404, "no revision ends at \(asked)")
                }
                end = asked
                label = (name as NSString).deletingPathExtension + " revision \(number + 1).pdf"
            }
            let stream = try FileRangeStream(path: path, length: end)
            return Self.attachment(.stream(stream), length: end, name: label)
        } catch let failure as PageSelection.ResolveError {
            return WebJSON.error(422, "\(relative): \(failure.message)")
        } catch {
            return WebJSON.error(422, "\(relative): \(error)")
        }
    }

    /// The pages of `selection` from the file's first `end` bytes, as a PDF of their own.
    static func pagesDocument(_ path: String, selection: PageSelection, end: Int) throws -> [UInt8] {
        let file = try PDFFileSource(path: path)
        let source: any PDFByteSource = end == file.length ? file : PDFPrefixSource(file, length: end)
        let editor = try PDFPageEditor(reader: PDFTailReader(source: source, decoder: FlateStreamDecoder()))
        let snapshots = try editor.snapshot(try selection.resolve(pageCount: editor.pageCount))
        var writer = try PDFUpdateWriter(base: .newFile(version: "1.7"), output: [UInt8]())
        writer.root = try PDFPageEditor.writeDocument(snapshots, into: &writer)
        try writer.finish()
        return writer.output
    }

    static func attachment(_ body: HTTPResponse.Body, length: Int, name: String) -> HTTPResponse {
        // The name as typed, for browsers (RFC 6266 filename*), and a plain one for the rest.
        let plain = String(name.unicodeScalars.map { $0.isASCII && $0 != "\"" && $0 != "\\" && $0.value >= 32 ? Character($0) : "_" })
        let encoded = name.addingPercentEncoding(withAllowedCharacters: .alphanumerics.union(CharacterSet(charactersIn: ".-_"))) ?? plain
        var headers = [("Content-Type", "application/pdf"), ("Cache-Control", "no-store"),
                       ("Content-Disposition", "attachment; filename=\"\(plain)\"; filename*=UTF-8''\(encoded)"),
                       ("X-Content-Type-Options", "nosniff")]
        if case .bytes = body { headers.append(("Content-Length", String(length))) }
        return HTTPResponse(status: 200, headers: headers, body: body)
    }

    static func downloadName(_ relative: String) -> String { (relative as NSString).lastPathComponent }

    static func pagesLabel(_ list: String) -> String {
        String(list.filter { !$0.isWhitespace }.map { $0 == "," ? "_" : $0 }.prefix(40))
    }
}

/// A file's first `length` bytes, a megabyte at a time: a revision downloaded is exactly what the
/// file held when that revision was written, whatever has been appended since.
final class FileRangeStream: HTTPStream, @unchecked Sendable {
    private let handle: FileHandle
    private var left: Int
    private let lock = NSLock()

    init(path: String, length: Int) throws {
        guard let handle = FileHandle(forReadingAtPath: path) else { throw CocoaError(.fileReadNoPermission) }
        self.handle = handle
        left = length
    }

    func next() -> [UInt8]? {
        lock.withLock {
            guard left > 0, let data = try? handle.read(upToCount: min(left, 1 << 20)), !data.isEmpty else { return nil }
            left -= data.count
            return Array(data)
        }
    }

    func close() { lock.withLock { try? handle.close() } }
}

/// The index as the workspace reads it: one connection, on a thread of its own at a lower
/// priority than captures (a search never slows a page landing), which answers one search at a
/// time; the request's own thread waits for it. A connection whose file was made anew (a damaged
/// index replaced) is let go.
final class SearchIndexReaders: @unchecked Sendable {
    private let path: String
    private let work = NSCondition()
    private var queue: [() -> Void] = []
    private var stopping = false
    /// Used only on the thread.
    private var open: (index: LibraryIndex, inode: UInt64)?

    init(path: String) {
        self.path = path
        let thread = Thread { [self] in run() }
        thread.name = "pdftrapper-search"
        thread.start()
    }

    /// Ends the thread once the searches queued are answered.
    func stop() {
        work.withLock {
            stopping = true
            work.broadcast()
        }
    }

    private func run() {
        ThreadPriority.lowerCurrent()
        while true {
            let next: (() -> Void)? = work.withLock {
                while queue.isEmpty && !stopping { work.wait() }
                return queue.isEmpty ? nil : queue.removeFirst()
            }
            guard let next else { return }
            next()
        }
    }

    func withIndex<T>(_ body: @escaping (LibraryIndex) throws -> T) throws -> T {
        let done = DispatchSemaphore(value: 0)
        var result: Result<T, any Error> = .failure(LibraryIndex.Failure(description: "search is stopping"))
        let accepted = work.withLock { () -> Bool in
            guard !stopping else { return false }
            queue.append { [self] in
                result = Result { try body(try index()) }
                done.signal()
            }
            work.signal()
            return true
        }
        if accepted { done.wait() }
        return try result.get()
    }

    /// The connection, opened again when the file is another.
    private func index() throws -> LibraryIndex {
        guard let inode = (try? FileManager.default.attributesOfItem(atPath: path))?[.systemFileNumber] as? UInt64 else {
            throw LibraryIndex.Failure(description: "the index is being made (\(path))")
        }
        if let open, open.inode == inode { return open.index }
        let index = try LibraryIndex(readingAt: path)
        open = (index, inode)
        return index
    }
}
