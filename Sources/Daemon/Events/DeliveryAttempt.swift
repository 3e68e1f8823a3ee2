import Foundation
import Hashing
import HTTPClient
import TrapperCore

/// One try at handing an event to a subscriber, and what came of it.
enum DeliveryAttempt {
    enum Result: Equatable {
        /// A 2xx answer, or the command exited 0.
        case delivered(String)
        /// Worth trying again later: no connection, a timeout, 408, 429, 5xx, a command that failed.
        case retry(String)
        /// Trying again cannot help (another 4xx, a redirect, a command's "bad input" exit): kept in failed/.
        case refused(String)
    }

    static func run(_ body: [UInt8], to subscriber: Subscriber, log: any EventLog) -> Result {
        switch subscriber.delivery {
        case .url(let url): post(body, url, subscriber)
        case .command(let command): HookCommand.run(command, body: body, subscriber: subscriber, log: log)
        }
    }

    /// The headers of a webhook: JSON, the event's key (the same on every retry), its kind, and the
    /// signature when a secret is set; then the subscriber's own.
    static func headers(_ body: [UInt8], _ subscriber: Subscriber) -> [(String, String)] {
        let event = try? OutboundEvent(body: body)
        var headers = [("Content-Type", "application/json"), ("Idempotency-Key", event?.key ?? ""),
                       ("X-PDFTrapper-Event", event?.event.rawValue ?? "")]
        if let secret = subscriber.secret {
            let mac = MessageAuthentication.hmacSHA256(key: Array(secret.utf8), message: body)
            headers.append(("X-PDFTrapper-Signature", "sha256=" + SHA256.hex(mac)))
        }
        return headers + subscriber.headers
    }

    private static func post(_ body: [UInt8], _ url: String, _ subscriber: Subscriber) -> Result {
        let request = HTTPPost(url: url, body: body, headers: headers(body, subscriber), timeoutSeconds: subscriber.timeoutSeconds,
                               connectTimeoutSeconds: min(subscriber.timeoutSeconds, 10), verifyTLS: subscriber.verifyTLS)
        switch WebhookPoster.post(request) {
        case .failure(let failure):
            return .retry("\(failure)")
        case .success(let answer):
            let said = "HTTP \(answer.status)" + Self.excerpt(answer.body)
            switch answer.status {
            case 200..<300: return .delivered(said)
            case 408, 429, 500...: return .retry(said)
            default: return .refused(said)
            }
        }
    }

    /// The start of an answer's body, on one line, for the log and failed/.
    static func excerpt(_ body: [UInt8]) -> String {
        let text = String(decoding: body.prefix(300), as: UTF8.self).oneLine.trimmingCharacters(in: .whitespaces)
        return text.isEmpty ? "" : ": " + text
    }
}
