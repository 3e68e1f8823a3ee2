import Daemon
import TrapperCore

/// `pdftrapper edit-worker`: one edit script for the daemon, in a process it can stop (not for use by hand).
enum EditWorkerCommand: Command {
    static let name = "edit-worker"
    static let summary = "The daemon's edit-script process: applies one claimed script (started by `run`)."
    static let synopsis = "edit-worker --config FILE [--config-on-stdin] CLAIMED RELATIVE"
    static let details = """
    Started by `pdftrapper run` for every edit script it takes, so that a script that runs past
    limits.edit_seconds, or a stop of the daemon, ends it at once without touching the daemon's
    loop. Applies the claimed script as `run` would, files it in done/ or failed/, and prints what
    became of it as JSON on stdout. With --config-on-stdin the config is the daemon's, read from
    stdin (FILE only places its relative paths), so the worker runs with the config the daemon
    runs, not an edit of FILE not yet reloaded. Not meant to be run by hand.
    """
    static let arguments = ArgumentSpec(flags: ["--config-on-stdin"], options: ["--config"])

    static func run(_ arguments: ParsedArguments, _ context: CommandContext) -> ExitCode {
        guard let file = arguments.options["--config"], arguments.positionals.count == 2 else {
            context.err("usage: pdftrapper \(synopsis)")
            return .usage
        }
        return EditWorker.run(configPath: context.absolute(file), configOnStdin: arguments.flags.contains("--config-on-stdin"),
                              claimed: arguments.positionals[0],
                              relativePath: arguments.positionals[1], environment: context.environment)
    }
}
