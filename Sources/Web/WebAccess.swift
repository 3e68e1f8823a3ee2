import Daemon
import Foundation
import Glibc
import Hashing
import System
import TrapperCore

/// Who may come in. A random token in the state folder (`web-token`, mode 0600) opens the door:
/// `/login?token=` starts a session, a cookie that carries its issue time and an id of its own,
/// authenticated by an HMAC keyed by the token. A session lasts `web.session_days`; Log out ends
/// one (its id goes on the list in `web-sessions-ended`, which outlives a restart); a new token
/// ends them all, since the key changes. Every other request needs a live session; every POST
/// also needs a header no cross-origin page can send; and the Host header must be the listen
/// address or one the config names (so a DNS-rebound name reaches nothing).
public final class WebAccess: @unchecked Sendable {
    public static let tokenFileName = "web-token"
    public static let endedFileName = "web-sessions-ended"
    public static let cookieName = "pdftrapper_session"
    public static let csrfHeader = "X-PDFTrapper-CSRF"
    /// How far past this machine's clock an issue time may lie (the clock was stepped back a little).
    static let clockSlack = 300.0

    let hosts: Set<String>
    let tokenPath: String
    /// How long a session lasts from its issue time, in seconds.
    let sessionSeconds: Double
    let ended: EndedSessions
    /// The time now; a test's clock in the unit tests.
    private let now: @Sendable () -> Date
    private let lock = NSLock()
    /// The token as last read, and the state of its file then.
    private var read: (identity: String, token: [UInt8])?

    /// One login: its issue time (whole seconds since 1970) and 16 random bytes of its own in hex,
    /// so that each login is a session that can be ended alone.
    public struct Session: Sendable, Hashable {
        public let issued: Int64
        public let id: String
    }

    /// Reads the token, making it on first use.
    public convenience init(config: Config, now: @escaping @Sendable () -> Date = Date.init) throws {
        try self.init(config: config, now: now, endedLimit: EndedSessions.defaultLimit)
    }

    /// With at most `endedLimit` ended sessions listed one by one (a test's small number).
    init(config: Config, now: @escaping @Sendable () -> Date, endedLimit: Int) throws {
        tokenPath = config.daemon.stateDir + "/" + Self.tokenFileName
        let web = config.web ?? WebSettings()
        hosts = Self.allowedHosts(web)
        sessionSeconds = web.sessionDays * 86400
        ended = EndedSessions(path: config.daemon.stateDir + "/" + Self.endedFileName, limit: endedLimit)
        self.now = now
        _ = try Self.token(stateDir: config.daemon.stateDir)
    }

    /// The token in force: the file is looked at on every request, so that replacing it (`web-url
    /// --new-token`) or deleting it ends every session at once; nil while there is none.
    var token: [UInt8]? {
        lock.lock()
        defer { lock.unlock() }
        guard let identity = fileIdentity(tokenPath) else {
            read = nil
            return nil
        }
        if let read, read.identity == identity { return read.token }
        guard let data = FileManager.default.contents(atPath: tokenPath),
              let text = String(data: data, encoding: .utf8)?.trimmingCharacters(in: .whitespacesAndNewlines), text.count == 64 else {
            return nil
        }
        read = (identity, Array(text.utf8))
        return read?.token
    }

    /// The token in `STATE/web-token`, written once with 32 random bytes (mode 0600, fsynced).
    public static func token(stateDir: String) throws(Durable.Failure) -> [UInt8] {
        let path = stateDir + "/" + tokenFileName
        if let data = FileManager.default.contents(atPath: path),
           let text = String(data: data, encoding: .utf8)?.trimmingCharacters(in: .whitespacesAndNewlines), text.count == 64 {
            return Array(text.utf8)
        }
        return try writeToken(stateDir: stateDir)
    }

    /// A new token in place of the old one: every session made with the old one is refused from the
    /// next request on (their HMAC key is gone), so the list of ended ones is emptied too.
    public static func newToken(stateDir: String) throws(Durable.Failure) -> [UInt8] {
        let token = try writeToken(stateDir: stateDir)
        try Durable.remove(stateDir + "/" + endedFileName)
        return token
    }

