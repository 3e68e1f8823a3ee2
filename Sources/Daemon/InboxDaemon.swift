import Foundation
import PDFAccess
import System
import TrapperCore
import Watching

/// `pdftrapper run`: the long-running daemon. It reads like a table of contents: start (config,
/// recovery, watches), then take what the watcher hands over, one job at a time, until asked to
/// stop; reload the config on SIGHUP; tell systemd what it is doing throughout.
public final class InboxDaemon {
    let configPath: String
    let environment: [String: String]
    /// The runner's ports: systemd's notify socket, the signals, the clock and the scanner agent's
    /// launcher (a test's script and record in `DaemonRunnerTests`).
    var ports: DaemonPorts
    var notifier: any ServiceManager { ports.notifier }
    /// The loop's clock, read for every event told to the machine.
    var clock: any Clock { ports.clock }
    var log: any EventLog
    /// What the config makes (folders, store, inbox), built whole and swapped whole at a reload. The
    /// inbox is used as `parts.inbox`, so that its jobs change it in place rather than a copy.
    var parts: DaemonParts
    var config: Config { parts.config }
    var store: TargetStore { parts.store }
    var watcher: FolderWatcher?
    /// The loop's decisions (`DaemonLoop`): told every event with the clock's reading, it says what
    /// to do next; this class is its runner over the real ports.
    var machine: DaemonLoop
    /// The scanner agent, when the config has `[[scanner]]` entries.
    var scanners: ScannerSupervisor?
    /// Held while the daemon runs: one daemon per state folder.
    var stateLock: StateLock!
    /// Edit scripts, each in a worker process of its own (set up in init, where the config is known).
    var editWorkers: EditWorkers!
    /// Started once the daemon is set up, so that OCR of what was queued before it ran goes on.
    var ocrWorkers: OCRWorkers?
    /// What runs beside the loop (the workspace, with `[web]`), hearing of every revision, and
    /// what starts it again when a reload changes what it serves.
    var companion: (any Companion)?
    var companionStarter: CompanionStarter?
    /// The one publish: every store the daemon opens (the inbox's and scans', OCR's, edit
    /// workers') tells its revisions here; the OCR queue and the live view subscribe.
    let revisions: RevisionFeed
    /// The live view's subscription.
    let live: LiveFollowUp
    /// The watch that finds other processes' revisions, and the search indexer.
    var library: LibraryFollowers!
    /// Sends the events outbox to the `[[notify]]` subscribers; nil when there are none.
    var delivery: EventDelivery?

    /// Runs until SIGTERM or SIGINT; returns the exit code (0 after a clean stop, 78 for a bad config).
    /// `companion` starts what serves beside the daemon (the workspace) once the daemon is set up.
    public static func run(configPath: String, environment: [String: String], companion: CompanionStarter? = nil) -> ExitCode {
        run(configPath: configPath, environment: environment, ports: .system(), companion: companion)
    }

    /// The same, over these ports.
    static func run(configPath: String, environment: [String: String], ports: DaemonPorts, companion: CompanionStarter? = nil) -> ExitCode {
        let daemon: InboxDaemon
        do {
            daemon = try InboxDaemon(configPath: configPath, environment: environment, ports: ports)
        } catch {
            return error
        }
        if let companion {
            daemon.companionStarter = companion
            do {
                daemon.companion = try companion(daemon.config, daemon.editWorkers, daemon.log)
            } catch {
                daemon.log.log(.error, "pdftrapper: \(error)")
                daemon.editWorkers.stop()
                return .unavailable
            }
            daemon.showLive()
        }
        return daemon.loop()
    }

