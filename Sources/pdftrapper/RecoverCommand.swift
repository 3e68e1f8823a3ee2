import Daemon
import TrapperCore

/// `pdftrapper recover`: finish or roll back whatever a crash left half-done.
enum RecoverCommand: Command {
    static let name = "recover"
    static let summary = "Finish or roll back changes a crash left half-done (every command does this first)."
    static let synopsis = "recover [--config FILE] [--state-dir DIR]"
    static let details = """
    Reads the journal in the state folder and brings every target it names back to a whole
    revision: the old one when the change had not finished, the new one when it had. The daemon
    and every command that writes do this before anything else; this command does only that,
    and says what it did.
    """
    static let arguments = ArgumentSpec(options: CommandContext.engineOptions)

    static func run(_ arguments: ParsedArguments, _ context: CommandContext) -> ExitCode {
        guard arguments.positionals.isEmpty else {
            context.err("pdftrapper recover: takes no arguments\nusage: pdftrapper \(synopsis)")
            return .usage
        }
        switch context.targetStore(arguments) {
        case .failure(let code):
            return code
        case .success(let store):
            if store.log.isEmpty { context.out("nothing to recover in \(store.state.path)") }
            return .ok
        }
    }
}
