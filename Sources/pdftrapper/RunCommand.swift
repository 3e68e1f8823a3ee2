import Daemon
import Foundation
import TrapperCore
import Web

/// `pdftrapper run`: the daemon, in the foreground (systemd's Type=notify, or a terminal).
enum RunCommand: Command {
    static let name = "run"
    static let summary = "Run the daemon: take every file dropped in the inbox into its PDF, until stopped."
    static let synopsis = "run [--config FILE]"
    static let details = """
    Watches the inbox (inotify, or polling on network file systems) and takes each file once it
    is complete: the first matching rule names its target PDF, its pages are appended as one
    revision, and the original is archived, deleted or kept as the rule says. Inputs that cannot
    be ingested go to the quarantine folder with NAME.why.txt beside them; the daemon goes on.

    Under systemd (Type=notify) it reports READY=1 once its watches are set, STATUS= with the
    queue and the last job, and WATCHDOG=1 when the unit sets WatchdogSec=. SIGHUP reloads the
    config (an invalid new config is refused, logged, and the old one kept); SIGTERM stops it
    after the job in hand, with exit 0. Under journald it logs with the fields PDFTRAPPER_TARGET,
    PDFTRAPPER_INPUT, PDFTRAPPER_RULE and PDFTRAPPER_END; elsewhere plain lines on stderr.

    Exit codes: 0 stopped, 66 no config, 73 a folder cannot be made, 74 I/O, 78 bad config.
    """
    static let arguments = ArgumentSpec(options: ["--config"])

    static func run(_ arguments: ParsedArguments, _ context: CommandContext) -> ExitCode {
        guard arguments.positionals.isEmpty else {
            context.err("pdftrapper run: takes no arguments\nusage: pdftrapper \(synopsis)")
            return .usage
        }
        let file = arguments.options["--config"].map(context.absolute)
            ?? ConfigLocation.find(environment: context.environment) { FileManager.default.fileExists(atPath: $0) }
        // With [web], the workspace serves beside the daemon and hears of every revision it makes.
        return InboxDaemon.run(configPath: file, environment: context.environment) { config, edits, log in
            guard let web = config.web else { return nil }
            let workspace = try Workspace(config: config, edits: edits)
            try workspace.start()
            log.log(.notice, "pdftrapper: workspace on \(web.listen); `pdftrapper web-url` prints the address to log in with")
            return workspace
        }
    }
}

/// `pdftrapper status`: what the running daemon is doing.
enum StatusCommand: Command {
    static let name = "status"
    static let summary = "Show what the daemon is doing: folders and how they are watched, queue, last jobs."
    static let synopsis = "status [--config FILE] [--json]"
    static let details = """
    Reads the status the daemon keeps in its state folder (status.json, rewritten after each
    job) and says whether the daemon is running, since when, how each folder is watched, the
    queue, what waits (uploads not whole yet, retries, front passes held for their back pass, OCR
    to do), and the last jobs with their results: inputs, edit scripts and OCR. --json prints the
    same as one JSON object. Exits 0 when the daemon runs, 3 when it does not (as `systemctl
    status` does).
    """
    static let arguments = ArgumentSpec(flags: ["--json"], options: ["--config"])

    /// What `status --json` prints: whether a daemon runs, and the status it keeps.
    struct Report: Encodable {
        var running: Bool
        var pid: Int32?
        /// OCR requests queued in the library's state folder, read from the queue itself.
        var pendingOCR: Int
        var status: DaemonStatus?
    }

