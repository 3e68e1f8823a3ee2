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
    in a temporary file, fsynced and renamed over the target, so a crash leaves the old file or
    the new one. Its revision history starts anew: what was there before can no longer be
    undone or redone, and bytes that earlier revisions only hid (deleted pages) are really gone.

      --linearize      also linearize ("fast web view")
    """
    static let arguments = ArgumentSpec(flags: ["--linearize"], options: CommandContext.engineOptions)

    static func run(_ arguments: ParsedArguments, _ context: CommandContext) -> ExitCode {
        let (target, store): (String, TargetStore)
        switch context.onePDF(name, synopsis: synopsis, arguments) {
        case .failure(let code): return code
        case .success(let opened): (target, store) = opened
        }
        func size() -> Int { (try? FileManager.default.attributesOfItem(atPath: target)[.size] as? NSNumber)?.intValue ?? 0 }
        let before = size()
        do {
            let warnings = try store.rewriteWhole(target: target) { path in
                try PDFRewriter.compact(path: path, linearize: arguments.has("--linearize"))
            }
            warnings.forEach { context.err("pdftrapper compact: qpdf: \($0)") }
            let after = size()
            context.out("\(arguments.positionals[0]): compacted, \(before) -> \(after) bytes; its history starts anew "
                        + "(earlier revisions can no longer be undone)")
            return .ok
        } catch {
            return context.report("compact", error)
        }
    }
}
