import Foundation
import Glibc
import System
import TrapperCore

/// What a scanner agent tells the process that started it, one line each on its stdout. The
/// daemon's agent says the first four; the agent of one `pdftrapper scan` says the others.
public enum AgentMessage: Sendable {
    /// `alive`: after every round of polls.
    case alive
    /// `status TEXT`: what it is doing, for systemd's STATUS=.
    case status(String)
    /// `idle`: a scan ended (with a batch, or without: an empty feeder, a failure).
    case idle
    /// `batch FOLDER`: a whole batch is in the spool, released for the parent to append.
    case batch(String)
    /// `device NAME`: the device it opened (a profile may name a pattern, or none).
    case device(String)
    /// `step TEXT`: what it does next, a SANE call and its page (`sane_read (page 2)`): where it
    /// was when it goes quiet.
    case step(String)
    /// `spooling FOLDER`: its batch is begun there; a batch the scan does not finish is quarantined.
    case spooling(String)
    /// `page N BYTES SECONDS`: a page is read.
    case page(ScanCapture.Progress)
    /// `trouble CODE TEXT`: a SANE call failed, said before the scan is cancelled (which can hang).
    case trouble(ExitCode, String)
    /// `failed CODE TEXT`: the scan ended with no batch to append; its batch, if begun, is released.
    case failed(ExitCode, String)
    /// `scanned TEXT`: what the batch holds (`3 pages from tiny:0 (ADF, Gray, 50 dpi)`), before its `batch`.
    case scanned(String)

    /// The line, without its newline: one line whatever the text holds.
    var line: String {
        let text = switch self {
        case .alive: "alive"
        case .status(let text): "status " + text
        case .idle: "idle"
        case .batch(let folder): "batch " + folder
        case .device(let name): "device " + name
        case .step(let text): "step " + text
        case .spooling(let folder): "spooling " + folder
        case .page(let progress): "page \(progress.page) \(progress.bytes) \(progress.seconds)"
        case .trouble(let code, let text): "trouble \(code.rawValue) " + text
        case .failed(let code, let text): "failed \(code.rawValue) " + text
        case .scanned(let text): "scanned " + text
        }
        return text.replacingOccurrences(of: "\n", with: " ")
    }

    /// The message a line says; nil for a line no agent writes.
    init?(line: String) {
        let word = line.prefix { $0 != " " }
        let rest = String(line.dropFirst(word.count + 1))
        func coded(_ make: (ExitCode, String) -> AgentMessage) -> AgentMessage? {
            let number = rest.prefix { $0 != " " }
            guard let raw = Int32(number), let code = ExitCode(rawValue: raw) else { return nil }
            return make(code, String(rest.dropFirst(number.count + 1)))
        }
        let message: AgentMessage? = switch word {
        case "alive": .alive
        case "status": .status(rest)
        case "idle": .idle
        case "batch": .batch(rest)
        case "device": .device(rest)
        case "step": .step(rest)
        case "spooling": .spooling(rest)
        case "scanned": .scanned(rest)
        case "trouble": coded(AgentMessage.trouble)
        case "failed": coded(AgentMessage.failed)
        case "page":
            { () -> AgentMessage? in
                let fields = rest.split(separator: " ")
                guard fields.count == 3, let page = Int(fields[0]), let bytes = Int(fields[1]),
                      let seconds = Double(fields[2]) else { return nil }
                return .page(ScanCapture.Progress(page: page, bytes: bytes, seconds: seconds))
            }()
        default: nil
        }
        guard let message else { return nil }
        self = message
    }

    /// Writes the line on stdout; a parent that went away ends the agent (SIGPIPE is ignored, so
    /// the write fails with EPIPE). One write(2) of less than PIPE_BUF: lines never interleave.
    static func say(_ message: AgentMessage) {
        let text = message.line + "\n"
        let written = text.withCString { write(STDOUT_FILENO, $0, strlen($0)) }
        if written < 0 && errno == EPIPE { exit(0) }
    }
}

/// A running `pdftrapper scanner-agent`, started the one way both its parents start it (the
/// daemon's ScannerSupervisor, and `pdftrapper scan`): in a process group of its own, so that
/// ending it ends whatever a backend started too; its stdout on a pipe that is read without ever
/// blocking; without systemd's variables, as the agent is no service of its own.
final class ScannerAgentProcess {
    typealias Ending = ChildProcess.Ending
    typealias StartFailure = ChildProcess.StartFailure

    private let child: ChildProcess
    private let output: Int32
    private var pending = Data()
    /// When it last said anything (bytes, whole line or not).
    private(set) var lastHeard: Date

    var pid: pid_t { child.pid }

    private init(_ child: ChildProcess) {
        self.child = child
        output = child.output!
        lastHeard = Date()
    }

    deinit { close(output) }

    /// Starts `executable scanner-agent ARGUMENTS...`.
    static func start(executable: String, arguments: [String], environment: [String: String])
        throws(StartFailure) -> ScannerAgentProcess
    {
        // Without systemd's variables: the agent is no service of its own.
        let child = try ChildProcess.start(executable, arguments: ["scanner-agent"] + arguments,
                                           environment: environment.filter { !ServiceNotifier.variables.contains($0.key) },
                                           output: .pipe)
        _ = fcntl(child.output!, F_SETFL, fcntl(child.output!, F_GETFL) | O_NONBLOCK)
        return ScannerAgentProcess(child)
    }

    /// What it said since the last call, whole lines only.
    func messages(now: Date = Date()) -> [AgentMessage] {
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = read(output, &buffer, buffer.count)
            guard count > 0 else { break }
            pending.append(contentsOf: buffer[0..<count])
            lastHeard = now
        }
        var messages: [AgentMessage] = []
        while let newline = pending.firstIndex(of: 0x0A) {
            let line = String(decoding: pending[pending.startIndex..<newline], as: UTF8.self)
            pending.removeSubrange(pending.startIndex...newline)
            if let message = AgentMessage(line: line) { messages.append(message) }
        }
        return messages
    }

    /// Returns once it has something to say or `seconds` pass. Output closed while it still runs
    /// (a backend's helper ended, or the agent closed it) is a pause, not a busy loop.
    func awaitOutput(seconds: Double) {
        var watched = pollfd(fd: output, events: Int16(POLLIN), revents: 0)
        let ready = poll(&watched, 1, Int32(max(0, seconds) * 1000))
        if ready > 0 && watched.revents & Int16(POLLIN) == 0 { usleep(useconds_t(max(0, seconds) * 1_000_000)) }
    }

    /// How it ended, once it has; nil while it runs (what it started is killed with it).
    func ending() -> Ending? { child.ending() }

    /// SIGTERM: the agent stops between pages.
    func askToStop() { child.signal(SIGTERM) }

    /// SIGHUP: the agent reads the running config again between polls.
    func reload() { child.signal(SIGHUP) }

    /// SIGKILL to its whole process group (a helper a backend started too), then reaps it.
    @discardableResult
    func kill() -> Ending { child.kill() }
}