    init(configPath: String, environment: [String: String], ports: DaemonPorts) throws(ExitCode) {
        self.configPath = configPath
        self.environment = environment
        self.ports = ports
        let feed = RevisionFeed()
        revisions = feed
        live = LiveFollowUp(feed)
        let startLog = EventLogs.automatic(environment: environment, minimum: .info)
        let config: Config
        do {
            config = try ConfigLoader.load(file: configPath, environment: environment)
        } catch {
            // Each problem on a line of its own, as check-config prints them.
            for problem in "\(error)".split(separator: "\n") { startLog.log(.error, "pdftrapper: \(problem)") }
            throw error.isUnreadable ? .noInput : .config
        }
        log = EventLogs.automatic(environment: environment, minimum: config.daemon.logLevel)
        let ocrLog = log
        feed.subscribe(OCRFollowUp { ocrLog.log(.warning, "pdftrapper: \($0)") })
        if let warning = Self.permissionWarning(config.file) { log.log(.warning, warning) }
        for warning in config.warnings { log.log(.warning, "pdftrapper: \(warning)") }
        do {
            try Durable.makeFolder(config.daemon.stateDir)
            stateLock = try StateLock(stateDir: config.daemon.stateDir)
        } catch {
            log.log(.error, "pdftrapper: \(error)")
            throw .temporaryFailure
        }
        do {
            parts = try DaemonParts.open(config, revisions: feed, recoveringTargets: true)
        } catch {
            log.log(.error, "pdftrapper: \(error)")
            // A shared library mounted so that pages could be lost: a restart cannot mend it.
            if case EngineError.incoherent = error { throw .config }
            throw .cantCreate
        }
        library = Self.followLibrary(config, revisions: feed, log: log)
        editWorkers = EditWorkers(process: EditProcess(executable: Self.executable, environment: environment),
                                  openStore: { try DaemonParts.openStore($0, revisions: feed) })
        let started = ports.clock.now()
        machine = DaemonLoop(status: DaemonStatus(pid: getpid(), started: started, folders: [:]),
                             settings: Self.loopSettings(config, ports.notifier), now: started)
        // Said before any job starts, so that what the jobs announce never comes before it.
        announce(.started)
        for line in store.log { log.log(.warning, line) }
        for outcome in parts.inbox.recoverClaims() { report(outcome) }
        for outcome in scanCommit.recover(ScanSpool(stateDir: config.daemon.stateDir)) { report(outcome) }
        // Edit scripts a stopped run had claimed are finished first (and never applied twice).
        for left in EditJob(config: config, store: store).leftClaims() {
            editWorkers.submit(path: left.path, relativePath: left.relativePath, config: config)
        }
        superviseScanners()
        do { try startWatching() } catch {
            log.log(.error, "pdftrapper: \(error)")
            throw .ioError
        }
    }

    /// The runner: reads the ports (signals, the watcher), tells the machine what happened and
    /// does what it answers, until it answers `stop`.
    private func loop() -> ExitCode {
        ocrWorkers = OCRWorkers(config: config, openStore: { [revisions] in try DaemonParts.openStore($0, revisions: revisions) })
        tell(.started)
        startDelivery()
        while true {
            for request in ports.signals.pending() {
                let actions = machine.handle(.signal(request), now: clock.now())
                if actions.contains(.stop) { return stop() }
                perform(actions)
            }
            guard let watcher else {
                // The watch could not be set up again after a reload: keep trying, without spinning.
                usleep(500_000)
                do { try startWatching() } catch { log.log(.error, "pdftrapper: \(error)") }
                continue
            }
            let found = watcher.next(timeout: 0.5).map {
                DaemonLoop.Found(root: $0.root, path: $0.path, relativePath: $0.relativePath, isRegularFile: $0.kind == .file)
            }
            tell(.found(found))
        }
    }

    /// What happened, told to the machine; what it answers is done at once.
    private func tell(_ event: DaemonLoop.Event) {
        perform(machine.handle(event, now: clock.now()))
    }

    private func report(_ outcome: JobOutcome) { tell(.outcome(outcome)) }

