import Foundation
import Glibc
import TrapperCore

/// The daemon's side of the scanner agent: starts `pdftrapper scanner-agent` when the config has
/// `[[scanner]]` entries, reads what it says without ever blocking, and restarts it (1 s, 2 s, ... up
/// to 60 s apart) when it exits, or kills it when it has said nothing for `stallSeconds` (a backend
/// that hung). Batches it reports are handed to the daemon's loop, which appends them between
/// inbox jobs, so a scan and an inbox file never write one target at the same time.
final class ScannerSupervisor {
    private let executable: String
    private let configPath: String
    private let environment: [String: String]
    private let log: (LogLevel, String) -> Void
    private var agent: ScannerAgentProcess?
    private var started = Date()
    private var restartAt: Date?
    private var restartDelay: TimeInterval = 1

    /// A page at 1200 dpi on a slow flatbed stays well under this; a hung backend does not.
    static let stallSeconds: TimeInterval = 300

    enum Event: Equatable {
        case status(String)
        case idle
        case batch(String)
    }

    /// The daemon's snapshot of the config it runs, which the agent reads instead of the file.
    var runningConfig: String?

    init(executable: String, configPath: String, environment: [String: String], log: @escaping (LogLevel, String) -> Void) {
        self.executable = executable
        self.configPath = configPath
        self.environment = environment
        self.log = log
    }

    deinit { stop() }

    var isRunning: Bool { agent != nil }

    func start() {
        do {
            agent = try ScannerAgentProcess.start(executable: executable, arguments: ["--config", configPath]
                                                  + (runningConfig.map { ["--running-config", $0] } ?? []), environment: environment)
        } catch {
            log(.error, "pdftrapper: scanner agent: \(error)")
            scheduleRestart()
            return
        }
        started = Date()
        restartAt = nil
    }

    /// What the agent said since the last call; restarts it when it died or hung.
    func events(now: Date = Date()) -> [Event] {
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
        if let agent { kill(agent.pid, SIGHUP) }
    }

    /// Asks the agent to stop (between pages), and kills it if it has not within 10 s.
    func stop() {
        guard let agent else { return }
        agent.askToStop()
        let deadline = Date().addingTimeInterval(10)
        while agent.ending() == nil {
            if Date() > deadline {
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

    private func scheduleRestart(_ now: Date = Date()) {
        let delay = nextDelay(now)
        restartAt = now.addingTimeInterval(delay)
        restartDelay = min(60, delay * 2)
    }
}
