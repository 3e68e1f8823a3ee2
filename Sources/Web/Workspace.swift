import CLinux
import Daemon
import Foundation
import Glibc
import Hashing
import HTTPServer
import PDFAccess
import TrapperCore

/// A value behind a lock.
final class Locked<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value
    init(_ value: Value) { self.value = value }
    func withLock<T>(_ body: (inout Value) -> T) -> T {
        lock.lock()
        defer { lock.unlock() }
        return body(&value)
    }
}

/// A stream that lasts as long as the session that opened it: once that session expires or is
/// ended (Log out, a new token), the next thing the stream would send (an event, or the keep-alive
/// within 15 s) ends it instead, and the browser's reconnection gets 401.
final class SessionStream: HTTPStream, @unchecked Sendable {
    let inner: any HTTPStream
    let live: @Sendable () -> Bool

    init(_ inner: any HTTPStream, live: @escaping @Sendable () -> Bool) {
        self.inner = inner
        self.live = live
    }

    func next() -> [UInt8]? {
        guard let bytes = inner.next(), live() else { return nil }
        return bytes
    }

    func close() { inner.close() }
}

/// The workspace: the library, its documents and their history, page pictures, markup saved as
/// revisions, undo and redo, the daemon's status, and a live feed of all of it. `admit` decides
/// who gets in before a byte of a body is read; `respond` answers; the routes read like the table
/// in web/README.md.
public final class Workspace: HTTPHandler, Companion, @unchecked Sendable {
    let config: Config
    let access: WebAccess
    let library: LibraryFiles
    let pages: PageImages
    let documents = DocumentInfoCache()
    let events: LiveEvents
    /// What the library list shows of each document beyond its folder's listing; once those asked
    /// for are read, the open pages are told (a `library` event) to ask again.
    let summaries: LibrarySummaries
    let save: WorkspaceSave
    let staticFiles: String?
    /// For what the store alone knows (whether a redo is waiting); read only.
    let store: TargetStore
    /// The search index, as the daemon's (or `serve`'s) indexer keeps it.
    let searchIndex: SearchIndexReaders
    private var server: HTTPListener?

    public var bodyLimit: Int { (config.web ?? WebSettings()).maxBodyBytes }

    /// The workspace of `config`, applying its saves through `edits`; `start` makes it listen.
    public init(config: Config, edits: EditWorkers) throws {
        self.config = config
        access = try WebAccess(config: config)
        library = LibraryFiles(root: config.library.root)
        let events = LiveEvents()
        self.events = events
        summaries = LibrarySummaries { events.publish("library", [:]) }
        store = try DaemonParts.openStore(config)
        save = WorkspaceSave(config: config, edits: edits, store: store)
        staticFiles = Self.findStaticFiles()
        pages = PageImages(scratch: config.daemon.stateDir + "/web-revisions")
        searchIndex = SearchIndexReaders(path: LibraryIndexer.indexPath(config))
    }

    /// Listens on `web.listen`; what `pdftrapper run` with `[web]` and `pdftrapper serve` do.
    public func start() throws {
        // A thread a connection, and glibc would give each busy one an arena of its own to keep:
        // two are plenty for what the threads allocate (50 viewers took 300 MB without this).
        mallopt(M_ARENA_MAX, 2)
        server = try HTTPListener(listen: (config.web ?? WebSettings()).listen, handler: self)
    }

    public var port: Int? { server?.port }

    public func stop() {
        summaries.stop()
        searchIndex.stop()
        events.close()
        server?.stop()
        server = nil
    }

    // MARK: the live feed

    public func revisionLanded(target: String, end: Int, operation: String) {
        guard let relative = library.relative(target) else { return }
        events.publish("revision", ["path": relative, "end": end, "operation": operation])
    }

    public func statusChanged() {
        events.publish("status", [:])
    }

    // MARK: who gets in

