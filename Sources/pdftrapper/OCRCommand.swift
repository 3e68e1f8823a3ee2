import Daemon
import Foundation
import Imaging
import TrapperCore

/// `pdftrapper ocr TARGET`: a text layer for every page without text, now, as one revision; or
/// `--queued`: the OCR the queue holds, as the daemon does it.
enum OCRCommand: Command {
    static let name = "ocr"
    static let summary = "Give a PDF's pages without text an invisible text layer (tesseract), as one revision."
    static let synopsis = "ocr TARGET.pdf [--lang eng+deu] [--config FILE] [--state-dir DIR] | ocr --queued [--config FILE]"
    static let details = """
    Renders every page of TARGET.pdf that has no text (a scan, a photo, an imported PDF of
    pictures) at 300 dpi through poppler, reads it with tesseract, and writes an invisible text
    layer (text render mode 3) over the picture, each word where tesseract found it, so that
    pdftotext and a viewer's search and selection find the words. All the pages' layers are one
    revision (undo takes it back). Pages with text, including a layer of ours, are skipped.

    With --queued, it does the OCR that rules with `ocr = [...]` queued when their inputs went
    in (the daemon does this by itself, after each capture; capture never waits for it).

      --lang L         tesseract languages, joined by '+' (default: eng)
      --config FILE    the config: its library's state folder (and its queue)
      --state-dir DIR  the journal and undo folder (default: the library's .pdftrapper)

    Exit codes: 0 done, 64 usage, 65 not a readable PDF, 69 a language tesseract has no data for.
    """
    static let arguments = ArgumentSpec(flags: ["--queued"], options: CommandContext.engineOptions.union(["--lang"]))

    static func run(_ arguments: ParsedArguments, _ context: CommandContext) -> ExitCode {
        if arguments.has("--queued") { return runQueue(arguments, context) }
        let languages = (arguments.options["--lang"] ?? "eng").split(separator: "+").map(String.init)
        let (target, store): (String, TargetStore)
        switch context.onePDF(name, synopsis: synopsis, arguments) {
        case .failure(let code): return code
        case .success(let opened): (target, store) = opened
        }
        do {
            // One engine a core: the pages are read side by side.
            let engines = try (0..<max(1, ProcessInfo.processInfo.activeProcessorCount)).map { _ in try OCREngine(languages: languages) }
            let outcome = try OCRJob(store: store).run(target: target, pages: nil, engines: engines)
            context.out(outcome.summary)
            return .ok
        } catch let error as OCREngine.Failure {
            context.err("pdftrapper ocr: \(error)")
            return .unavailable
        } catch {
            return context.report("ocr", error)
        }
    }

    static func runQueue(_ arguments: ParsedArguments, _ context: CommandContext) -> ExitCode {
        let store: TargetStore
        switch context.configAndStore(arguments) {
        case .failure(let code): return code
        case .success(let opened): store = opened.1
        }
        var result = ExitCode.ok
        for line in OCRWork.drain(OCRQueue(state: store.state), store: store) {
            if line.failed { result = .dataError }
            (line.failed ? context.err : context.out)(line.text)
        }
        return result
    }
}
