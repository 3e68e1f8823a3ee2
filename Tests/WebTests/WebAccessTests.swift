import Foundation
import Testing
import TestSupport
import TrapperCore
@testable import Web

/// Sessions: each login its own, refused once older than `session_days` (on a clock the test
/// moves), ended for good by Log out (a restart too), and all at once by a new token.
@Suite struct WebAccessTests {
    /// A clock the test moves.
    final class Clock: @unchecked Sendable {
        private let lock = NSLock()
        private var seconds: Double
        init(_ seconds: Double) { self.seconds = seconds }
        var now: Date { lock.withLock { Date(timeIntervalSince1970: seconds) } }
        func advance(_ by: Double) { lock.withLock { seconds += by } }
    }

    let scratch: Scratch
    let clock = Clock(1_700_000_000)
    var stateDir: String { scratch.path + "/state" }

    init() throws { scratch = try Scratch() }

    func access(_ web: String = "", endedLimit: Int = EndedSessions.defaultLimit) throws -> WebAccess {
        let text = "[daemon]\nstate_dir = \"state\"\n[library]\nroot = \"library\"\n[inbox]\npath = \"inbox\"\n[web]\n" + web
        let config = try ConfigParser.parse(Array(text.utf8), file: scratch.path + "/config.toml", environment: [:])
        let clock = clock
        return try WebAccess(config: config, now: { clock.now }, endedLimit: endedLimit)
    }

    /// A new session's cookie value, and its whole Set-Cookie line.
    func login(_ access: WebAccess) throws -> (value: String, header: String) {
        let header = try #require(access.newSessionCookie())
        let pair = try #require(header.split(separator: ";").first)
        #expect(pair.hasPrefix(WebAccess.cookieName + "="))
        return (String(pair.dropFirst(WebAccess.cookieName.count + 1)), header)
    }

    @Test func aSessionLastsSessionDaysAndNoLonger() throws {
        let access = try access("session_days = 2\n")
        let (cookie, header) = try login(access)
        #expect(header.hasSuffix("; Max-Age=172800; HttpOnly; SameSite=Strict; Path=/"), "\(header)")
        #expect(access.session(cookie) != nil)
        clock.advance(2 * 86400 - 1)
        #expect(access.session(cookie) != nil)
        clock.advance(1)
        #expect(access.session(cookie) == nil)
        // A new login is a new session, good for two days again.
        #expect(access.session(try login(access).value) != nil)
    }

    @Test func aFractionOfADayIsTakenAndTheDefaultIsThirtyDays() throws {
        #expect(try access().maxAge == 30 * 86400)
        let short = try access("session_days = 0.5\n")
        let (cookie, header) = try login(short)
        #expect(header.contains("; Max-Age=43200;"))
        clock.advance(43199)
        #expect(short.session(cookie) != nil)
        clock.advance(1)
        #expect(short.session(cookie) == nil)
    }

    @Test func aCookieNotMadeHereIsRefused() throws {
        let access = try access()
        let token = try #require(access.token)
        let (cookie, _) = try login(access)
        let session = try #require(access.session(cookie))
        let now = Int64(clock.now.timeIntervalSince1970)
        let id = String(repeating: "ab", count: 16)
        let otherKey = Array(String(repeating: "0", count: 64).utf8)
        let forged = [
            "", "garbage", cookie + "0", String(cookie.dropLast()) + (cookie.last == "0" ? "1" : "0"),
            // Today's MAC moved onto another issue time or id.
            "\(now + 1).\(session.id).\(cookie.split(separator: ".")[2])",
            "\(session.issued).\(id).\(cookie.split(separator: ".")[2])",
            // Made with another key, or issued in the future, or not in the form this code writes.
            access.cookieValue(WebAccess.Session(issued: now, id: id), token: otherKey),
            access.cookieValue(WebAccess.Session(issued: now + 3600, id: id), token: token),
            "+" + access.cookieValue(WebAccess.Session(issued: now, id: id), token: token),
            access.cookieValue(WebAccess.Session(issued: now, id: id.uppercased()), token: token),
            // The form sessions used to have: one HMAC, 64 hex digits, the same for every login.
            String(cookie.split(separator: ".")[2]),
        ]
        for value in forged { #expect(access.session(value) == nil, "\(value)") }
        // The control: one minted with the token, the right way, now, passes.
        #expect(access.session(access.cookieValue(WebAccess.Session(issued: now, id: id), token: token)) != nil)
    }

    @Test func eachLoginIsItsOwnSessionAndLogOutEndsOnlyThatOne() throws {
        let access = try access()
        let (first, _) = try login(access)
        let (second, _) = try login(access)
        #expect(first != second)
        try access.end(try #require(access.session(first)))
        #expect(access.session(first) == nil)
        #expect(access.session(second) != nil)
        // After a restart (another process reading the same state folder), it is still ended.
        let restarted = try self.access()
        #expect(restarted.session(first) == nil)
        #expect(restarted.session(second) != nil)
        let file = stateDir + "/" + WebAccess.endedFileName
        let mode = try #require(FileManager.default.attributesOfItem(atPath: file)[.posixPermissions] as? Int)
        #expect(mode == 0o600)
    }

    @Test func theEndedListDropsWhatHasExpiredAndStaysBounded() throws {
        let access = try access("session_days = 1\n", endedLimit: 3)
        let notEnded = try login(access).value
        var ended: [String] = []
        for _ in 0..<5 {
            clock.advance(10)
            let (cookie, _) = try login(access)
            try access.end(try #require(access.session(cookie)))
            ended.append(cookie)
        }
        clock.advance(10)
        let later = try login(access).value
        for cookie in ended { #expect(access.session(cookie) == nil) }
        #expect(access.session(later) != nil)
        // Three ids kept; the two oldest folded into "before": a session issued by then ends early too.
        let file = stateDir + "/" + WebAccess.endedFileName
        var list = EndedSessions.list(try String(contentsOfFile: file, encoding: .utf8))
        #expect(list.ids.count == 3)
        #expect(list.before == 1_700_000_020)
        #expect(access.session(notEnded) == nil)
        // A day on, every entry is past its session's life: ending one more leaves that one alone.
        clock.advance(86400)
        let (fresh, _) = try login(access)
        try access.end(try #require(access.session(fresh)))
        list = EndedSessions.list(try String(contentsOfFile: file, encoding: .utf8))
        #expect(list == EndedSessions.List(before: 0, ids: [String(fresh.split(separator: ".")[1]): Int64(clock.now.timeIntervalSince1970)]))
        #expect(access.session(fresh) == nil)
    }

    @Test func aNewTokenEndsEverySessionAndTheOldTokenLogsInNoMore() throws {
        let access = try access()
        let old = String(decoding: try #require(access.token), as: UTF8.self)
        let (cookie, _) = try login(access)
        let (ended, _) = try login(access)
        try access.end(try #require(access.session(ended)))
        #expect(access.tokenMatches(old))

        let new = String(decoding: try WebAccess.newToken(stateDir: stateDir), as: UTF8.self)
        #expect(new != old && new.count == 64)
        // The running server's WebAccess takes it at the next request.
        #expect(access.session(cookie) == nil)
        #expect(!access.tokenMatches(old))
        #expect(access.tokenMatches(new))
        #expect(access.session(try login(access).value) != nil)
        // Nothing the old key made can pass, so the list of ended sessions went with it.
        #expect(!FileManager.default.fileExists(atPath: stateDir + "/" + WebAccess.endedFileName))
        // And web-url without --new-token prints the new one.
        #expect(try WebAccess.token(stateDir: stateDir) == Array(new.utf8))
    }
}