    public func admit(_ request: HTTPRequest) -> HTTPResponse? {
        // A page on another site that a DNS name rebinds to this address names the wrong host.
        guard access.hostAllowed(request.header("Host")) else {
            return HTTPResponse(status: 421, headers: [("Content-Type", "text/plain")], body: .bytes(Array("unknown host\n".utf8)))
        }
        if request.path == "/login" {
            guard request.method == "GET", access.tokenMatches(request.query("token")), let cookie = access.newSessionCookie() else {
                return HTTPResponse(status: 401)
            }
            return HTTPResponse(status: 303, headers: [("Set-Cookie", cookie), ("Location", "/"),
                                                       ("Cache-Control", "no-store"), ("Referrer-Policy", "no-referrer")])
        }
        // Without a session nothing is said, not even which methods there are.
        guard access.session(request.cookie(WebAccess.cookieName)) != nil else { return HTTPResponse(status: 401) }
        guard request.method == "GET" || request.method == "POST" else { return HTTPResponse(status: 405, headers: [("Allow", "GET, POST")]) }
        if request.method == "POST" {
            // A cross-origin form or fetch cannot set this header without a preflight, which gets nothing.
            guard request.header(WebAccess.csrfHeader) == "1" else {
                return WebJSON.error(403, "a change needs the \(WebAccess.csrfHeader) header")
            }
            if let origin = request.header("Origin"), let host = request.header("Host"), origin != "http://\(host)", origin != "https://\(host)" {
                return WebJSON.error(403, "a change from another origin (\(origin)) is refused")
            }
            // An upload to no document is answered before its body is read. One too large is read
            // and dropped first (a browser that is still sending takes an early answer for a broken
            // connection, and would never show the reason), unless it is far too large to be a mistake.
            if request.path == "/api/upload" {
                if let relative = request.query("path"), library.resolve(relative) == nil { return HTTPResponse(status: 404) }
                if let length = request.header("Content-Length").flatMap(Int.init), length / 4 > config.limits.maxInputBytes {
                    return WorkspaceUpload.tooLarge(WorkspaceUpload.fileName(request.query("name")), config).response
                }
            }
        }
        return nil
    }

    /// `POST /api/upload?name=NAME[&path=DOC.pdf]`: the body goes into the inbox as it arrives.
    public func upload(for request: HTTPRequest) -> (any HTTPUpload)? {
        guard request.method == "POST", request.path == "/api/upload" else { return nil }
        let name = WorkspaceUpload.fileName(request.query("name"))
        var target: (path: String, relative: String)?
        if let relative = request.query("path") {
            // Checked in `admit` already; a document gone since is refused as it was then.
            guard let path = library.resolve(relative) else { return RefusedUpload(HTTPResponse(status: 404)) }
            target = (path, relative)
        }
        do {
            return try WorkspaceUpload(name: name, target: target, config: config, store: store,
                                       declaredLength: request.header("Content-Length").flatMap(Int.init))
        } catch {
            return RefusedUpload(error.response)
        }
    }

    public func respond(to request: HTTPRequest) -> HTTPResponse {
        switch (request.method, request.path) {
        case ("GET", "/"): return staticFile("index.html")
        case ("GET", let path) where path.hasPrefix("/static/"): return staticFile(String(path.dropFirst("/static/".count)))
        case ("GET", "/api/library"): return libraryList(request)
        case ("GET", "/api/document"): return document(request)
        case ("GET", "/api/page"): return page(request)
        case ("GET", "/api/photo"): return photo(request)
        case ("GET", "/api/words"): return words(request)
        case ("GET", "/api/annotations"): return annotations(request)
        case ("GET", "/api/search"): return search(request)
        case ("GET", "/api/download"): return download(request)
        case ("GET", "/api/signatures"): return signatureList()
        case ("GET", "/api/signature"): return signature(request)
        case ("POST", "/api/signatures"): return saveSignature(request)
        case ("POST", "/api/save"): return saveEdits(request)
        case ("POST", "/api/undo"): return undoOrRedo(request, "undo")
        case ("POST", "/api/redo"): return undoOrRedo(request, "redo")
        case ("GET", "/api/status"): return status()
        case ("POST", "/logout"): return logout(request)
        case ("GET", "/api/events"):
            let cookie = request.cookie(WebAccess.cookieName)
            let stream = SessionStream(events.stream(after: request.header("Last-Event-ID").flatMap(Int.init))) { [access] in
                access.session(cookie) != nil
            }
            return HTTPResponse(status: 200, headers: [("Content-Type", "text/event-stream"), ("Cache-Control", "no-store"),
                                                       ("X-Accel-Buffering", "no")],
                                body: .stream(stream))
        default: return HTTPResponse(status: 404)
        }
    }

    // MARK: see

