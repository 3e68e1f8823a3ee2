/// One webhook delivery: a POST of `body` to `url`. The timeouts bound the whole transfer and its
/// connection, so a stuck receiver costs the daemon seconds, not a thread.
public struct HTTPPost: Sendable {
    public var url: String
    public var body: [UInt8]
    /// Sent in this order, as given; curl adds Host, Content-Length, User-Agent and Accept.
    public var headers: [(String, String)]
    public var timeoutSeconds: Double
    public var connectTimeoutSeconds: Double
    /// Off only for a receiver with a self-signed certificate the user chose to trust.
    public var verifyTLS: Bool

    public init(url: String, body: [UInt8], headers: [(String, String)] = [], timeoutSeconds: Double = 10,
                connectTimeoutSeconds: Double = 5, verifyTLS: Bool = true) {
        self.url = url
        self.body = body
        self.headers = headers
        self.timeoutSeconds = timeoutSeconds
        self.connectTimeoutSeconds = connectTimeoutSeconds
        self.verifyTLS = verifyTLS
    }
}
