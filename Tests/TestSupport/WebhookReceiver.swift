import Foundation
import Glibc

/// The webhook receiver of Tests/Fixtures/webhook-receiver/receiver.py, running on 127.0.0.1:
/// it answers by path (/ok, /flaky, /hang, /gone, /slow) and records every request it got,
/// checking each signature itself with Python's hmac.
public final class WebhookReceiver {
    public struct Request: Decodable, Sendable {
        public var path: String
        public var headers: [String: String]
        public var body: String
        public var signatureOK: Bool
        public var status: Int
        public var time: Double

        enum CodingKeys: String, CodingKey { case path, headers, body, signatureOK = "signature_ok", status, time }

        /// The event, as JSON.
        public var event: [String: Any] {
            (try? JSONSerialization.jsonObject(with: Data(body.utf8))) as? [String: Any] ?? [:]
        }
        public var key: String { headers["idempotency-key"] ?? "" }
    }

    public static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/webhook-receiver/receiver.py").path

    public let port: Int
    public let logFile: String
    private let scheme: String
    private let process = Process()

    /// `port`: 0 for any free one; a fixed one to come back on after being down. `tls`: a
    /// certificate and its key (PEM files), for HTTPS.
    public init(port: Int = 0, secret: String = "", hang: Double = 30, slow: Double = 2, logFile: String? = nil,
                tls: (certificate: String, key: String)? = nil) throws {
        scheme = tls == nil ? "http" : "https"
        self.logFile = logFile ?? FileManager.default.temporaryDirectory
            .appendingPathComponent("receiver-\(UUID().uuidString.prefix(8)).jsonl").path
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = [Self.script, "--port", "\(port)", "--log", self.logFile, "--secret", secret,
                             "--hang", "\(hang)", "--slow", "\(slow)"]
            + (tls.map { ["--cert", $0.certificate, "--key", $0.key] } ?? [])
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        // The first line is the port, once it listens.
        var line = Data()
        while let byte = try output.fileHandleForReading.read(upToCount: 1), !byte.isEmpty, byte != Data("\n".utf8) {
            line.append(byte)
        }
        guard let number = Int(String(decoding: line, as: UTF8.self)) else {
            process.terminate()
            throw POSIXError(.EADDRINUSE)
        }
        self.port = number
    }

    deinit { stop() }

    public func url(_ path: String) -> String { "\(scheme)://127.0.0.1:\(port)\(path)" }

    public func stop() {
        guard process.isRunning else { return }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    public var requests: [Request] {
        guard let text = try? String(contentsOfFile: logFile, encoding: .utf8) else { return [] }
        return text.split(separator: "\n").compactMap { try? JSONDecoder().decode(Request.self, from: Data($0.utf8)) }
    }

    /// A port nobody listens on now (bound, read, released): for a receiver that comes up later.
    public static func freePort() -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                bind(fd, pointer, length) == 0 ? getsockname(fd, pointer, &length) : -1
            }
        }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}
