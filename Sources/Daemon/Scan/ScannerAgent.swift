import CLinux
import Foundation
import Glibc
import Scanning
import System
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
    /// The daemon's snapshot of its running config, when it gave one.
    private var running: String?
    private let environment: [String: String]
    private var signals: Signals
    private var config: Config
    private var log: any EventLog
    private var pollers: [ButtonPoller] = []
    /// Made before SANE is, once (see `PageEncoder`).
    private let encoder = PageEncoder()
    private var session: SaneSession?
    private var lastSessionStart = Date.distantPast

    /// `running`: the daemon's snapshot of the config it runs (`InboxDaemon.runningConfig`), read at
    /// start and at each reload instead of the file, which may hold an edit not yet reloaded.
    public static func run(configPath: String, running: String? = nil, environment: [String: String]) -> ExitCode {
        let signals = Signals()
        // A daemon that went away makes `say` fail with EPIPE, and the agent ends quietly.
        signal(SIGPIPE, SIG_IGN)
        do {
            let config = try load(configPath, running: running, environment: environment)
            let agent = ScannerAgent(configPath: configPath, environment: environment, signals: signals, config: config)
            agent.running = running
            return agent.loop()
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
            let pages = batch.manifest.pages.count
            if let problem = ScanSpool.failed(batch, profile: profile.name, device: device.name, reason: "\(error)",
                                              quarantine: config.inbox.quarantine, folders: try? ConfinedFolders.daemon(config),
                                              outbox: try? EventOutbox.of(config)) {
                log.log(.warning, "pdftrapper: \(problem)")
            }
            log.log(.warning, "pdftrapper: \(what): the scan failed after \(pages) page\(pages == 1 ? "" : "s"): \(error); "
                    + "its pages are in \(config.inbox.quarantine)/\(batch.manifest.name)")
        }
    }

    /// The daemon's running config when it gave a snapshot, else the file.
    static func load(_ configPath: String, running: String?, environment: [String: String]) throws(ConfigLoader.Failure) -> Config {
        guard let running, let bytes = FileManager.default.contents(atPath: running) else {
            return try ConfigLoader.load(file: configPath, environment: environment)
        }
        return try ConfigLoader.load(bytes: Array(bytes), file: configPath, environment: environment)
    }

    private func reload() {
        do {
            config = try Self.load(configPath, running: running, environment: environment)
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

extension ScannerAgent {
    /// `pdftrapper scanner-agent --profile NAME`: one scan of one profile, for `pdftrapper scan`,
    /// which started it (AgentScan) and appends the batch itself. SANE runs here and not in the
    /// command, so a backend that hangs or crashes costs this process, never the command. It says
    /// which SANE call comes next, so that a hang is found and named from outside, and what a
    /// failed call returned before the scan is cancelled, as cancelling is where some backends hang.
    public static func scanOnce(configPath: String, profile name: String, targetOverride: String?,
                                environment: [String: String]) -> ExitCode {
        // Ends with the command (Ctrl-C, kill -9): its batch stays in the spool cut short, for the
        // next run to quarantine, as when the command scanned by itself.
        _ = trapper_die_with_parent()
        // A command that went away makes `say` fail with EPIPE, and the agent ends quietly.
        signal(SIGPIPE, SIG_IGN)
        let say = AgentMessage.say
        func failed(_ code: ExitCode, _ reason: String) -> ExitCode {
            say(.failed(code, reason))
            return code
        }
        let config: Config
        do { config = try ConfigLoader.load(file: configPath, environment: environment) } catch {
            return failed(.config, "\(error)")
        }
        guard let profile = config.profiles.first(where: { $0.name == name }) else {
            return failed(.config, "no profile \"\(name)\" in \(configPath)")
        }
        let encoder = PageEncoder()
        say(.step("sane_init"))
        let session: SaneSession
        do throws(ScanError) { session = try SaneSession() } catch { return failed(error.exitCode, "\(error)") }
        // The outcome is said before the device is closed and SANE ended, and each of those steps
        // before it is taken: a hang in either is named, and comes after what the user needs.
        return withExtendedLifetime(session) {
            var device: SaneDevice?
            do throws(ScanError) {
                say(.step("sane_open \(profile.device ?? "(the first device)")"))
                device = try openWaitingBriefly(session, profile.device)
            } catch {
                return failed(error.exitCode, "\(error)")
            }
            let code = device.map {
                scan(profile, on: $0, targetOverride: targetOverride, stateDir: config.daemon.stateDir, encoder: encoder)
            }
            say(.step("sane_close"))
            device = nil
            say(.step("sane_exit"))
            return code ?? .ioError
        }
    }

    /// The scan itself, once the device is open: its batch, its pages, and what became of it.
    private static func scan(_ profile: ScanProfile, on device: SaneDevice, targetOverride: String?, stateDir: String,
                             encoder: PageEncoder) -> ExitCode {
        let say = AgentMessage.say
        say(.device(device.name))
        let spool = ScanSpool(stateDir: stateDir)
        let batch: ScanSpool.Batch
        do {
            batch = try spool.start(profile: profile.name, button: nil, device: device.name, targetOverride: targetOverride)
        } catch {
            say(.failed(.ioError, "cannot start a batch in \(spool.folder): \(error)"))
            return .ioError
        }
        say(.spooling(batch.folder))
        var page = 1
        device.watcher = { step in
            switch step {
            case .calling("sane_cancel"): say(.step("sane_cancel"))
            case .calling(let call): say(.step("\(call) (page \(page))"))
            case .failed(let error): say(.trouble(error.exitCode, "\(error)"))
            }
        }
        defer { device.watcher = nil }
        say(.step("sane_control_option (the profile's settings)"))
        do {
            let applied = try ScanCapture(profile: profile, encoder: encoder).run(on: device, into: batch) { progress in
                say(.page(progress))
                page = progress.page + 1
            }
            batch.release()
            let count = batch.manifest.pages.count
            say(.scanned("\(count) page\(count == 1 ? "" : "s") from \(device.name) (\(applied.source ?? "default source"), "
                         + "\(applied.mode), \(Int(applied.resolution)) dpi)"))
            say(.batch(batch.folder))
            return .ok
        } catch ScanCapture.Failure.feederEmpty(let name) {
            try? batch.remove()
            say(.failed(.noInput, "\(name): the document feeder is empty; nothing scanned"))
            return .noInput
        } catch {
            batch.release()
            let code = (error as? ScanError)?.exitCode ?? .ioError
            say(.failed(code, "\(error)"))
            return code
        }
    }

    /// A device the daemon's agent is polling is busy for a moment each poll: try for 3 s before
    /// calling it busy.
    static func openWaitingBriefly(_ session: SaneSession, _ pattern: String?) throws(ScanError) -> SaneDevice {
        var attempt = 0
        while true {
            do {
                return try session.open(matching: pattern)
            } catch where error.status == .deviceBusy && attempt < 10 {
                attempt += 1
                usleep(300_000)
            }
        }
    }
}

extension ScanError {
    /// What `pdftrapper scan` exits with when its scan fails so: 75 busy (try again), 69 no such
    /// scanner (or no SANE), else 74.
    public var exitCode: ExitCode {
        switch status {
        case .deviceBusy?: .temporaryFailure
        case .invalid?: .unavailable
        case nil:
            switch self {
            case .noDevice, .library: .unavailable
            default: .ioError
            }
        default: .ioError
        }
    }
}
