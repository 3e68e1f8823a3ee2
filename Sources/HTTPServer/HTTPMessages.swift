/// One HTTP request, a plain value: what the server parsed (libmicrohttpd decodes the path, the
/// query arguments and the cookies), or what a test writes down. Header names are looked up
/// without regard to case; a value holding a NUL (`%00` decoded) is left out, as C would read
/// only its start. The body, when it has one, was read whole within the handler's limit.
public struct HTTPRequest: Sendable {
    public var method: String
    /// The decoded path ("/api/page"), without the query.
    public var path: String
    /// By lower-cased name; the first of repeated headers.
    public private(set) var headers: [String: String]
    public var queryArguments: [String: String]
    public var cookies: [String: String]
    public var body: [UInt8]

    public init(method: String, path: String, headers: [String: String] = [:], query: [String: String] = [:],
                cookies: [String: String] = [:], body: [UInt8] = []) {
        self.method = method
        self.path = path
        self.headers = [:]
        queryArguments = query
        self.cookies = cookies
        self.body = body
        for (name, value) in headers { setHeader(name, value) }
    }

    public func header(_ name: String) -> String? { headers[name.lowercased()] }
    public func query(_ name: String) -> String? { queryArguments[name] }
    public func cookie(_ name: String) -> String? { cookies[name] }

    /// Keeps the first value a name is given, as a lookup in the parsed request would find it.
    mutating func setHeader(_ name: String, _ value: String) {
        let key = name.lowercased()
        if headers[key] == nil { headers[key] = value }
    }
}

/// What goes back: a status, headers, and a body held whole or a stream that is written as it comes.
public struct HTTPResponse: Sendable {
    public enum Body: Sendable {
        case bytes([UInt8])
        /// Server-Sent Events and the like: read until it says it has ended.
        case stream(any HTTPStream)
    }

    public var status: Int
    public var headers: [(String, String)]
    public var body: Body

    public init(status: Int, headers: [(String, String)] = [], body: Body = .bytes([])) {
        self.status = status
        self.headers = headers
        self.body = body
    }
}

/// A body of unknown length. `next` may block (each connection has a thread of its own) and
/// returns the next bytes to send, or nil when the stream has ended.
public protocol HTTPStream: AnyObject, Sendable {
    func next() -> [UInt8]?
    /// The client went away, or the server is stopping.
    func close()
}

/// What the server asks of the program behind it.
public protocol HTTPHandler: Sendable {
    /// Looked at once the headers are in, before a byte of the body is read: an answer here (no
    /// session, too large, not found) ends the request unread. Nil reads the body, at most
    /// `bodyLimit` bytes, then calls `respond`, unless `upload` takes the body instead.
    func admit(_ request: HTTPRequest) -> HTTPResponse?
    var bodyLimit: Int { get }
    func respond(to request: HTTPRequest) -> HTTPResponse
    /// For an admitted request whose body is a file to keep: the body goes to it piece by piece as
    /// it arrives, never held whole (`bodyLimit` does not apply; the upload keeps its own limits).
    func upload(for request: HTTPRequest) -> (any HTTPUpload)?
}

extension HTTPHandler {
    public func upload(for request: HTTPRequest) -> (any HTTPUpload)? { nil }
}

/// A request body written somewhere as it arrives (a photo from a phone into the inbox).
public protocol HTTPUpload: AnyObject {
    /// The next piece of the body; an answer refuses the upload there (the rest is read and dropped).
    func receive(_ bytes: UnsafeRawBufferPointer) -> HTTPResponse?
    /// The whole body is in: what it became.
    func finish() -> HTTPResponse
    /// Refused, or the client went away before the end: whatever was written goes.
    func abandon()
}