    /// Does what the machine decided; what that brings about (outcomes, a chunk done, inputs gone,
    /// the scanner's words) is told to it in turn.
    private func perform(_ actions: [DaemonLoop.Action]) {
        for action in actions {
            switch action {
            case .stop: break  // the loop returns (`stop()`) when a signal's answer holds it
            case .reload: reload()
            case .submitEdit(let path, let relativePath): editWorkers.submit(path: path, relativePath: relativePath, config: config)
            case .collectEdits: reportEditScripts()
            case .take(let arrivals):
                for outcome in parts.inbox.take(arrivals) { report(outcome) }
                reportStoreLog()
                ocrWorkers?.poke()
                tell(.chunkTaken(stopPending: ports.signals.peekStop()))
            case .lookAgain(let arrivals):
                // A writer that resumes is seen by its own events too; this catches the one whose events were missed.
                let outcomes = parts.inbox.take(arrivals)
                for outcome in outcomes { report(outcome) }
                tell(.gone(arrivals.map(\.relativePath).filter { input in !outcomes.contains { $0.input == input } }))
            case .commitScan(let folder): commitScan(folder)
            case .collectScanner: for event in scanners?.events() ?? [] { tell(.scanner(event)) }
            case .expireHeld: for outcome in parts.inbox.expireHeld() { report(outcome) }
            case .collectOCR: reportOCR()
            case .retryClaims:
                // Inputs whose job hit a temporary problem wait among the claims.
                for outcome in parts.inbox.recoverClaims() { report(outcome) }
                for outcome in scanCommit.recover(ScanSpool(stateDir: config.daemon.stateDir)) { report(outcome) }
            case .log(let level, let text, let fields): log.log(level, text, fields: fields)
            case .notify(let state): notifier.notify(state)
            case .saveStatus: saveStatus()
            }
        }
    }

    /// SIGTERM or SIGINT.
    private func stop() -> ExitCode {
        notifier.notify("STOPPING=1")
        // Said before anything stops, so a kill while stopping cannot lose it.
        announce(.stopping)
        scanners?.stop()
        // The scripts in hand are stopped at once (each is one revision, or nothing: the journal
        // rolls back what one had half-written); they stay claimed for the next start. OCR in hand
        // stays queued. Saves the workspace has in hand end with the workers (it answers 503), so
        // its connections are free to close.
        editWorkers.stop()
        live.stop()
        library.stop()
        companion?.stop()
        reportEditScripts()
        ocrWorkers?.stop()
        stopDelivery()
        tell(.stopped)
        log.log(.info, "pdftrapper: stopping")
        return .ok
    }

    /// What the loop needs of `config`.
    static func loopSettings(_ config: Config, _ notifier: any ServiceManager) -> DaemonLoop.Settings {
        DaemonLoop.Settings(inboxPath: config.inbox.path, editsRoot: config.edits.path, rescanSeconds: config.inbox.rescanSeconds,
                            watchdogMicroseconds: notifier.watchdogMicroseconds)
    }

    /// SIGHUP: a new config replaces the old only when it is valid; otherwise every problem is logged
    /// and the daemon carries on as it was.
    private func reload() {
        notifier.notify("RELOADING=1\nMONOTONIC_USEC=\(Self.monotonicMicroseconds())")
        do {
            let fresh = try ConfigLoader.load(file: configPath, environment: environment)
            // Everything new is built first; only then does it replace what runs.
            var freshParts = try DaemonParts.open(fresh, revisions: revisions)
            let watchesChanged = DaemonLoop.watchesChanged(from: config, to: fresh)
            if watchesChanged {
                // Inputs claimed from the old inbox are finished under the old config before its watch ends.
                for outcome in parts.inbox.recoverClaims() { report(outcome) }
                watcher = nil
            }
            if freshParts.inbox.claims != parts.inbox.claims { for outcome in freshParts.inbox.recoverClaims() { report(outcome) } }
            freshParts.inbox.carryOver(from: parts.inbox)
            restartCompanion(ifChangedFrom: config, to: fresh)
            if library.differs(fresh) {
                library.stop()
                library = Self.followLibrary(fresh, revisions: revisions, log: log)
            }
            ocrWorkers?.poke(config: fresh)
            log = EventLogs.automatic(environment: environment, minimum: fresh.daemon.logLevel)
            parts = freshParts
            updateDelivery()
            if watchesChanged { try startWatching() }
            superviseScanners()
            log.log(.notice, "pdftrapper: reloaded \(configPath): \(config.rules.count) rules")
        } catch let error as ConfigLoader.Failure {
            log.log(.error, "pdftrapper: reload refused, keeping the running config:")
            error.description.split(separator: "\n").forEach { log.log(.error, String($0)) }
        } catch {
            log.log(.error, "pdftrapper: reload failed, keeping the running config: \(error)")
        }
        tell(.reloaded(Self.loopSettings(config, notifier)))
    }