    static func run(_ arguments: ParsedArguments, _ context: CommandContext) -> ExitCode {
        let config: Config
        switch context.loadConfig(arguments.options["--config"]) {
        case .failure(let code): return code
        case .success(let loaded): config = loaded
        }
        // The OCR still to do, from the queue itself (a command's ingest queues it too).
        let pendingOCR = OCRQueue(state: StateDirectory.forLibrary(config)).pending().count
        let ocrLine = "  OCR pending: \(pendingOCR) request\(pendingOCR == 1 ? "" : "s")"
        if arguments.has("--json") {
            let holder = StateLock.holder(stateDir: config.daemon.stateDir)
            let status = DaemonStatus.load(stateDir: config.daemon.stateDir)
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            encoder.dateEncodingStrategy = .iso8601
            let report = Report(running: holder != nil, pid: holder.map { $0 == 0 ? status?.pid ?? 0 : $0 },
                                pendingOCR: pendingOCR, status: status)
            // Encoding plain Codable values cannot fail.
            context.out(String(decoding: try! encoder.encode(report), as: UTF8.self))
            return holder != nil ? .ok : .notRunning
        }
        guard let status = DaemonStatus.load(stateDir: config.daemon.stateDir) else {
            context.out("pdftrapper: not running (no status in \(config.daemon.stateDir))")
            if pendingOCR > 0 { context.out(ocrLine + " (the daemon does them, or pdftrapper ocr --queued)") }
            return .notRunning
        }
        // Whether a daemon runs is the state folder's lock's to say (status.json is what the last
        // one to write it left).
        let holder = StateLock.holder(stateDir: config.daemon.stateDir)
        let running = holder != nil
        let formatter = ISO8601DateFormatter()
        if running {
            let up = Int(Date().timeIntervalSince(status.started))
            context.out("pdftrapper: running (pid \(holder.map { $0 == 0 ? status.pid : $0 } ?? status.pid), up \(up / 3600)h \(up / 60 % 60)m \(up % 60)s), \(status.state)")
        } else {
            context.out("pdftrapper: not running (last seen \(formatter.string(from: status.updated)))")
        }
        for (folder, mode) in status.folders.sorted(by: { $0.key < $1.key }) { context.out("  \(folder): \(mode)") }
        context.out("  queue: \(status.queue)")
        for (input, reason) in (status.retrying ?? [:]).sorted(by: { $0.key < $1.key }) {
            context.out("  retrying: \(input): \(reason)")
        }
        for (input, reason) in (status.waiting ?? [:]).sorted(by: { $0.key < $1.key }) {
            context.out("  waiting: \(input) \(reason)")
        }
        for (input, until) in (status.held ?? [:]).sorted(by: { $0.key < $1.key }) {
            let left = max(0, Int(until.timeIntervalSinceNow))
            context.out("  held: \(input): a front pass; its back pass is awaited \(left / 60)m \(left % 60)s more")
        }
        if pendingOCR > 0 { context.out(ocrLine) }
        if !status.recent.isEmpty { context.out("  last jobs:") }
        for outcome in status.recent.suffix(10) {
            context.out("    \(formatter.string(from: outcome.date))  \(outcome.result.rawValue)  \(outcome.summary)")
        }
        return running ? .ok : .notRunning
    }
}

/// `pdftrapper scanner-agent`: the daemon's scanner process (not for use by hand; `run` starts it).
enum ScannerAgentCommand: Command {
    static let name = "scanner-agent"
    static let summary = "The daemon's scanner process: polls buttons and scans (started by `run`)."
    static let synopsis = "scanner-agent --config FILE [--running-config SNAPSHOT] [--profile NAME [--to TARGET.pdf]]"
    static let details = """
    Started by `pdftrapper run` when the config has [[scanner]] entries, so that SANE's backends
    run outside the daemon: one that crashes or hangs costs a restart of this process, never the
    inbox. It polls each scanner's buttons, scans the bound profile into the state folder, and
    tells the daemon on stdout; the daemon appends each whole batch. With --profile it scans that
    profile once, for `pdftrapper scan`, which started it and appends the batch. With
    --running-config it reads the config the daemon runs (the daemon writes SNAPSHOT at start and
    at each reload), not FILE as edited since; FILE only places relative paths. Not meant to be
    run by hand.
    """
    static let arguments = ArgumentSpec(options: ["--config", "--running-config", "--profile", "--to"])

    static func run(_ arguments: ParsedArguments, _ context: CommandContext) -> ExitCode {
        guard let file = arguments.options["--config"] else {
            context.err("pdftrapper scanner-agent: name the config with --config\nusage: pdftrapper \(synopsis)")
            return .usage
        }
        if let profile = arguments.options["--profile"] {
            return ScannerAgent.scanOnce(configPath: context.absolute(file), profile: profile,
                                         targetOverride: arguments.options["--to"].map(context.absolute),
                                         environment: context.environment)
        }
        return ScannerAgent.run(configPath: context.absolute(file), running: arguments.options["--running-config"].map(context.absolute),
                                environment: context.environment)
    }
}
