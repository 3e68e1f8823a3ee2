import Daemon
import Foundation
import Glibc
import Hashing
import TrapperCore

/// Who may come in. A random token in the state folder (`web-token`, mode 0600) opens the door
/// once: `/login?token=` sets a session cookie, which is the token's HMAC of a fixed label, so it
/// lasts across restarts and dies when the token file is replaced. Every other request needs that
/// cookie; every POST also needs a header no cross-origin page can send; and the Host header must
/// be the listen address or one the config names (so a DNS-rebound name reaches nothing).
public final class WebAccess: @unchecked Sendable {
    public static let tokenFileName = "web-token"
    public static let cookieName = "pdftrapper_session"
    public static let csrfHeader = "X-PDFTrapper-CSRF"

    let hosts: Set<String>
    let tokenPath: String
    private let lock = NSLock()
    /// The token as last read, and the state of its file then.
    private var read: (identity: String, token: [UInt8])?

    /// Reads the token, making it on first use.
    public init(config: Config) throws {
        tokenPath = config.daemon.stateDir + "/" + Self.tokenFileName
        hosts = Self.allowedHosts(config.web ?? WebSettings())
        _ = try Self.token(stateDir: config.daemon.stateDir)
    }

    /// The token in force: the file is looked at on every request, so deleting or replacing it
    /// ends every session at once; nil while there is none.
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
    public static func token(stateDir: String) throws -> [UInt8] {
        let path = stateDir + "/" + tokenFileName
        if let data = FileManager.default.contents(atPath: path),
           let text = String(data: data, encoding: .utf8)?.trimmingCharacters(in: .whitespacesAndNewlines), text.count == 64 {
            return Array(text.utf8)
        }
        try Durable.makeFolder(stateDir)
        var generator = SystemRandomNumberGenerator()
        let hex = (0..<32).map { _ in String(format: "%02x", UInt8.random(in: 0...255, using: &generator)) }.joined()
        let previous = umask(0o077)
        defer { umask(previous) }
        try Durable.replace(path, with: Data((hex + "\n").utf8))
        chmod(path, 0o600)
        return Array(hex.utf8)
    }

    /// What `pdftrapper web-url` prints.
    public static func loginURL(config: Config) throws -> String {
        let web = config.web ?? WebSettings()
        let token = String(decoding: try token(stateDir: config.daemon.stateDir), as: UTF8.self)
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

    /// The cookie's value: the token's HMAC of a label, in hex.
    func sessionValue(_ token: [UInt8]) -> String {
        MessageAuthentication.hmacSHA256(key: token, message: Array("pdftrapper workspace session v1".utf8))
            .map { String(format: "%02x", $0) }.joined()
    }

    public func sessionValid(_ cookie: String?) -> Bool {
        guard let cookie, let token else { return false }
        return MessageAuthentication.equal(Array(cookie.utf8), Array(sessionValue(token).utf8))
    }

    /// The Set-Cookie value that opens a session; nil while there is no token.
    public var sessionCookie: String? {
        token.map { "\(Self.cookieName)=\(sessionValue($0)); HttpOnly; SameSite=Strict; Path=/" }
    }
}
