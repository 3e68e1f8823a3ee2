import Daemon
import Foundation
import HTTPServer
import Search
import Testing
import TestSupport
import TrapperCore
@testable import Web

/// `/api/search` and `/api/download` through the same gate as every route: the index as the
/// indexer leaves it, a revision's bytes exactly, some pages as a PDF every reader opens.
extension WorkspaceGateTests {
    func bytes(_ response: HTTPResponse) -> [UInt8] {
        switch response.body {
        case .bytes(let bytes): return bytes
        case .stream(let stream):
            var all: [UInt8] = []
            while let piece = stream.next() { all += piece }
            stream.close()
            return all
        }
    }

    func json(_ response: HTTPResponse) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(bytes(response))) as? [String: Any])
    }

    func indexLibrary() throws {
        let config = try ConfigParser.parse(Array((TestConfig.folders()).utf8), file: scratch.path + "/config.toml", environment: [:])
        let indexer = LibraryIndexer(config: config) { _, line in print(line) }
        try indexer.catchUp(try indexer.open())
    }

    @Test func searchAnswersWithPagesAndMarkedWordsAndRefusesWhatItCannotAsk() throws {
        let session = try login()
        #expect(answer(get("/api/search", query: ["q": "hello"], session: session)).status == 503, "no index yet")
        try indexLibrary()
        let found = answer(get("/api/search", query: ["q": "hello"], session: session))
        #expect(found.status == 200)
        let hits = try #require(try json(found)["hits"] as? [[String: Any]])
        #expect(hits.count == 1 && hits[0]["path"] as? String == "letters/one.pdf" && hits[0]["page"] as? Int == 1)
        let pieces = try #require(hits[0]["snippet"] as? [[String: Any]])
        #expect(pieces.contains { $0["text"] as? String == "Hello" && $0["found"] as? Bool == true }, "\(pieces)")
        #expect((try json(answer(get("/api/search", query: ["q": "hel*", "path": "letters/one.pdf"], session: session)))["hits"]
                 as? [Any])?.count == 1)
        #expect((try json(answer(get("/api/search", query: ["q": "hello", "in": "bills"], session: session)))["hits"] as? [Any])?.isEmpty == true)

        #expect(answer(get("/api/search", session: session)).status == 400)
        #expect(answer(get("/api/search", query: ["q": "a\u{0}b"], session: session)).status == 400)
        #expect(answer(get("/api/search", query: ["q": String(repeating: "y", count: 5000)], session: session)).status == 400)
        #expect(answer(get("/api/search", query: ["q": "x", "after": "soon"], session: session)).status == 400)
        #expect(answer(get("/api/search", query: ["q": "\"NEAR("], session: session)).status == 200)
        #expect(answer(get("/api/search", query: ["q": "secret", "path": "../secret.pdf"], session: session)).status == 404)
        #expect(answer(get("/api/search", query: ["q": "hello"])).status == 401)
    }

    @Test func aDownloadIsTheFileARevisionItsBytesAndSomePagesAPDFOfTheirOwn() throws {
        let session = try login()
        let path = scratch.path + "/library/letters/one.pdf"
        let first = try Data(contentsOf: URL(fileURLWithPath: path))
        try TextPDF.make(scratch.path + "/two.pdf", lines: [(x: 40, y: 200, size: 20, text: "Second")])
        #expect(try Binary.run(["ingest", "--to", path, scratch.path + "/two.pdf"]).status == 0)
        let now = try Data(contentsOf: URL(fileURLWithPath: path))

        let whole = answer(get("/api/download", query: ["path": "letters/one.pdf"], session: session))
        #expect(whole.status == 200 && Data(bytes(whole)) == now)
        #expect(whole.headers.contains { $0 == ("Content-Disposition", "attachment; filename=\"one.pdf\"; filename*=UTF-8''one.pdf") })

        let old = answer(get("/api/download", query: ["path": "letters/one.pdf", "end": "\(first.count)"], session: session))
        #expect(old.status == 200 && Data(bytes(old)) == first, "the first revision, byte for byte")
        #expect(old.headers.contains { $0.0 == "Content-Disposition" && $0.1.contains("one revision 1.pdf") }, "\(old.headers)")
        #expect(answer(get("/api/download", query: ["path": "letters/one.pdf", "end": "17"], session: session)).status == 404)

        let page = answer(get("/api/download", query: ["path": "letters/one.pdf", "pages": "2"], session: session))
        #expect(page.status == 200)
        let out = scratch.path + "/page-2.pdf"
        try Data(bytes(page)).write(to: URL(fileURLWithPath: out))
        try PDFReaders.requireAllAgree(out, pages: 1)
        #expect(try PDFReaders.run("pdftotext", [out, "-"]).text.contains("Second"))
        #expect(answer(get("/api/download", query: ["path": "letters/one.pdf", "pages": "3"], session: session)).status == 422)
        #expect(answer(get("/api/download", query: ["path": "letters/one.pdf", "pages": "two"], session: session)).status == 400)

        #expect(answer(get("/api/download", query: ["path": "../secret.pdf"], session: session)).status == 404)
        #expect(answer(get("/api/download", query: ["path": "letters/one.pdf"])).status == 401)
    }
}
