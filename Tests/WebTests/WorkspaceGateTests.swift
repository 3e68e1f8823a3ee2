import Daemon
import Foundation
import HTTPServer
import Testing
import TestSupport
import TrapperCore
@testable import Web

/// The workspace's gate and routes, called with plain requests as the server would hand them over,
/// without a socket: who gets in (host, token, session, method, CSRF header, origin), what a request
/// without a session gets (nothing), and paths that lead out of the library (not found). The same
/// rules over real HTTP and in a browser are Tests/Workspace's.
@Suite struct WorkspaceGateTests {
    let scratch: Scratch
    let workspace: Workspace
    let token: String

    init() throws {
        scratch = try Scratch()
        for folder in ["library/letters", "inbox", "state"] {
            try FileManager.default.createDirectory(atPath: scratch.path + "/" + folder, withIntermediateDirectories: true)
        }
        try TextPDF.make(scratch.path + "/library/letters/one.pdf", lines: [(x: 40, y: 200, size: 20, text: "Hello")])
        // A PDF outside the library, which no path may reach.
        try TextPDF.make(scratch.path + "/secret.pdf", lines: [(x: 40, y: 200, size: 20, text: "Secret")])
        let text = TestConfig.folders() + "[web]\nlisten = \"127.0.0.1:8080\"\n"
        let config = try ConfigParser.parse(Array(text.utf8), file: scratch.path + "/config.toml", environment: [:])
        workspace = try Workspace(config: config, edits: EditWorkers(environment: [:]))
        token = String(decoding: try WebAccess.token(stateDir: config.daemon.stateDir), as: UTF8.self)
    }

    /// What the server would do with `request`: the gate's answer, or the route's.
    func answer(_ request: HTTPRequest) -> HTTPResponse {
        workspace.admit(request) ?? workspace.respond(to: request)
    }

    func get(_ path: String, query: [String: String] = [:], session: String? = nil, headers: [String: String] = [:]) -> HTTPRequest {
        request("GET", path, query: query, session: session, headers: headers)
    }

    func request(_ method: String, _ path: String, query: [String: String] = [:], session: String? = nil,
                 headers: [String: String] = [:]) -> HTTPRequest {
        HTTPRequest(method: method, path: path, headers: ["Host": "127.0.0.1:8080"].merging(headers) { $1 }, query: query,
                    cookies: session.map { [WebAccess.cookieName: $0] } ?? [:])
    }

