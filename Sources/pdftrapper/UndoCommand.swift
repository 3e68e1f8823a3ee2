import Daemon
import TrapperCore

/// `pdftrapper undo TARGET [--steps N]`: take back the last revisions PDFTrapper wrote.
enum UndoCommand: Command {
    static let name = "undo"
    static let summary = "Take back the last revision(s) PDFTrapper wrote to a PDF; redo puts them back."
    static let synopsis = "undo TARGET.pdf [--steps N] [--config FILE] [--state-dir DIR]"
    static let details = """
    Cuts TARGET.pdf back to where its last revision began: the file is then byte for byte what it
    was before that revision. The removed bytes are kept in the state folder, so `pdftrapper redo`
    can put exactly them back, also after a restart. Refuses, with the reason, when another
    program has changed the file since PDFTrapper's last revision, when the last revision was
    written by another program, or when only the revision that created the file is left.

      --steps N        undo the last N revisions (default 1)
      --config FILE    the config whose state folder to use
      --state-dir DIR  the journal and undo folder (default: the library's .pdftrapper)
    """
    static let arguments = ArgumentSpec(options: CommandContext.engineOptions.union(["--steps"]))

    static func run(_ arguments: ParsedArguments, _ context: CommandContext) -> ExitCode {
        let steps = arguments.options["--steps"].map { Int($0) } ?? 1
        guard let steps, steps >= 1 else {
            context.err("pdftrapper undo: --steps must be a whole number from 1 up")
            return .usage
        }
        let (target, store): (String, TargetStore)
        switch context.onePDF(name, synopsis: synopsis, arguments) {
        case .failure(let code): return code
        case .success(let opened): (target, store) = opened
        }
        do {
            for record in try store.undo(target: target, steps: steps) {
                context.out("\(arguments.positionals[0]): undid the \(record.operation.rawValue) of "
                            + "\(HistoryCommand.describeInputs(record)); the file now ends at byte \(record.base)")
            }
            return .ok
        } catch {
            return context.report("undo", error)
        }
    }
}

/// `pdftrapper redo TARGET`: put back the last revision undo took away.
enum RedoCommand: Command {
    static let name = "redo"
    static let summary = "Put back, byte for byte, the revision the last undo took away."
    static let synopsis = "redo TARGET.pdf [--config FILE] [--state-dir DIR]"
    static let details = """
    Appends again exactly the bytes the last `pdftrapper undo` of TARGET.pdf removed. Refuses
    when there is nothing to redo, or when the file changed since the undo. Any new revision
    (an ingest or an edit) after an undo clears what could be redone.
    """
    static let arguments = ArgumentSpec(options: CommandContext.engineOptions)

    static func run(_ arguments: ParsedArguments, _ context: CommandContext) -> ExitCode {
        let (target, store): (String, TargetStore)
        switch context.onePDF(name, synopsis: synopsis, arguments) {
        case .failure(let code): return code
        case .success(let opened): (target, store) = opened
        }
        do {
            let record = try store.redo(target: target)
            context.out("\(arguments.positionals[0]): redid the \(record.operation.rawValue) of \(HistoryCommand.describeInputs(record))")
            return .ok
        } catch {
            return context.report("redo", error)
        }
    }
}
