import Daemon
import Foundation
import Glibc
import Scanning
import TrapperCore

/// `pdftrapper scan`: one scan profile, once, from the command line: what a button press does.
enum ScanCommand: Command {
    static let name = "scan"
    static let summary = "Scan with a profile: every page from the feeder (or one from the glass) into one revision."
    static let synopsis = "scan --profile NAME [--to TARGET.pdf] [--config FILE] [--state-dir DIR]"
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

      --profile NAME   the [profile.NAME] to run
      --to FILE        the target PDF, instead of the profile's or the rules'
      --config FILE    the config (default: the usual search)
      --state-dir DIR  where the journal and undo history live

    Exit codes: 0 scanned, 66 the feeder is empty, 69 no such scanner, 75 the scanner is busy
    (try again), 65 the pages could not be added (quarantined), 74 I/O, 78 bad config.
    """
    static let arguments = ArgumentSpec(options: CommandContext.engineOptions.union(["--profile", "--to"]))

    static func run(_ arguments: ParsedArguments, _ context: CommandContext) -> ExitCode {
        guard arguments.positionals.isEmpty, let profileName = arguments.options["--profile"] else {
            context.err("pdftrapper scan: name a profile with --profile\nusage: pdftrapper \(synopsis)")
            return .usage
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

        let batch: ScanSpool.Batch
        let encoder = PageEncoder()
        do {
            let session = try SaneSession()
            let device = try openWaitingBriefly(session, profile.device)
            batch = try spool.start(profile: profile.name, button: nil, device: device.name,
                                    targetOverride: arguments.options["--to"].map(context.absolute))
            let onTerminal = isatty(STDERR_FILENO) == 1
            do {
                let applied = try ScanCapture(profile: profile, encoder: encoder).run(on: device, into: batch) { progress in
                    if onTerminal { context.err(progress.line) }
                }
                context.err("pdftrapper scan: \(batch.manifest.pages.count) page\(batch.manifest.pages.count == 1 ? "" : "s") "
                            + "from \(device.name) (\(applied.source ?? "default source"), \(applied.mode), "
                            + "\(Int(applied.resolution)) dpi)")
            } catch ScanCapture.Failure.feederEmpty(let name) {
                try? batch.remove()
                context.err("pdftrapper scan: \(name): the document feeder is empty; nothing scanned")
                return .noInput
            } catch {
                if let problem = store.outbox?.scanFailed(profile: profile.name, device: device.name, batch: batch.manifest.name,
                                                          reason: "the scan failed after \(batch.manifest.pages.count) pages: \(error)") {
                    context.err("pdftrapper scan: \(problem)")
                }
                let outcome = commit.discard(batch, reason: "the scan failed: \(error)")
                context.err("pdftrapper scan: \(error); \(outcome.summary)")
                return (error as? ScanError).map(exitCode) ?? .ioError
            }
        } catch let error as ScanError {
            context.err("pdftrapper scan: \(error)")
            return exitCode(error)
        } catch {
            context.err("pdftrapper scan: \(error)")
            return .ioError
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

    static func exitCode(_ error: ScanError) -> ExitCode {
        switch error.status {
        case .deviceBusy?: .temporaryFailure
        case .invalid?: .unavailable
        case nil:
            switch error {
            case .noDevice, .library: .unavailable
            default: .ioError
            }
        default: .ioError
        }
    }
}