    /// `GET /api/library[?offset=N&limit=M]`: the documents from `offset` on, `limit` at most (100
    /// unless asked, 1,000 at most), in the order of their paths, with `next` (the offset to ask for
    /// next) while there are more. Listed from the folders alone: pages and the last revision are
    /// the summaries' (read once per state of each file, after the answer when not yet known).
    private func libraryList(_ request: HTTPRequest) -> HTTPResponse {
        let offset = max(0, request.query("offset").flatMap(Int.init) ?? 0)
        let limit = min(max(1, request.query("limit").flatMap(Int.init) ?? 100), 1000)
        let all = library.documentNames()
        let shown = all.dropFirst(offset).prefix(limit).compactMap(library.listed)
        summaries.keep(only: all)
        let known = summaries.lookup(shown.map { ($0.relative, library.root + "/" + $0.relative, $0.identity) })
        let list: [[String: Any]] = zip(shown, known).map { found, summary in
            var entry: [String: Any] = ["path": found.relative, "size": found.size, "modified": WebJSON.date(found.modified)]
            switch summary {
            case .read(let summary)?:
                entry["pages"] = summary.pages
                entry["end"] = summary.end
                if let last = summary.last { entry["last"] = DocumentInfo.shown(last) }
            case .unreadable?: entry["unreadable"] = true
            case nil: entry["pending"] = true
            }
            return entry
        }
        var answer: [String: Any] = ["root": config.library.root, "total": all.count, "offset": offset, "documents": list]
        if offset + limit < all.count { answer["next"] = offset + limit }
        return WebJSON.response(answer)
    }

    /// The document's file, or the 404 every path outside the library gets.
    private func resolved(_ request: HTTPRequest) -> (String, String)? {
        guard let relative = request.query("path"), let path = library.resolve(relative) else { return nil }
        return (relative, path)
    }

    private func document(_ request: HTTPRequest) -> HTTPResponse {
        guard let (relative, path) = resolved(request) else { return HTTPResponse(status: 404) }
        do {
            let current = try documents.info(path)
            var info = current
            if let end = request.query("end").flatMap(Int.init), end != current.end {
                guard current.history.contains(where: { $0.end == end }) else { return WebJSON.error(404, "no revision ends at \(end)") }
                info = try documents.info(path, end: end)
            }
            let history: [[String: Any]] = current.history.enumerated().map { number, entry in
                var item: [String: Any] = ["number": number + 1, "base": entry.base, "end": entry.end, "current": entry.end == info.end]
                if let record = entry.record {
                    item["operation"] = record.operation.rawValue
                    item["date"] = WebJSON.date(record.date)
                    item["note"] = record.note ?? ""
                    item["pages_added"] = record.pagesAdded
                } else {
                    item["operation"] = "other program"
                }
                return item
            }
            let undoable = current.history.last.map { $0.record.map { $0.base > 0 } ?? false } ?? false
            let revision = info.end == current.end ? TargetStore.revision(of: path) : nil
            var rest: [String: Any] = ["path": relative, "end": info.end, "size": current.end, "history": history,
                                       "can_undo": undoable && info.end == current.end,
                                       "can_redo": store.canRedo(target: path) && info.end == current.end]
            // What a save, undo or redo names as its base (If-Match), so two revisions of one length are told apart.
            rest["revision"] = revision?.description
            // The pages' list, a 5,000-page document's bulk, was written once when the document was read.
            var body = Array("{\"pages\":".utf8) + info.pagesJSON + [UInt8(ascii: ",")]
            body += (try JSONSerialization.data(withJSONObject: rest, options: [.sortedKeys])).dropFirst()
            var headers = [("Content-Type", "application/json"), ("Cache-Control", "no-store")]
            if let revision { headers.append(("ETag", "\"\(revision)\"")) }
            return HTTPResponse(status: 200, headers: headers, body: .bytes(body))
        } catch {
            return WebJSON.error(422, "\(relative): \(error)")
        }
    }

