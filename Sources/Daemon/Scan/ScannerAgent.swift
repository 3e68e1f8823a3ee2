import Foundation
import Glibc
import Scanning
import TrapperCore

/// `pdftrapper scanner-agent`: the process the daemon starts to talk to scanners. SANE backends
/// run in it, not in the daemon, so a backend that crashes, hangs or leaks (some cancel their own
/// threads unsafely) costs a restart of this process, never the inbox. It polls the buttons of every
/// `[[scanner]]`, scans the bound profile into the spool, and tells the daemon on stdout, one line each:
///
///     alive                  after every round of polls
///     status TEXT            what it is doing, for systemd's STATUS=
///     idle                   a scan ended (with a batch, or without: an empty feeder, a failure)
///     batch FOLDER           a whole batch is in the spool, for the daemon to append
///
/// Its log lines go to the journal (or stderr) itself. SIGHUP reloads the config between polls;
/// SIGTERM stops it between pages, leaving a cut-short batch for the daemon's recovery to quarantine.
public final class ScannerAgent {
    private let configPath: String
    private let environment: [String: String]
    private var signals: Signals
    private var config: Config
    private var log: any EventLog
    private var pollers: [ButtonPoller] = []
    /// Made before SANE is, once (see `PageEncoder`).
    private let encoder = PageEncoder()
    private var session: SaneSession?
    private var lastSessionStart = Date.distantPast

    public static func run(configPath: String, environment: [String: String]) -> ExitCode {
        let signals = Signals()
        // A daemon that went away makes `say` fail with EPIPE, and the agent ends quietly.
        signal(SIGPIPE, SIG_IGN)
        do {
            let config = try ConfigLoader.load(file: configPath, environment: environment)
            return ScannerAgent(configPath: configPath, environment: environment, signals: signals, config: config).loop()
        } catch {
            EventLogs.automatic(environment: environment, minimum: .info).log(.error, "pdftrapper scanner-agent: \(error)")
            return .config
        }
    }

    private init(configPath: String, environment: [String: String], signals: Signals, config: Config) {
        self.configPath = configPath
        self.environment = environment
        self.signals = signals
        self.config = config
        log = EventLogs.automatic(environment: environment, minimum: config.daemon.logLevel)
        setBindings()
    }

    private func loop() -> ExitCode {
        while true {
            for request in signals.pending() {
                switch request {
                case .stop: return .ok
                case .reload: reload()
                }
            }
            if session == nil || needsFreshSession {
                pollers.forEach { $0.close() }
                session = nil
                lastSessionStart = Date()
                do { session = try SaneSession() } catch { log.log(.error, "pdftrapper: SANE: \(error)") }
            }
            if let session {
                for poller in pollers {
                    guard let press = poller.poll(session) else { continue }
                    scan(press, binding: poller.binding)
                    poller.finished(press)
                    if signals.peekStop() { return .ok }
                }
            }
            say(.alive)
            let next = pollers.map { $0.due(Date()) }.min() ?? Date().addingTimeInterval(60)
            for request in signals.wait(seconds: min(60, max(0.01, next.timeIntervalSinceNow))) {
                switch request {
                case .stop: return .ok
                case .reload: reload()
                }
            }
        }
    }

    /// Unplugged scanners may only be found again by a new `sane_init` (many backends list USB
    /// devices there): one every 30 s while any is missing and none is held open.
    private var needsFreshSession: Bool {
        pollers.contains { $0.trouble == .unavailable } && !pollers.contains { $0.holdsDevice }
            && Date().timeIntervalSince(lastSessionStart) >= 30
    }

    private func scan(_ press: ButtonPoller.Press, binding: ScannerBinding) {
        guard let profile = config.profiles.first(where: { $0.name == press.profile }) else { return }
        let device = press.device
        let what = "profile \(profile.name) on \(device.name) (button \(press.button))"
        log.log(.info, "pdftrapper: button \(press.button) pressed on \(device.name): scanning with profile \(profile.name)")
        say(.status("scanning: \(what)"))
        defer { say(.idle) }
        let spool = ScanSpool(stateDir: config.daemon.stateDir)
        let batch: ScanSpool.Batch
        do {
            batch = try spool.start(profile: profile.name, button: press.button, device: device.name, targetOverride: nil)
        } catch {
            log.log(.error, "pdftrapper: \(what): cannot start a batch in \(spool.folder): \(error)")
            return
        }
        do {
            _ = try ScanCapture(profile: profile, encoder: encoder).run(on: device, into: batch, progress: { progress in
                self.say(.status("scanning \(progress.line): \(what)"))
            }, shouldStop: { self.signals.peekStop() })
            batch.release()
            say(.batch(batch.folder))
        } catch ScanCapture.Failure.feederEmpty {
            try? batch.remove()
            log.log(.notice, "pdftrapper: \(what): the document feeder is empty; nothing scanned")
        } catch ScanCapture.Failure.stopped(let pages) {
            log.log(.notice, "pdftrapper: \(what): stopped after \(pages) pages; the batch will not be appended")
        } catch {
            let reason = "the scan failed after \(batch.manifest.pages.count) pages: \(error)"
            let outbox = try? EventOutbox.of(config)
            if let problem = outbox?.scanFailed(profile: profile.name, device: device.name, batch: batch.manifest.name,
                                                reason: reason) {
                log.log(.warning, "pdftrapper: \(problem)")
            }
            if let folders = try? ConfinedFolders.daemon(config) {
                ScanSpool.quarantine(batch.folder, name: batch.manifest.name, into: config.inbox.quarantine, rule: nil,
                                     reason: reason, folders: folders, outbox: outbox)
            }
            log.log(.warning, "pdftrapper: \(what): \(reason); its pages are in \(config.inbox.quarantine)/\(batch.manifest.name)")
        }
    }

    private func reload() {
        do {
            config = try ConfigLoader.load(file: configPath, environment: environment)
            log = EventLogs.automatic(environment: environment, minimum: config.daemon.logLevel)
            pollers.forEach { $0.close() }
            setBindings()
        } catch {
            // The daemon reports the refused config; the agent carries on with the old one.
        }
    }

    private func setBindings() {
        let log = self.log
        pollers = config.scanners.map { binding in
            ButtonPoller(binding: binding) { level, message in log.log(level, "pdftrapper: \(message)") }
        }
    }

    /// One line to the daemon; a daemon that went away ends the agent.
    /// A batch line comes before the `idle` that ends its scan.
    private func say(_ message: AgentMessage) {
        AgentMessage.say(message)
    }
}
