/// What the receiver answered. Any status is an answer, a 3xx included (redirects are not
/// followed); whether it counts as delivered is the caller's call.
public struct HTTPAnswer: Sendable {
    public var status: Int
    /// The first 64 KiB of the answer's body at most: enough for a log line, and a receiver that
    /// answers with a stream cannot fill the daemon's memory.
    public var body: [UInt8]

    public init(status: Int, body: [UInt8]) {
        self.status = status
        self.body = body
    }
}
