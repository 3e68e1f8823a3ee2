import Daemon
import Foundation
import Glibc
import TrapperCore

/// `pdftrapper scan`: one scan profile, once, from the command line: what a button press does.
enum ScanCommand: Command {
    static let name = "scan"
    static let summary = "Scan with a profile: every page from the feeder (or one from the glass) into one revision."
    static let synopsis = "scan --profile NAME [--to TARGET.pdf] [--stall DURATION] [--config FILE] [--state-dir DIR]"
    static let details = """
    Runs the scan profile NAME of the config ([profile.NAME]): sets the device's source, mode,
    resolution, page size and options, then scans one page from the flatbed, or every page in
    the feeder until it is empty. Each page is encoded (JPEG at the profile's quality for grey
    and colour, CCITT G4 for lineart, PNG for 16-bit) while the next one scans, and written to
    the state folder at once; when the feeder is empty all pages are appended to the target as
    ONE revision, so `pdftrapper undo` takes the whole batch back.

    The target is --to TARGET.pdf when given, else the profile's `target`, else the rules of the
    config: a scan matches rules with source = "scanner" and profile NAME; its {stem} is
    scan-DATE-TIME-ID. A scan that stops part-way (a jam, the device unplugged, the command
    killed) is never half-appended: its pages go to the quarantine folder, whole, with a note.
    Batches an earlier run finished scanning but did not append are appended first.

    On a terminal, a line per page shows its size and the scan rate.

    The scanner's SANE backend runs in a process of its own (`pdftrapper scanner-agent`, as
    under the daemon), so one that hangs or crashes cannot take the command with it; the command
    appends the batch itself. A scan that makes no progress for --stall (5 minutes; a page being
    read counts as progress), and one whose process dies, is stopped: the command names the
    device and the step (`sane_start (page 3)`) in one line, the pages scanned go to the
    quarantine folder with a note, and it exits 74, or as the SANE call that failed first says.

      --profile NAME     the [profile.NAME] to run
      --to FILE          the target PDF, instead of the profile's or the rules'
      --stall DURATION   stop a scan that makes no progress for this long (default 5m; 90s, 10m)
      --config FILE      the config (default: the usual search)
      --state-dir DIR    where the journal and undo history live

    Exit codes: 0 scanned, 66 the feeder is empty, 69 no such scanner, 75 the scanner is busy
    (try again), 65 the pages could not be added (quarantined), 74 I/O (the scan failed, stalled
    or its process died), 78 bad config.
    """
    static let arguments = ArgumentSpec(options: CommandContext.engineOptions.union(["--profile", "--to", "--stall"]))

    static func run(_ arguments: ParsedArguments, _ context: CommandContext) -> ExitCode {
        guard arguments.positionals.isEmpty, let profileName = arguments.options["--profile"] else {
            context.err("pdftrapper scan: name a profile with --profile\nusage: pdftrapper \(synopsis)")
            return .usage
        }
        var stall = AgentScan.defaultStallSeconds
        if let text = arguments.options["--stall"] {
            guard let seconds = Quantities.seconds(text) ?? Double(text), seconds > 0, seconds.isFinite else {
                context.err("pdftrapper scan: --stall takes a duration such as 90s or 10m, not \"\(text)\"")
                return .usage
            }
            stall = seconds
        }
        let config: Config
        switch context.loadConfig(arguments.options["--config"].map(context.absolute)) {
        case .failure(let code): return code
        case .success(let loaded): config = loaded
        }
        guard let profile = config.profiles.first(where: { $0.name == profileName }) else {
            let names = config.profiles.map(\.name)
            context.err("pdftrapper scan: no profile \"\(profileName)\" in \(config.file)"
                        + (names.isEmpty ? " (it has none)" : " (it has: \(names.joined(separator: ", ")))")
                        + Suggestion.hint(for: profileName, among: names))
            return .config
        }
        let store: TargetStore
        switch context.targetStore(arguments, config: config) {
        case .failure(let code): return code
        case .success(let opened): store = opened
        }
        let spool = ScanSpool(stateDir: config.daemon.stateDir)
        let commit = ScanCommit(config: config, store: store)
        for outcome in commit.recover(spool) { context.err("pdftrapper scan: earlier batch \(outcome.summary)") }

        let onTerminal = isatty(STDERR_FILENO) == 1
        let scan = AgentScan(executable: InboxDaemon.executable, configPath: context.absolute(config.file), profile: profile,
                             targetOverride: arguments.options["--to"].map(context.absolute), environment: context.environment,
                             stallSeconds: stall)
        let batch: ScanSpool.Batch
        switch scan.run(progress: { progress in if onTerminal { context.err(progress.line) } }) {
        case .scanned(let folder, let summary):
            guard let scanned = spool.take(folder) else {
                context.err("pdftrapper scan: \(summary), but its batch \(folder) is gone from the spool")
                return .ioError
            }
            context.err("pdftrapper scan: \(summary)")
            batch = scanned
        case .failed(let code, let reason, let folder):
            // A batch cut short goes to quarantine; an empty feeder's was removed by the agent.
            guard let folder, let cutShort = spool.take(folder) else {
                context.err("pdftrapper scan: \(reason)")
                return code
            }
            let outcome = commit.failed(cutShort, profile: profile.name, reason: reason) { problem in
                context.err("pdftrapper scan: \(problem)")
            }
            context.err("pdftrapper scan: \(reason); \(outcome.summary)")
            return code
        }
        let outcome = commit.commit(batch)
        store.log.forEach { context.err("pdftrapper: \($0)") }
        switch outcome.result {
        case .ingested:
            context.out(outcome.summary)
            return .ok
        case .retryLater:
            context.err("pdftrapper scan: \(outcome.summary) (the pages wait in \(spool.folder); the next run appends them)")
            return .ioError
        default:
            context.err("pdftrapper scan: \(outcome.summary)")
            return .dataError
        }
    }
}
