import Foundation
import Glibc
import System
import TrapperCore

/// What the supervisor needs of a running scanner agent: `ScannerAgentProcess`, or a test's
/// stand-in that dies, hangs or talks on cue.
protocol ScannerAgentHandle: AnyObject {
    /// What it said since the last call, whole lines only.
    func messages(now: Date) -> [AgentMessage]
    /// When it last said anything.
    var lastHeard: Date { get }
    /// How it ended, once it has; nil while it runs.
    func ending() -> ChildProcess.Ending?
    /// SIGHUP: it reads the running config again between polls.
    func reload()
    /// SIGTERM: it stops between pages.
    func askToStop()
    /// Ends it at once, with whatever it started.
    @discardableResult
    func kill() -> ChildProcess.Ending
}

extension ScannerAgentProcess: ScannerAgentHandle {}

/// The daemon's side of the scanner agent: starts `pdftrapper scanner-agent` when the config has
/// `[[scanner]]` entries, reads what it says without ever blocking, and restarts it (1 s, 2 s, ... up
/// to 60 s apart) when it exits, or kills it when it has said nothing for `stallSeconds` (a backend
/// that hung). Batches it reports are handed to the daemon's loop, which appends them between
/// inbox jobs, so a scan and an inbox file never write one target at the same time.
///
/// Its clock and the way it starts an agent are ports: the daemon gives the system clock and
/// `ScannerAgentProcess.start`; a test gives a clock it moves by hand and agents it scripts.
final class ScannerSupervisor {
    /// Starts an agent with these arguments (after `scanner-agent`).
    typealias Launch = ([String]) throws -> any ScannerAgentHandle

    private let configPath: String
    private let launch: Launch
    private let clock: any Clock
    private let log: (LogLevel, String) -> Void
    private var agent: (any ScannerAgentHandle)?
    private var started: Date
    private var restartAt: Date?
    private var restartDelay: TimeInterval = 1

    /// A page at 1200 dpi on a slow flatbed stays well under this; a hung backend does not.
    static let stallSeconds: TimeInterval = 300
    /// How long an agent asked to stop has before it is killed.
    static let stopSeconds: TimeInterval = 10

    enum Event: Equatable {
        case status(String)
        case idle
        case batch(String)
    }

    /// The daemon's snapshot of the config it runs, which the agent reads instead of the file.
    var runningConfig: String?

    init(configPath: String, clock: any Clock, launch: @escaping Launch, log: @escaping (LogLevel, String) -> Void) {
        self.configPath = configPath
        self.clock = clock
        self.launch = launch
        self.log = log
        started = clock.now()
    }

    /// The real one: `executable scanner-agent` as a child process.
    convenience init(executable: String, configPath: String, environment: [String: String], clock: any Clock = SystemClock(),
                     log: @escaping (LogLevel, String) -> Void) {
        self.init(configPath: configPath, clock: clock, launch: { arguments in
            try ScannerAgentProcess.start(executable: executable, arguments: arguments, environment: environment)
        }, log: log)
    }

    deinit { stop() }

    var isRunning: Bool { agent != nil }

    func start() {
        do {
            agent = try launch(["--config", configPath] + (runningConfig.map { ["--running-config", $0] } ?? []))
        } catch {
            log(.error, "pdftrapper: scanner agent: \(error)")
            scheduleRestart(clock.now())
            return
        }
        started = clock.now()
        restartAt = nil
    }

    /// What the agent said since the last call; restarts it when it died or hung.
    func events() -> [Event] {
        let now = clock.now()
        guard let agent else {
            if let restartAt, now >= restartAt { start() }
            return []
        }
        let events: [Event] = agent.messages(now: now).compactMap { message in
            switch message {
            case .status(let text): .status(text)
            case .idle: .idle
            case .batch(let folder): .batch(folder)
            default: nil
            }
        }
        if let ending = agent.ending() {
            log(.warning, "pdftrapper: scanner agent \(ending); restarting it in \(Int(nextDelay(now))) s")
            self.agent = nil
            scheduleRestart(now)
        } else if now.timeIntervalSince(agent.lastHeard) > Self.stallSeconds {
            log(.error, "pdftrapper: scanner agent silent for \(Int(Self.stallSeconds)) s (a scanner backend hung?); killing it")
            agent.kill()
            self.agent = nil
            scheduleRestart(now)
        }
        return events
    }

    /// Passes a reload on; the agent takes it between polls.
    func reload() {
        agent?.reload()
    }

    /// Asks the agent to stop (between pages), and kills it if it has not within `stopSeconds`.
    func stop() {
        guard let agent else { return }
        agent.askToStop()
        let deadline = clock.now().addingTimeInterval(Self.stopSeconds)
        while agent.ending() == nil {
            if clock.now() > deadline {
                agent.kill()
                break
            }
            usleep(20_000)
        }
        self.agent = nil
    }

    private func nextDelay(_ now: Date) -> TimeInterval {
        // An agent that ran a minute was healthy: start the backoff again.
        now.timeIntervalSince(started) > 60 ? 1 : restartDelay
    }

    private func scheduleRestart(_ now: Date) {
        let delay = nextDelay(now)
        restartAt = now.addingTimeInterval(delay)
        restartDelay = min(60, delay * 2)
    }
}