    private func page(_ request: HTTPRequest) -> HTTPResponse {
        guard let (relative, path) = resolved(request) else { return HTTPResponse(status: 404) }
        // region=x0,y0,x1,y1: only that part of the page (fractions of it as shown, y down), at
        // `width` for the whole page; what a zoomed page shows first, the whole page following.
        let region = request.query("region").map { $0.split(separator: ",").compactMap { Double($0) } }
        if let region {
            guard region.count == 4, region.allSatisfy({ (0...1).contains($0) }), region[0] < region[2], region[1] < region[3] else {
                return WebJSON.error(400, "region= is x0,y0,x1,y1, fractions of the page from 0 to 1, x0 < x1 and y0 < y1")
            }
        }
        let part = region.flatMap { Rect($0) }
        let widest = part == nil ? 4000 : 12000
        guard let number = request.query("page").flatMap(Int.init), number >= 1,
              let width = request.query("width").flatMap(Int.init), (16...widest).contains(width) else {
            return WebJSON.error(400, "page= (from 1) and width= (16 to 4000 pixels; 12000 for a region) are needed")
        }
        do {
            let current = try documents.info(path)
            let end = request.query("end").flatMap(Int.init) ?? current.end
            guard end == current.end || current.history.contains(where: { $0.end == end }) else { return HTTPResponse(status: 404) }
            let info = end == current.end ? current : try documents.info(path, end: end)
            guard number <= info.pages.count else { return HTTPResponse(status: 404) }
            // A picture needs width × its height × 4 bytes at once; a page shaped like a ribbon is refused.
            let shown = info.pages[number - 1].shown
            let share = part.map { $0.width * $0.height } ?? 1
            guard Double(width) * Double(width) * shown.height / max(shown.width, 1) * share <= 25_000_000 else {
                return WebJSON.error(422, "\(relative): page \(number) is too tall to show \(width) pixels wide")
            }
            let state = FileDigest.sha256(Array(current.identity.utf8)).prefix(6).map { String(format: "%02x", $0) }.joined()
            let tag = "\"\(end)-\(number)-\(width)-\(state)" + (part.map { "-" + $0.numbers.map { String($0) }.joined(separator: ",") } ?? "") + "\""
            if request.header("If-None-Match") == tag { return HTTPResponse(status: 304, headers: [("ETag", tag)]) }
            let picture = try pages.png(current, end: end, page: number - 1, width: width, region: part)
            return HTTPResponse(status: 200, headers: [("Content-Type", "image/png"), ("ETag", tag), ("Cache-Control", "no-cache")],
                                body: .bytes(picture))
        } catch {
            return WebJSON.error(422, "\(relative): page \(number): \(error)")
        }
    }

    /// A page of the document as it is now (`path=`, `page=`): the 404 and 400 every such route
    /// gives, then `answer` with the file, what is known of it, and the page's index.
    private func onPage(_ request: HTTPRequest, _ answer: (String, DocumentInfo, Int) throws -> HTTPResponse) -> HTTPResponse {
        guard let (relative, path) = resolved(request) else { return HTTPResponse(status: 404) }
        guard let number = request.query("page").flatMap(Int.init), number >= 1 else { return WebJSON.error(400, "page= is needed") }
        do {
            let info = try documents.info(path)
            guard number <= info.pages.count else { return HTTPResponse(status: 404) }
            return try answer(path, info, number - 1)
        } catch {
            return WebJSON.error(422, "\(relative): page \(number): \(error)")
        }
    }

    /// The photo a page was cut from (`reframe` in the browser), upright, at most `width` wide.
    private func photo(_ request: HTTPRequest) -> HTTPResponse {
        guard let width = request.query("width").flatMap(Int.init), (16...4000).contains(width) else {
            return WebJSON.error(400, "width= (16 to 4000 pixels) is needed")
        }
        return onPage(request) { _, info, index in
            guard let picture = try pages.photo(info, page: index, width: width) else { return HTTPResponse(status: 404) }
            return HTTPResponse(status: 200, headers: [("Content-Type", "image/jpeg"), ("Cache-Control", "no-store")], body: .bytes(picture))
        }
    }

    private func words(_ request: HTTPRequest) -> HTTPResponse {
        onPage(request) { _, info, index in
            let found = try pages.words(info, page: index)
            return WebJSON.response(["words": found.map { ["text": $0.text, "box": $0.box.numbers.map(WebJSON.rounded)] }])
        }
    }

    private func annotations(_ request: HTTPRequest) -> HTTPResponse {
        onPage(request) { path, info, index in
            let editor = try PDFPageEditor(reader: PDFTailReader(path: path, decoder: FlateStreamDecoder()))
            let shown = info.pages[index].shown
            let list: [[String: Any]] = try editor.annotations(ofPage: index, drawing: true).compactMap { annotation -> [String: Any]? in
                guard let rect = annotation.rect, !["Widget", "Popup"].contains(annotation.subtype) else { return nil }
                var item: [String: Any] = ["id": annotation.id, "kind": annotation.subtype,
                                           "box": shown.browser(user: rect).numbers.map(WebJSON.rounded)]
                if let author = annotation.author { item["author"] = author }
                if let contents = annotation.contents { item["contents"] = contents }
                // How it is drawn, for the preview of a change (web/select.js).
                if let color = annotation.color { item["color"] = WebJSON.hex(color) }
                if let width = annotation.width { item["width"] = WebJSON.rounded(width) }
                if let opacity = annotation.opacity { item["opacity"] = WebJSON.rounded(opacity) }
                if let strokes = annotation.strokes {
                    item["strokes"] = strokes.map { $0.map { let p = shown.browser(user: $0); return [WebJSON.rounded(p.x), WebJSON.rounded(p.y)] } }
                }
                return item
            }
            return WebJSON.response(["annotations": list])
        }
    }

