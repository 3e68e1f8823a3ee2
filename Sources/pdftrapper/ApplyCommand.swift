import Daemon
import Foundation
import TrapperCore

/// `pdftrapper apply SCRIPT`: one edit script, now, as the daemon would apply it from the edits folder.
enum ApplyCommand: Command {
    static let name = "apply"
    static let summary = "Apply an edit script to the PDF it names, as one revision (or not at all)."
    static let synopsis = "apply SCRIPT.toml|SCRIPT.json [--config FILE] [--state-dir DIR]"
    static let details = """
    Reads the edit script (TOML, or JSON with the same structure), checks all of it against its
    target, a PDF below the library root, and applies every edit as ONE revision: page
    operations (rotate, delete, move, insert-blank, duplicate, crop), metadata and bookmarks;
    markup as annotations with appearance streams (highlight, underline, strikeout, squiggly by
    rects or by text found on the page; ink, rect, oval, line, arrow, textbox, note); saved
    signatures from the signatures folder (a stamp, or drawn into the page with flatten = true);
    erase (by id as pdftrapper annotations lists them, kind, author, region, or all PDFTrapper
    made); or undo/redo. If any edit cannot be done, nothing is written and each problem is printed as
    FILE:LINE:COL: message or "edit N (op): reason". The script file stays where it is (the
    daemon moves the scripts it takes to done/ or failed/ in the edits folder).

      --config FILE    the config (its library root and state folder)
      --state-dir DIR  where the journal and undo history live

    Exit codes: 0 applied, 65 the script or an edit was refused, 66 no such script, 78 bad config.
    """
    static let arguments = ArgumentSpec(options: CommandContext.engineOptions)

    static func run(_ arguments: ParsedArguments, _ context: CommandContext) -> ExitCode {
        guard arguments.positionals.count == 1 else {
            context.err("pdftrapper apply: name one script\nusage: pdftrapper \(synopsis)")
            return .usage
        }
        let path = context.absolute(arguments.positionals[0])
        guard FileManager.default.fileExists(atPath: path) else {
            context.err("pdftrapper apply: \(path): no such file")
            return .noInput
        }
        let (config, store): (Config, TargetStore)
        switch context.configAndStore(arguments) {
        case .failure(let code): return code
        case .success(let opened): (config, store) = opened
        }
        let outcome = EditJob(config: config, store: store).take(path, relativePath: arguments.positionals[0], file: false)
        store.log.forEach { context.err("pdftrapper: \($0)") }
        guard let applied = outcome.applied else {
            outcome.problems.forEach { context.err($0) }
            return .dataError
        }
        context.out("\(applied.target): \(applied.operations.joined(separator: ", ")); \(applied.pages) pages, "
                    + "revision ends at byte \(applied.end)")
        return .ok
    }
}
