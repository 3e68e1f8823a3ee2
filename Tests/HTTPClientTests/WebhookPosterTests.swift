import Foundation
import HTTPClient
import Testing

/// Posts to a real HTTP server on 127.0.0.1 and checks what arrived there and what came back.
/// Each test gets a server of its own (a class suite: one instance per test, the server stopped in
/// `deinit`), so the tests may run in parallel.
@Suite final class WebhookPosterTests {
    private let server: RecordingServer

    init() throws {
        server = try RecordingServer()
    }

    deinit {
        server.stop()
    }

    @Test func theBodyAndHeadersArriveAsSent() throws {
        // Every byte value, and over 1 MiB, past which curl would otherwise send "Expect: 100-continue".
        let body = (0..<1_500_000).map { UInt8(truncatingIfNeeded: $0 &* 31 ^ ($0 >> 8)) }
        let headers = [("Content-Type", "application/json; charset=utf-8"), ("X-Trapper-Signature", "sha256=0f3a9c, t=1700000000")]
        let answer = try WebhookPoster.post(HTTPPost(url: server.url("/ok"), body: body, headers: headers)).get()
        #expect(answer.status == 200)
        #expect(answer.body == Array("accepted".utf8))
        let received = try server.received()
        #expect(received.path == "/ok")
        #expect(received.bytes == body)
        #expect(received.values("Content-Type") == ["application/json; charset=utf-8"])
        #expect(received.values("X-Trapper-Signature") == ["sha256=0f3a9c, t=1700000000"])
        #expect(received.values("Content-Length") == ["1500000"])
        #expect(received.values("User-Agent") == ["PDFTrapper"])
        #expect(received.values("Expect") == [])
    }

    @Test func anEmptyBodyIsPostedEmpty() throws {
        let answer = try WebhookPoster.post(HTTPPost(url: server.url("/ok"), body: [])).get()
        #expect(answer.status == 200)
        #expect(try server.received().bytes == [])
    }

    @Test func everyStatusComesBackAsAnAnswer() throws {
        for (path, status, text) in [("/ok", 200, "accepted"), ("/fail", 500, "broken"), ("/elsewhere", 404, "missing")] {
            let answer = try WebhookPoster.post(HTTPPost(url: server.url(path), body: Array("{}".utf8))).get()
            #expect(answer.status == status, "\(path)")
            #expect(answer.body == Array(text.utf8), "\(path)")
            #expect(try server.received().path == path)
        }
    }

    @Test func aLongAnswerIsCutAt64KiB() throws {
        let answer = try WebhookPoster.post(HTTPPost(url: server.url("/big"), body: [1])).get()
        #expect(answer.status == 200)
        #expect(answer.body == (0..<65536).map { UInt8($0 % 251) })
    }

    @Test func postsFromSeveralThreadsAllArrive() throws {
        let statuses = Statuses()
        let url = server.url("/ok")
        DispatchQueue.concurrentPerform(iterations: 8) { index in
            let result = WebhookPoster.post(HTTPPost(url: url, body: [UInt8(index)]))
            statuses.add((try? result.get())?.status ?? -1)
        }
        #expect(statuses.all == Array(repeating: 200, count: 8))
        let bodies = try (0..<8).map { _ in try server.received().bytes }
        #expect(Set(bodies) == Set((0..<8).map { [UInt8($0)] }))
    }

    @Test func aServerThatNeverAnswersTimesOut() {
        let started = Date()
        let result = WebhookPoster.post(HTTPPost(url: server.url("/hang"), body: [1], timeoutSeconds: 1))
        let elapsed = Date().timeIntervalSince(started)
        guard case .failure(let failure) = result, case .transfer(let code, _) = failure else {
            Issue.record("expected a transfer failure, got \(result)"); return
        }
        #expect(code == 28) // CURLE_OPERATION_TIMEDOUT
        #expect(failure.timedOut, "\(failure.description)")
        #expect(elapsed >= 0.9 && elapsed < 5, "took \(elapsed) s")
    }

    @Test func aClosedPortIsRefused() {
        let result = WebhookPoster.post(HTTPPost(url: "http://127.0.0.1:\(server.closedPort)/ok", body: [1]))
        guard case .failure(let failure) = result, case .transfer(let code, let reason) = failure else {
            Issue.record("expected a transfer failure, got \(result)"); return
        }
        #expect(code == 7) // CURLE_COULDNT_CONNECT
        #expect(!failure.timedOut)
        #expect(reason.contains("Failed to connect"), "\(reason)") // the error buffer's detail
    }

    @Test func onlyHTTPIsSpoken() {
        let result = WebhookPoster.post(HTTPPost(url: "file:///etc/passwd", body: [1]))
        guard case .failure(let failure) = result, case .transfer(let code, _) = failure else {
            Issue.record("expected a transfer failure, got \(result)"); return
        }
        #expect(code == 1, "\(failure.description)") // CURLE_UNSUPPORTED_PROTOCOL
    }
}

/// The statuses the threads of one test got, in no order.
private final class Statuses: @unchecked Sendable {
    private let lock = NSLock()
    private var statuses: [Int] = []
    func add(_ status: Int) { lock.withLock { statuses.append(status) } }
    var all: [Int] { lock.withLock { statuses } }
}