    private static func writeToken(stateDir: String) throws(Durable.Failure) -> [UInt8] {
        let path = stateDir + "/" + tokenFileName
        try Durable.makeFolder(stateDir)
        let hex = SHA256.hex(randomBytes(32))
        try writePrivate(path, Data((hex + "\n").utf8))
        return Array(hex.utf8)
    }

    /// Replaces `path` with `data`, readable by this user alone (mode 0600, fsynced).
    static func writePrivate(_ path: String, _ data: Data) throws(Durable.Failure) {
        try Durable.replace(path, with: data, mode: 0o600)
    }

    static func randomBytes(_ count: Int) -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        return (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }
    }

    /// What `pdftrapper web-url` prints; with `newToken`, after replacing the token.
    public static func loginURL(config: Config, newToken: Bool = false) throws -> String {
        let web = config.web ?? WebSettings()
        let stateDir = config.daemon.stateDir
        let token = String(decoding: newToken ? try Self.newToken(stateDir: stateDir) : try token(stateDir: stateDir), as: UTF8.self)
        switch web.listen {
        case .tcp: return "http://\(web.listen)/login?token=\(token)"
        case .socket(let path):
            let host = web.hosts.first ?? "localhost"
            return "http://\(host)/login?token=\(token)  (through the proxy in front of \(path))"
        }
    }

    static func allowedHosts(_ web: WebSettings) -> Set<String> {
        var hosts = Set(web.hosts.map { $0.lowercased() })
        if case .tcp(let host, let port) = web.listen {
            hosts.insert(web.listen.description.lowercased())
            if host == "127.0.0.1" || host == "localhost" { hosts.insert("localhost:\(port)") }
            if host == "::1" { hosts.insert("localhost:\(port)") }
        } else {
            hosts.insert("localhost")
        }
        return hosts
    }

    // MARK: checks

    public func hostAllowed(_ host: String?) -> Bool {
        guard let host else { return false }
        return hosts.contains(host.lowercased())
    }

    public func tokenMatches(_ given: String?) -> Bool {
        guard let given, let token else { return false }
        return MessageAuthentication.equal(Array(given.utf8), token)
    }

    // MARK: sessions

    /// The cookie's value: `ISSUED.ID.MAC`, the MAC the token's HMAC of the other two, in hex.
    func cookieValue(_ session: Session, token: [UInt8]) -> String {
        "\(session.issued).\(session.id).\(mac(session, token: token))"
    }

    private func mac(_ session: Session, token: [UInt8]) -> String {
        SHA256.hex(MessageAuthentication.hmacSHA256(key: token, message: Array("pdftrapper workspace session v2 \(session.issued) \(session.id)".utf8)))
    }

    /// The live session a cookie holds: made with the token in force, younger than
    /// `web.session_days`, not ended by Log out. Nil for anything else.
    public func session(_ cookie: String?) -> Session? {
        guard let cookie, let token else { return nil }
        let parts = cookie.split(separator: ".", omittingEmptySubsequences: false)
        // Only the form this code writes: digits as `String(issued)` spells them, 32 and 64 hex digits.
        guard parts.count == 3, parts[0].count <= 15, let issued = Int64(parts[0]), String(issued) == parts[0],
              parts[1].count == 32, parts[1].utf8.allSatisfy({ (48...57).contains($0) || (97...102).contains($0) }) else { return nil }
        let session = Session(issued: issued, id: String(parts[1]))
        guard MessageAuthentication.equal(Array(parts[2].utf8), Array(mac(session, token: token).utf8)) else { return nil }
        let age = now().timeIntervalSince1970 - Double(issued)
        guard age < sessionSeconds, age > -Self.clockSlack, !ended.contains(session) else { return nil }
        return session
    }

    /// The whole seconds a new session lasts, for the cookie's Max-Age.
    var maxAge: Int { Int(sessionSeconds.rounded(.up)) }

    /// The Set-Cookie value of a new session issued now; nil while there is no token.
    public func newSessionCookie() -> String? {
        guard let token else { return nil }
        let session = Session(issued: Int64(now().timeIntervalSince1970.rounded(.down)), id: SHA256.hex(Self.randomBytes(16)))
        return "\(Self.cookieName)=\(cookieValue(session, token: token)); Max-Age=\(maxAge); HttpOnly; SameSite=Strict; Path=/"
    }

    /// The Set-Cookie value that makes a browser forget its session.
    public static let forgetCookie = "\(cookieName)=; Max-Age=0; HttpOnly; SameSite=Strict; Path=/"

    /// Log out: `session` is refused from now on, by this process and any later one.
    public func end(_ session: Session) throws(Durable.Failure) {
        try ended.add(session, now: now().timeIntervalSince1970, lifetime: sessionSeconds)
    }
}

