import Daemon
import Foundation
import PDFAccess
import System
import TrapperCore

/// What the commands that change targets share: the engine's folder (`--state-dir`, else the
/// config's library's `.pdftrapper`, shared with the daemon, else the default state folder), the
/// target store over it, and its recovery of anything a crash left behind.
extension CommandContext {
    static let engineOptions: Set<String> = ["--config", "--state-dir"]

    /// The config when one is named or found; nil when there is none to find (commands that name
    /// their target need none). An invalid config is an error: the daemon would not run with it.
    func optionalConfig(_ arguments: ParsedArguments) -> Result<Config?, ExitCode> {
        if let file = arguments.options["--config"] {
            return loadConfig(file).map { $0 }
        }
        let found = ConfigLocation.candidates(environment: environment).first { FileManager.default.fileExists(atPath: $0) }
        guard let found else { return .success(nil) }
        return loadConfig(found).map { $0 }
    }

    /// `confined`: the store writes only below the config's library and the state folder, as the
    /// daemon's does (for targets the rules or a script choose, never for one named with `--to`).
    ///
    /// The state folder: `--state-dir`; else the nearest `.pdftrapper` above `target` (as git finds
    /// `.git`), so one file behaves the same whatever config was or was not named; else the config's
    /// library's; else the default.
    func targetStore(_ arguments: ParsedArguments, config: Config?, confined: Bool = false, target: String? = nil)
        -> Result<TargetStore, ExitCode>
    {
        let folder = arguments.options["--state-dir"].map(absolute)
            ?? target.flatMap(StateDirectory.nearest(to:))
            ?? config.map { StateDirectory.forLibrary($0).path }
            ?? StateDirectory.fallback(environment: environment)
        var folders: ConfinedFolders?
        if confined, let config {
            do {
                folders = try ConfinedFolders([(path: config.library.root, label: "the library"),
                                               (path: folder, label: "the state folder")])
            } catch {
                err("pdftrapper: \(error)")
                return .failure(EngineError.writing(error).exitCode)
            }
        }
        var outbox: EventOutbox?
        if let config {
            do throws(Durable.Failure) { outbox = try EventOutbox.of(config) } catch {
                err("pdftrapper: \(error)")
                return .failure(EngineError.writing(error).exitCode)
            }
        }
        do {
            let store = try TargetStore.open(state: StateDirectory(path: folder), folders: folders)
            // With the config's subscribers, a command's revisions are announced as the daemon's are.
            store.outbox = outbox
            try store.recoverAll()
            store.log.forEach { err("pdftrapper: \($0)") }
            return .success(store)
        } catch {
            err("pdftrapper: state folder \(folder): \(error)")
            return .failure(error.exitCode)
        }
    }

    /// The config (named with --config, or found) and its library's store, for commands that need both.
    func configAndStore(_ arguments: ParsedArguments) -> Result<(Config, TargetStore), ExitCode> {
        loadConfig(arguments.options["--config"].map(absolute)).flatMap { config in
            targetStore(arguments, config: config, confined: true).map { (config, $0) }
        }
    }

    /// The store for `--state-dir`, or the config's (named or found), or the default.
    func targetStore(_ arguments: ParsedArguments, target: String? = nil) -> Result<TargetStore, ExitCode> {
        optionalConfig(arguments).flatMap { targetStore(arguments, config: $0, target: target) }
    }

    /// For commands that act on one PDF: its absolute path and the store; or, when the arguments do
    /// not name exactly one, the usage error.
    func onePDF(_ command: String, synopsis: String, _ arguments: ParsedArguments)
        -> Result<(target: String, store: TargetStore), ExitCode>
    {
        guard arguments.positionals.count == 1 else {
            err("pdftrapper \(command): name one PDF\nusage: pdftrapper \(synopsis)")
            return .failure(.usage)
        }
        let target = absolute(arguments.positionals[0])
        return targetStore(arguments, target: target).map { (target, $0) }
    }

    /// Runs an engine operation, reporting its failure in one line.
    func report(_ command: String, _ error: any Error) -> ExitCode {
        if let error = error as? EngineError {
            err("pdftrapper \(command): \(error)")
            return error.exitCode
        }
        err("pdftrapper \(command): \(error)")
        return .ioError
    }
}