    /// The workspace serves the folders and `[web]` of the config it started with: a reload that
    /// changes them starts it anew (open pages reconnect by themselves).
    private func restartCompanion(ifChangedFrom old: Config, to fresh: Config) {
        guard let starter = companionStarter, DaemonLoop.servedChanged(from: old, to: fresh) else { return }
        live.stop()
        companion?.stop()
        companion = nil
        do {
            companion = try starter(fresh, editWorkers, log)
        } catch {
            log.log(.error, "pdftrapper: the workspace could not start again after the reload: \(error)")
        }
        showLive()
    }

    /// The companion, when there is one, shows every revision of the library live.
    func showLive() {
        guard let companion else { return }
        live.show(companion)
    }

    /// The library's watch and search index, for `config`.
    static func followLibrary(_ config: Config, revisions: RevisionFeed, log: any EventLog) -> LibraryFollowers {
        LibraryFollowers(config, feed: revisions) { log.log($0, "pdftrapper: \($1)") }
    }

    private func startWatching() throws {
        var edits = WatchedFolder(inbox: config.inbox)
        edits.root = config.edits.path
        // Finished scripts are filed below the edits folder; they are never taken again.
        edits.ignore += ["\(EditJob.doneFolderName)/**", "\(EditJob.failedFolderName)/**", "\(EditJob.claimsFolderName)/**"]
            .map(Glob.init)
        let watcher = FolderWatcher([WatchedFolder(inbox: config.inbox), edits])
        let log = self.log
        watcher.log = { log.log(.notice, "pdftrapper: \($0)") }
        for line in try watcher.start() { log.log(.info, "pdftrapper: \(line)") }
        tell(.watching(watcher.modes))
        self.watcher = watcher
    }

    /// Repairs and roll-backs the engine did while it worked.
    private func reportStoreLog() {
        for line in store.log { log.log(.warning, "pdftrapper: \(line)") }
        store.log.removeAll()
    }

    private func reportOCR() {
        for line in ocrWorkers?.finished() ?? [] {
            log.log(line.failed ? .warning : .info, line.text)
            tell(.recorded([JobOutcome(input: "ocr", result: .ocr, reason: line.text.replacingOccurrences(of: "pdftrapper: ", with: ""))], tell: false))
        }
    }

    private func reportEditScripts() {
        let finished = editWorkers.finished()
        var recorded: [JobOutcome] = []
        for script in finished {
            guard !script.outcome.takenElsewhere else {
                // Gone from the edits folder before its claim: another daemon on the library took it.
                log.log(.notice, "pdftrapper: edit script \(script.relativePath): taken by another daemon "
                            + "(\(script.outcome.problems.first ?? "gone before its claim"))")
                continue
            }
            for line in script.storeLog { log.log(.warning, "pdftrapper: \(line)") }
            let outcome = script.outcome
            var fields = [EventField.input: script.relativePath]
            if let applied = outcome.applied {
                fields[EventField.target] = applied.target
                fields[EventField.end] = String(applied.end)
            }
            log.log(outcome.applied == nil ? .warning : .info, "pdftrapper: edit script " + outcome.summary, fields: fields)
            recorded.append(JobOutcome(input: script.relativePath, result: .edit, target: outcome.applied?.target,
                                       end: outcome.applied?.end, reason: outcome.summary))
            if let applied = outcome.applied {
                // A page cut again lost its text layer, and is queued to be read again.
                if applied.operations.contains("reframe") { ocrWorkers?.poke() }
            }
            if outcome.applied == nil {
                for problem in outcome.problems.dropFirst() { log.log(.warning, "pdftrapper:   \(problem)") }
            }
        }
        tell(.recorded(recorded, tell: true))
    }

