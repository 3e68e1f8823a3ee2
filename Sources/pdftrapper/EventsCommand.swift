import Daemon
import Foundation
import TrapperCore

/// `pdftrapper events`: what the outbox still holds, and sending the refused ones again.
enum EventsCommand: Command {
    static let name = "events"
    static let summary = "List the events waiting for delivery or refused; --retry sends the refused ones again."
    static let synopsis = "events [--config FILE] [--retry] [--json]"
    static let details = """
    Every revision, quarantine, failed scan, start and stop is written to the outbox in the state
    folder before the job that made it is done, and the daemon delivers it to the [[notify]]
    subscribers that asked for it, retrying with backoff. This lists, per subscriber, the events
    still pending (not yet answered with 2xx or exit 0) and those refused for good (a 4xx answer
    other than 408 and 429, a redirect, or a command exiting 64 to 78 but 75), with the answer.

    --retry moves the refused events back to pending, unchanged: the same bytes and the same
    Idempotency-Key. The running daemon sends them within a second.
    --json prints one JSON object per line: subscriber, state, path, answer and the event.
    """
    static let arguments = ArgumentSpec(flags: ["--retry", "--json"], options: ["--config"])

    static func run(_ arguments: ParsedArguments, _ context: CommandContext) -> ExitCode {
        guard arguments.positionals.isEmpty else {
            context.err("pdftrapper events: takes no arguments\nusage: pdftrapper \(synopsis)")
            return .usage
        }
        let config: Config
        switch context.loadConfig(arguments.options["--config"].map(context.absolute)) {
        case .failure(let code): return code
        case .success(let loaded): config = loaded
        }
        let outbox: EventOutbox
        do {
            outbox = try EventOutbox(folder: EventOutbox.folder(config), subscribers: config.notify, libraryRoot: config.library.root)
        } catch {
            context.err("pdftrapper events: \(error)")
            return .cantCreate
        }
        if arguments.has("--retry") {
            do {
                let moved = try outbox.retryFailed()
                context.out(moved == 0 ? "no refused events to send again" : "\(moved) refused event\(moved == 1 ? "" : "s") "
                            + "back in \(outbox.folder)/pending, sent again by the running daemon")
            } catch {
                context.err("pdftrapper events: \(error)")
                return .cantCreate
            }
            return .ok
        }
        let configured = Set(config.notify.map(\.name))
        let listed = outbox.pending().map { ("pending", $0) } + outbox.failed().map { ("failed", $0) }
        if arguments.has("--json") {
            for (state, entry) in listed { context.out(json(state, entry)) }
            return .ok
        }
        if listed.isEmpty {
            context.out(config.notify.isEmpty ? "no [[notify]] subscribers in \(config.file), and nothing in the outbox"
                        : "nothing pending: every event was delivered")
            return .ok
        }
        for (state, entry) in listed {
            let event = entry.event
            var line = "\(state)  \(entry.subscriber)  \(event?.event.rawValue ?? "?")  \(event?.time ?? "?")  "
                + (event?.summary ?? entry.path)
            if !configured.contains(entry.subscriber) { line += "  (no such subscriber in the config now)" }
            if let answer = entry.answer { line += "\n         answered: \(answer.oneLine)" }
            context.out(line)
        }
        return .ok
    }

    private static func json(_ state: String, _ entry: EventOutbox.Entry) -> String {
        var object: [String: Any] = ["subscriber": entry.subscriber, "state": state, "path": entry.path]
        if let answer = entry.answer { object["answer"] = answer }
        if let body = entry.event?.body, let event = try? JSONSerialization.jsonObject(with: Data(body)) { object["event"] = event }
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data()
        return String(decoding: data, as: UTF8.self)
    }
}
