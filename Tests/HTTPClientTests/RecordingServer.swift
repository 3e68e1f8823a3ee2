import Foundation
import Glibc

/// A real HTTP server on 127.0.0.1 (Python's http.server in a child process) that prints each POST
/// it answered as a JSON line, so a test sees exactly what went over the wire. The
/// answer depends on the path: /ok 200, /fail 500, /big 200 with 100 000 bytes, /hang never, else 404.
final class RecordingServer {
    struct Received: Decodable {
        let path: String
        let headers: [[String]]
        let body: String

        var bytes: [UInt8] { [UInt8](Data(base64Encoded: body) ?? Data()) }
        func values(_ name: String) -> [String] {
            headers.filter { $0[0].lowercased() == name.lowercased() }.map { $0[1] }
        }
    }

    private static let script = #"""
        import base64, json, signal, socket, sys, threading, time
        from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
        # Started from a swift-testing worker thread, the server inherits its blocked signals
        # (SIGTERM among them): unblock them all, or terminate() would never end it.
        signal.pthread_sigmask(signal.SIG_SETMASK, set())
        lock = threading.Lock()
        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers.get('Content-Length', 0)))
                if self.path == '/hang':
                    time.sleep(600)
                    return
                answers = {'/ok': (200, b'accepted'), '/fail': (500, b'broken'),
                           '/big': (200, bytes(i % 251 for i in range(100000)))}
                status, answer = answers.get(self.path, (404, b'missing'))
                self.send_response(status)
                self.send_header('Content-Length', str(len(answer)))
                self.end_headers()
                self.wfile.write(answer)
                self.wfile.flush()
                # After answering: a long line fills the pipe until the test, back from its post, reads it.
                with lock:
                    print(json.dumps({'path': self.path, 'headers': self.headers.items(),
                                      'body': base64.b64encode(body).decode()}), flush=True)
            def log_message(self, *args):
                pass
        closed = socket.socket()
        closed.bind(('127.0.0.1', 0))
        closed_port = closed.getsockname()[1]
        closed.close()
        server = ThreadingHTTPServer(('127.0.0.1', 0), Handler)
        print(server.server_address[1], closed_port, flush=True)
        server.serve_forever()
        """#

    private let process = Process()
    private let output = Pipe()
    private var pending: [UInt8] = []
    /// The server's port, and one that was free a moment ago, where nothing listens.
    private(set) var port = 0
    private(set) var closedPort = 0

    init() throws {
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = ["-c", Self.script]
        process.standardOutput = output
        try process.run()
        do {
            let ports = try line().split(separator: " ").compactMap { Int($0) }
            guard ports.count == 2 else { throw Failure(description: "the server printed no ports") }
            (port, closedPort) = (ports[0], ports[1])
        } catch {
            stop() // no test will own a server that failed to start: end it here
            throw error
        }
    }

    func url(_ path: String) -> String { "http://127.0.0.1:\(port)\(path)" }

    /// The next request the server recorded.
    func received() throws -> Received {
        try JSONDecoder().decode(Received.self, from: Data(line().utf8))
    }

    /// Ends the server and waits for it; the test suite calls this when its test is done. SIGTERM
    /// first, SIGKILL if the server is still there after 5 s (it cannot block that one).
    func stop() {
        guard process.isRunning else { return }
        process.terminate()
        let deadline = Date().addingTimeInterval(5)
        while process.isRunning && Date() < deadline { usleep(10_000) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }

    struct Failure: Error, CustomStringConvertible { var description: String }

    /// The server's next line of output, waiting at most 10 s for any of it. The wait starts again
    /// whenever some arrives: a request's 2 MB line can take longer than that to come through
    /// whole on a machine busy with every other test, and the server is still saying something.
    private func line() throws -> String {
        let descriptor = output.fileHandleForReading.fileDescriptor
        var deadline = Date().addingTimeInterval(10)
        while true {
            if let end = pending.firstIndex(of: UInt8(ascii: "\n")) {
                defer { pending.removeSubrange(...end) }
                return String(decoding: pending[..<end], as: UTF8.self)
            }
            var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            let left = Int32(max(0, deadline.timeIntervalSinceNow) * 1000)
            guard left > 0, poll(&poller, 1, left) > 0 else { throw Failure(description: "the server said nothing for 10 s") }
            var chunk = [UInt8](repeating: 0, count: 65536)
            let count = read(descriptor, &chunk, chunk.count)
            guard count > 0 else { throw Failure(description: "the server's output ended") }
            pending += chunk[..<count]
            deadline = Date().addingTimeInterval(10)
        }
    }
}
