import Daemon
import Foundation
import PDFAccess
import TrapperCore

/// `pdftrapper compact TARGET [--linearize]`: one full rewrite through qpdf; history starts anew.
enum CompactCommand: Command {
    static let name = "compact"
    static let summary = "Rewrite a PDF whole through qpdf: smaller, history squashed, removed bytes really gone."
    static let synopsis = "compact TARGET.pdf [--linearize] [--config FILE] [--state-dir DIR]"
    static let details = """
    Rewrites TARGET.pdf as a single revision with object streams and compressed streams, staged
    in a temporary file, fsynced and checked (qpdf and poppler read it back, with every page and
    object the old file had) before it is renamed over the target, so a crash leaves the old file
    or the new one. The old file is kept whole in the state folder: `pdftrapper undo` puts it
    back byte for byte (the last 3 full rewrites of a file are kept). Bytes that earlier
    revisions only hid (deleted pages) are gone from the file itself.

      --linearize      also linearize ("fast web view")
    """
    static let arguments = ArgumentSpec(flags: ["--linearize"], options: CommandContext.engineOptions)

    static func run(_ arguments: ParsedArguments, _ context: CommandContext) -> ExitCode {
        let (target, store): (String, TargetStore)
        switch context.onePDF(name, synopsis: synopsis, arguments) {
        case .failure(let code): return code
        case .success(let opened): (target, store) = opened
        }
        do {
            let report = try store.rewriteWhole(target: target, .compact(linearize: arguments.has("--linearize")))
            report.warnings.forEach { context.err("pdftrapper compact: qpdf: \($0)") }
            context.out("\(arguments.positionals[0]): compacted, \(report.bytesBefore) -> \(report.bytesAfter) bytes; "
                        + "the file before it is kept: `pdftrapper undo` puts it back")
            return .ok
        } catch {
            return context.report("compact", error)
        }
    }
}