    private func status() -> HTTPResponse {
        var object: [String: Any] = ["state": "not running"]
        if let status = DaemonStatus.load(stateDir: config.daemon.stateDir) {
            object["state"] = status.state
            object["pid"] = Int(status.pid)
            object["folders"] = status.folders
            object["queue"] = status.queue
            object["updated"] = WebJSON.date(status.updated)
            object["last"] = status.recent.reversed().map { outcome -> [String: Any] in
                var item: [String: Any] = ["input": outcome.input, "result": outcome.result.rawValue, "summary": outcome.summary]
                if let target = outcome.target { item["target"] = library.relative(target) ?? target }
                return item
            }
            if let waiting = status.waiting { object["waiting"] = waiting }
            if let retrying = status.retrying { object["retrying"] = retrying }
        }
        object["quarantine"] = quarantine()
        return WebJSON.response(object)
    }

    /// Each quarantined file with the reason its note gives, newest first.
    private func quarantine() -> [[String: Any]] {
        let folder = config.inbox.quarantine
        guard let names = try? FileManager.default.subpathsOfDirectory(atPath: folder) else { return [] }
        return names.filter { $0.hasSuffix(".why.txt") }.compactMap { noteName -> [String: Any]? in
            guard let text = try? String(contentsOfFile: folder + "/" + noteName, encoding: .utf8) else { return nil }
            var fields: [String: String] = [:]
            for line in text.split(separator: "\n") {
                guard let colon = line.firstIndex(of: ":") else { continue }
                fields[String(line[..<colon])] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            }
            return ["name": String(noteName.dropLast(".why.txt".count)), "reason": fields["reason"] ?? "",
                    "rule": fields["rule"] ?? "", "date": fields["time"] ?? ""]
        }.sorted { ($0["date"] as? String ?? "") > ($1["date"] as? String ?? "") }
    }

    // MARK: change

    private func saveEdits(_ request: HTTPRequest) -> HTTPResponse {
        guard let body = WebJSON.object(request.body), let relative = body["path"] as? String,
              let path = library.resolve(relative) else { return HTTPResponse(status: 404) }
        guard let list = body["edits"] as? [[String: Any]], !list.isEmpty else {
            return WebJSON.error(422, "a save needs base_revision (or base_end) and a list of edits")
        }
        do {
            let base = try Self.base(of: request, body, path)
            let info = try documents.info(path)
            guard info.end == base.end else { throw WorkspaceSave.Refusal(status: 409, message: Self.changed) }
            var script = try WorkspaceSave.script(relative: relative, baseEnd: base.end, edits: list, info: info)
            script["base_revision"] = base.revision?.description
            let applied = try save.apply(script, label: "workspace")
            return WebJSON.response(["end": applied.end, "operations": applied.operations, "pages": applied.pages,
                                     "revision": TargetStore.revision(of: path)?.description ?? ""])
        } catch let refusal as WorkspaceSave.Refusal {
            return answer(refusal, path)
        } catch {
            return WebJSON.error(422, "\(relative): \(error)")
        }
    }

    private func undoOrRedo(_ request: HTTPRequest, _ op: String) -> HTTPResponse {
        guard let body = WebJSON.object(request.body), let relative = body["path"] as? String,
              let path = library.resolve(relative) else { return HTTPResponse(status: 404) }
        do {
            let base = try Self.base(of: request, body, path)
            var script: [String: Any] = ["target": relative, "base_end": base.end, "edit": [["op": op]]]
            script["base_revision"] = base.revision?.description
            let applied = try save.apply(script, label: "workspace-\(op)")
            return WebJSON.response(["end": applied.end, "revision": TargetStore.revision(of: path)?.description ?? ""])
        } catch {
            return answer(error, path)
        }
    }