/// The sessions Log out ended before their time, in `STATE/web-sessions-ended` (mode 0600): a line
/// `ISSUED ID` each, and perhaps `before T`, which ends every session issued at T or earlier. Read
/// again whenever the file changes, so a restart (or a reload's new workspace) refuses them too.
/// Bounded: an entry goes once its session would have expired anyway, and past `limit` entries the
/// oldest are folded into `before` (sessions issued by then and not ended end early; none lives on).
final class EndedSessions: @unchecked Sendable {
    static let defaultLimit = 1000

    struct List: Equatable {
        var before: Int64 = 0
        var ids: [String: Int64] = [:]
    }

    let path: String
    let limit: Int
    private let lock = NSLock()
    /// The list as last read or written, and its file's identity then (nil: there was no file).
    private var read: (identity: String?, list: List)?

    init(path: String, limit: Int) {
        self.path = path
        self.limit = limit
    }

    /// Whether `session` was ended; true when the list cannot be read (no session can be told apart then).
    func contains(_ session: WebAccess.Session) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        guard let list = try? current() else { return true }
        return session.issued <= list.before || list.ids[session.id] != nil
    }

    /// Ends `session`, dropping the entries that have expired by `now` (seconds since 1970).
    func add(_ session: WebAccess.Session, now: Double, lifetime: Double) throws(Durable.Failure) {
        lock.lock()
        defer { lock.unlock() }
        var list = try current()
        let expired = { (issued: Int64) in now - Double(issued) >= lifetime }
        list.ids = list.ids.filter { !expired($0.value) }
        if expired(list.before) { list.before = 0 }
        list.ids[session.id] = session.issued
        if list.ids.count > limit {
            let oldest = list.ids.sorted { ($0.value, $0.key) < ($1.value, $1.key) }.prefix(list.ids.count - limit)
            list.before = max(list.before, oldest.last!.value)
        }
        let before = list.before
        list.ids = list.ids.filter { $0.value > before }
        try WebAccess.writePrivate(path, Data(Self.text(list).utf8))
        read = (fileIdentity(path), list)
    }

    private func current() throws(Durable.Failure) -> List {
        let identity = fileIdentity(path)
        if let read, read.identity == identity { return read.list }
        var list = List()
        if identity != nil {
            guard let data = FileManager.default.contents(atPath: path) else {
                // Gone between the two looks: none is ended; unreadable: no answer can be trusted.
                if fileIdentity(path) == nil { return list }
                throw Durable.Failure(step: "read", path: path, code: EACCES)
            }
            list = Self.list(String(decoding: data, as: UTF8.self))
        }
        read = (identity, list)
        return list
    }

    static func list(_ text: String) -> List {
        var list = List()
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            let fields = line.split(separator: " ")
            guard fields.count == 2 else { continue }
            if fields[0] == "before", let issued = Int64(fields[1]) {
                list.before = max(list.before, issued)
            } else if let issued = Int64(fields[0]) {
                list.ids[String(fields[1])] = issued
            }
        }
        return list
    }

    static func text(_ list: List) -> String {
        var lines = ["# Workspace sessions ended by Log out, kept until they would have expired: ISSUED ID a line;",
                     "# \"before T\" ends every session issued at T or earlier."]
        if list.before > 0 { lines.append("before \(list.before)") }
        lines += list.ids.sorted { ($0.value, $0.key) < ($1.value, $1.key) }.map { "\($0.value) \($0.key)" }
        return lines.joined(separator: "\n") + "\n"
    }
}