    /// Scans go in through the same store as the inbox, in this loop, so they never interleave with
    /// an inbox job on one target.
    var scanCommit: ScanCommit {
        ScanCommit(config: config, store: store)
    }

    /// A whole batch the scanner agent released, appended in this loop.
    private func commitScan(_ folder: String) {
        guard let batch = ScanSpool(stateDir: config.daemon.stateDir).take(folder) else {
            // The periodic recovery may have appended it already, between the agent's word and now.
            if FileManager.default.fileExists(atPath: folder) {
                log.log(.error, "pdftrapper: scan batch \(folder) is held by another process")
            }
            return
        }
        report(scanCommit.commit(batch))
        reportStoreLog()
        ocrWorkers?.poke()
        saveStatus()
    }

    /// An agent runs while the config binds scanner buttons; a reload tells it about the new config.
    /// Where the daemon keeps the bytes of the config it runs, for its scanner agent to read (at its
    /// start and at each reload) instead of the file, which may hold an edit not yet reloaded.
    static func runningConfig(_ config: Config) -> String { config.daemon.stateDir + "/running-config.toml" }

    private func superviseScanners() {
        guard !config.scanners.isEmpty else {
            scanners?.stop()
            scanners = nil
            return
        }
        // Written before the agent starts or is told to reload: it reads this, never the file.
        let running = Self.runningConfig(config)
        let snapshot = !config.source.isEmpty && (try? Durable.replaceUnsynced(running, with: Data(config.source))) != nil
        if let scanners {
            scanners.runningConfig = snapshot ? running : nil
            scanners.reload()
            return
        }
        let log = self.log
        let report: (LogLevel, String) -> Void = { log.log($0, $1) }
        let supervisor = if let launch = ports.launchScannerAgent {
            ScannerSupervisor(configPath: configPath, clock: clock, launch: launch, log: report)
        } else {
            ScannerSupervisor(executable: Self.executable, configPath: configPath, environment: environment, clock: clock, log: report)
        }
        supervisor.runningConfig = snapshot ? running : nil
        supervisor.start()
        scanners = supervisor
    }

    /// This program, for starting the agent.
    public static var executable: String {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let length = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard length > 0 else { return CommandLine.arguments[0] }
        return String(decoding: buffer[0..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    private func saveStatus() {
        var status = machine.status
        status.updated = clock.now()
        // Fronts held for their back pass, until when.
        var held: [String: Date] = [:]
        for rule in config.rules where rule.collate == .doubleSided {
            if let (front, _) = parts.inbox.held(rule.name) { held[front.relativePath] = front.arrived.addingTimeInterval(rule.collateWindowSeconds) }
        }
        status.held = held.isEmpty ? nil : held
        try? status.save(stateDir: config.daemon.stateDir)
        companion?.statusChanged()
    }

    /// A config others may write names where every page goes: say so at start (the daemon still
    /// runs; refusing would stop the scanner on a box where that is how it was set up).
    static func permissionWarning(_ path: String) -> String? {
        var status = stat()
        guard stat(path, &status) == 0 else { return nil }
        let others = status.st_mode & (S_IWGRP | S_IWOTH)
        guard others != 0 else { return nil }
        let who = others & S_IWOTH != 0 ? "anyone" : "its group"
        return "pdftrapper: \(path) can be written by \(who) (mode \(String(status.st_mode & 0o777, radix: 8))): whoever can "
            + "change it decides where every page goes; chmod go-w it"
    }

    static func monotonicMicroseconds() -> UInt64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return UInt64(now.tv_sec) * 1_000_000 + UInt64(now.tv_nsec) / 1000
    }
}

extension ConfigLoader.Failure {
    var isUnreadable: Bool {
        if case .unreadable = self { return true }
        return false
    }
}