    /// The revision a save, undo or redo was made against: `base_revision` (END-HASH, or the
    /// same in an `If-Match` header, as the document's ETag gave it), else the older `base_end`
    /// alone. A revision that is no longer the document's is a 409 before anything is written;
    /// the store checks it again under the target's lock.
    private static func base(of request: HTTPRequest, _ body: [String: Any], _ path: String)
        throws(WorkspaceSave.Refusal) -> (end: Int, revision: RevisionID?)
    {
        let named = (body["base_revision"] as? String)
            ?? request.header("If-Match").map { $0.replacingOccurrences(of: "W/", with: "").trimmingCharacters(in: CharacterSet(charactersIn: "\" ")) }
        if let named {
            guard let revision = RevisionID(named) else {
                throw WorkspaceSave.Refusal(status: 422, message: "base_revision must be a revision as /api/document gives it (END-HASH)")
            }
            guard TargetStore.revision(of: path) == revision else { throw WorkspaceSave.Refusal(status: 409, message: changed) }
            return (revision.end, revision)
        }
        guard let end = body["base_end"] as? Int else {
            throw WorkspaceSave.Refusal(status: 422, message: "a change needs base_revision (or base_end)")
        }
        return (end, nil)
    }

    /// A refusal as the browser gets it; a conflict carries the document's current revision,
    /// so the tab can reload and show what changed.
    private func answer(_ refusal: WorkspaceSave.Refusal, _ path: String) -> HTTPResponse {
        guard refusal.status == 409 else { return WebJSON.error(refusal.status, refusal.message, problems: refusal.problems) }
        var object: [String: Any] = ["error": refusal.message, "revision": TargetStore.revision(of: path)?.description ?? ""]
        if !refusal.problems.isEmpty { object["problems"] = refusal.problems }
        return WebJSON.response(object, status: 409)
    }

    /// `POST /logout`: the session is ended for good (a replayed cookie gets 401, after a restart
    /// too) and the browser told to forget it; the other sessions go on.
    private func logout(_ request: HTTPRequest) -> HTTPResponse {
        guard let session = access.session(request.cookie(WebAccess.cookieName)) else { return HTTPResponse(status: 401) }
        do {
            try access.end(session)
        } catch {
            return WebJSON.error(500, "the session could not be ended: \(error)")
        }
        return HTTPResponse(status: 204, headers: [("Set-Cookie", WebAccess.forgetCookie), ("Cache-Control", "no-store")])
    }

    static let changed = "The document changed since you opened it (a scan landed, or another tab saved). Reload to see it; nothing was saved."

    // MARK: the browser's files

    private func staticFile(_ name: String) -> HTTPResponse {
        let types = ["html": "text/html; charset=utf-8", "js": "text/javascript; charset=utf-8", "css": "text/css; charset=utf-8",
                     "svg": "image/svg+xml", "png": "image/png", "webmanifest": "application/manifest+json", "json": "application/json"]
        let parts = name.split(separator: ".")
        guard let folder = staticFiles, parts.count == 2, let type = types[String(parts[1])],
              parts[0].allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }),
              let data = FileManager.default.contents(atPath: folder + "/" + name) else { return HTTPResponse(status: 404) }
        return HTTPResponse(status: 200, headers: [
            ("Content-Type", type), ("Cache-Control", "no-cache"), ("X-Content-Type-Options", "nosniff"),
            // blob: frames and reads: Print shows the PDF the page fetched (takeout.js) in a frame of its own.
            ("Content-Security-Policy", "default-src 'self'; img-src 'self' data: blob:; style-src 'self' 'unsafe-inline'; "
                + "frame-src blob:; connect-src 'self' blob:; frame-ancestors 'none'"),
            ("Referrer-Policy", "no-referrer"),
        ], body: .bytes(Array(data)))
    }

    /// `share/pdftrapper/web` beside the installed binary, or `web/` of the checkout it was built
    /// in (`.build/TRIPLE/CONFIGURATION/pdftrapper`, the checkout's Package.swift beside web/);
    /// nowhere else, so a stray `web/` folder up the tree is never served as the workspace's script.
    static func findStaticFiles() -> String? {
        let folder = (InboxDaemon.executable as NSString).deletingLastPathComponent
        let installed = ((folder + "/../share/pdftrapper/web") as NSString).standardizingPath
        if FileManager.default.fileExists(atPath: installed + "/index.html") { return installed }
        var checkout = folder
        for _ in 0..<3 { checkout = (checkout as NSString).deletingLastPathComponent }
        guard (folder as NSString).pathComponents.contains(".build"),
              FileManager.default.fileExists(atPath: checkout + "/Package.swift"),
              FileManager.default.fileExists(atPath: checkout + "/web/index.html") else { return nil }
        return checkout + "/web"
    }
}
