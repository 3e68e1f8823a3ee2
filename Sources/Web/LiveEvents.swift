import Foundation
import HTTPServer

/// The workspace's live view: every revision and status change, as Server-Sent Events to each open
/// page (`GET /api/events`). Events are numbered; each stream sends those after the last it sent,
/// so one published while a stream was writing is sent next, not lost. A stream waits on the
/// condition with its own thread (libmicrohttpd gives each connection one) and says something every
/// 15 s, so that a client that went away is noticed.
final class LiveEvents: @unchecked Sendable {
    private let condition = NSCondition()
    private var recent: [(number: Int, text: String)] = []
    private var last = 0
    private var closed = false
    static let keep = 256
    static let keepAlive: TimeInterval = 15

    func publish(_ event: String, _ data: [String: Any]) {
        let json = (try? JSONSerialization.data(withJSONObject: data, options: [.sortedKeys])).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
        condition.lock()
        last += 1
        recent.append((last, "id: \(last)\nevent: \(event)\ndata: \(json)\n\n"))
        if recent.count > Self.keep { recent.removeFirst(recent.count - Self.keep) }
        condition.broadcast()
        condition.unlock()
    }

    /// Ends every stream (the server is stopping).
    func close() {
        condition.lock()
        closed = true
        condition.broadcast()
        condition.unlock()
    }

    /// A stream of what comes next; after a reconnect (the browser sends the last id it saw), of
    /// what it missed too, or a `reset` when that is no longer kept (the page then reloads what it shows).
    func stream(after seen: Int? = nil) -> HTTPStream {
        condition.lock()
        defer { condition.unlock() }
        guard let seen, seen <= last else { return Stream(events: self, after: last) }
        let oldest = recent.first?.number ?? last + 1
        return Stream(events: self, after: seen, reset: seen < oldest - 1)
    }

    /// What comes after event `number`: the events' text, a keep-alive comment after a quiet 15 s,
    /// or nil once closed.
    fileprivate func next(after number: Int, ended: () -> Bool) -> (text: String, last: Int)? {
        condition.lock()
        defer { condition.unlock() }
        let deadline = Date().addingTimeInterval(Self.keepAlive)
        while !closed, !ended(), last <= number {
            if !condition.wait(until: deadline) { return (": still here\n\n", number) }
        }
        if closed || ended() { return nil }
        let missed = recent.filter { $0.number > number }
        return (missed.map(\.text).joined(), last)
    }

    fileprivate func wake() {
        condition.lock()
        condition.broadcast()
        condition.unlock()
    }

    final class Stream: HTTPStream, @unchecked Sendable {
        let events: LiveEvents
        private var after: Int
        private var started = false
        private let lock = NSLock()
        private var isClosed = false

        private let reset: Bool

        init(events: LiveEvents, after: Int, reset: Bool = false) {
            self.events = events
            self.after = after
            self.reset = reset
        }

        func next() -> [UInt8]? {
            if !started {
                started = true
                // The browser reconnects after 2 s when the stream breaks.
                return Array(("retry: 2000\n: connected\n\n" + (reset ? "event: reset\ndata: {}\n\n" : "")).utf8)
            }
            guard let (text, last) = events.next(after: after, ended: { closedNow }) else { return nil }
            after = last
            return Array(text.utf8)
        }

        private var closedNow: Bool {
            lock.lock()
            defer { lock.unlock() }
            return isClosed
        }

        func close() {
            lock.lock()
            isClosed = true
            lock.unlock()
            events.wake()
        }
    }
}