    /// Logs in with the token, as the login link does: the session cookie's value.
    func login() throws -> String {
        let answer = answer(get("/login", query: ["token": token]))
        #expect(answer.status == 303)
        let cookie = try #require(answer.headers.first { $0.0 == "Set-Cookie" }?.1)
        return String(try #require(cookie.split(separator: ";").first).dropFirst(WebAccess.cookieName.count + 1))
    }

    func body(_ response: HTTPResponse) -> String {
        guard case .bytes(let bytes) = response.body else { return "" }
        return String(decoding: bytes, as: UTF8.self)
    }

    @Test func withoutASessionEveryRouteGetsNothing() {
        for (method, path) in [("GET", "/"), ("GET", "/api/library"), ("GET", "/api/document"), ("GET", "/api/events"),
                               ("POST", "/api/save"), ("POST", "/api/upload"), ("PUT", "/api/library"), ("DELETE", "/x")] {
            let answer = answer(request(method, path, query: ["path": "letters/one.pdf"]))
            #expect(answer.status == 401, "\(method) \(path)")
            #expect(body(answer) == "", "\(method) \(path)")
            #expect(answer.headers.isEmpty, "\(method) \(path): \(answer.headers)")
        }
        // A cookie that is not one this workspace made is no session either.
        #expect(answer(get("/api/library", session: "0-0-forged")).status == 401)
    }

    @Test func theLoginTakesTheTokenAndNothingElse() throws {
        #expect(answer(get("/login")).status == 401)
        #expect(answer(get("/login", query: ["token": String(token.reversed())])).status == 401)
        #expect(answer(request("POST", "/login", query: ["token": token])).status == 401)
        let session = try login()
        #expect(answer(get("/api/library", session: session)).status == 200)
    }

    @Test func aNameOfAnotherHostIsRefusedBeforeAnythingElse() throws {
        let session = try login()
        // A DNS name rebound to this address: the browser sends that name.
        let rebound = answer(get("/api/library", session: session, headers: ["Host": "attacker.example"]))
        #expect(rebound.status == 421)
        #expect(answer(get("/login", query: ["token": token], headers: ["Host": "attacker.example:8080"])).status == 421)
    }

    @Test func aChangeNeedsTheHeaderAndTheSameOrigin() throws {
        let session = try login()
        let bare = answer(request("POST", "/api/undo", query: ["path": "letters/one.pdf"], session: session))
        #expect(bare.status == 403)
        #expect(body(bare).contains(WebAccess.csrfHeader))
        let foreign = answer(request("POST", "/api/undo", query: ["path": "letters/one.pdf"], session: session,
                                     headers: [WebAccess.csrfHeader: "1", "Origin": "http://attacker.example"]))
        #expect(foreign.status == 403)
        #expect(body(foreign).contains("attacker.example"))
        // The same origin, with the header: the gate lets it through to the route.
        let allowed = request("POST", "/api/undo", query: ["path": "letters/one.pdf"], session: session,
                              headers: [WebAccess.csrfHeader: "1", "Origin": "http://127.0.0.1:8080"])
        #expect(workspace.admit(allowed) == nil)
    }

    @Test func withASessionOnlyGetAndPostAreAnswered() throws {
        let session = try login()
        let put = answer(request("PUT", "/api/library", session: session))
        #expect(put.status == 405)
        #expect(put.headers.contains { $0.0 == "Allow" && $0.1 == "GET, POST" })
        #expect(answer(get("/api/nothing-here", session: session)).status == 404)
    }

    @Test func theLibraryListsItsDocumentsAndNoPathLeadsOutOfIt() throws {
        let session = try login()
        let list = answer(get("/api/library", session: session))
        #expect(list.status == 200)
        let listed = try #require(JSONSerialization.jsonObject(with: Data(body(list).utf8)) as? [String: Any])
        #expect((listed["documents"] as? [[String: Any]])?.compactMap { $0["path"] as? String } == ["letters/one.pdf"])
        #expect(answer(get("/api/document", query: ["path": "letters/one.pdf"], session: session)).status == 200)
        for path in ["../secret.pdf", "letters/../../secret.pdf", "/etc/passwd", scratch.path + "/secret.pdf",
                     "letters/missing.pdf", ".pdftrapper/x.pdf", "letters/one.pdf\u{0}.txt", ""] {
            #expect(answer(get("/api/document", query: ["path": path], session: session)).status == 404, "\(path)")
        }
        // A link inside the library to the file outside it is not there either.
        try FileManager.default.createSymbolicLink(atPath: scratch.path + "/library/letters/link.pdf",
                                                   withDestinationPath: scratch.path + "/secret.pdf")
        #expect(answer(get("/api/document", query: ["path": "letters/link.pdf"], session: session)).status == 404)
    }

    @Test func anUploadToNoDocumentIsRefusedBeforeItsBody() throws {
        let session = try login()
        let upload = request("POST", "/api/upload", query: ["name": "photo.jpg", "path": "letters/missing.pdf"], session: session,
                             headers: [WebAccess.csrfHeader: "1", "Content-Length": "1000"])
        #expect(workspace.admit(upload)?.status == 404)
    }

    @Test func aLoggedOutSessionGetsNothingMore() throws {
        let session = try login()
        let out = answer(request("POST", "/logout", session: session, headers: [WebAccess.csrfHeader: "1"]))
        #expect(out.status == 204)
        #expect(answer(get("/api/library", session: session)).status == 401)
    }

    @Test func headerNamesAreMatchedWithoutRegardToCase() {
        let request = HTTPRequest(method: "GET", path: "/", headers: ["X-PDFTrapper-CSRF": "1"])
        #expect(request.header("x-pdftrapper-csrf") == "1")
        #expect(request.header("X-PDFTRAPPER-CSRF") == "1")
        #expect(request.header("Host") == nil)
    }
}
