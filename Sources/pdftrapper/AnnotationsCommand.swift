import Foundation
import PDFAccess
import TrapperCore

/// `pdftrapper annotations TARGET`: every annotation of a PDF, with the ids `erase` takes.
enum AnnotationsCommand: Command {
    static let name = "annotations"
    static let summary = "List a PDF's annotations (markup, notes, signatures) with the ids erase takes."
    static let synopsis = "annotations TARGET.pdf [--page N] [--json]"
    static let details = """
    Lists every annotation of TARGET.pdf, page by page: its id, its kind (the PDF subtype), its
    rectangle in points (PDF user space, y up), its author and its text. The id is the
    annotation's /NM where it has one (PDFTrapper's start with "pdftrapper-"), else pP-N, the Nth
    annotation of page P. An edit script's erase op takes these ids.

      --page N   only page N
      --json     one JSON array of objects (page, id, kind, rect, author, contents)

    Exit codes: 0 listed, 64 usage, 65 not a readable PDF, 66 no such file.
    """
    static let arguments = ArgumentSpec(flags: ["--json"], options: ["--page"])

    static func run(_ arguments: ParsedArguments, _ context: CommandContext) -> ExitCode {
        guard arguments.positionals.count == 1 else {
            context.err("pdftrapper annotations: name one PDF\nusage: pdftrapper \(synopsis)")
            return .usage
        }
        let written = arguments.positionals[0]
        let target = context.absolute(written)
        guard FileManager.default.fileExists(atPath: target) else {
            context.err("pdftrapper annotations: \(written): no such file")
            return .noInput
        }
        var found: [PDFPageEditor.AnnotationSummary] = []
        do {
            let editor = try PDFPageEditor(reader: PDFTailReader(path: target, decoder: FlateStreamDecoder()))
            var pages = Array(0..<editor.pageCount)
            if let page = arguments.options["--page"] {
                guard let number = Int(page), (1...editor.pageCount).contains(number) else {
                    context.err("pdftrapper annotations: --page \(page): the document has pages 1 to \(editor.pageCount)")
                    return .usage
                }
                pages = [number - 1]
            }
            for index in pages { found += try editor.annotations(ofPage: index) }
        } catch {
            context.err("pdftrapper annotations: \(written): \(error)")
            return .dataError
        }
        if arguments.flags.contains("--json") {
            let objects: [[String: Any]] = found.map { annotation in
                var object: [String: Any] = ["page": annotation.page + 1, "id": annotation.id, "kind": annotation.subtype]
                if let rect = annotation.rect { object["rect"] = rect.numbers.map { ($0 * 100).rounded() / 100 } }
                if let author = annotation.author { object["author"] = author }
                if let contents = annotation.contents { object["contents"] = contents }
                return object
            }
            let data = (try? JSONSerialization.data(withJSONObject: objects, options: [.prettyPrinted, .sortedKeys])) ?? Data()
            context.out(String(decoding: data, as: UTF8.self))
            return .ok
        }
        for annotation in found {
            let rect = annotation.rect.map { "[" + $0.numbers.map { TableFormat.number($0) }.joined(separator: " ") + "]" } ?? "-"
            var line = "page \(annotation.page + 1)  \(annotation.id)  \(annotation.subtype)  \(rect)"
            if let author = annotation.author { line += "  by \(author)" }
            if let contents = annotation.contents { line += "  \"\(contents.replacingOccurrences(of: "\n", with: " "))\"" }
            context.out(line)
        }
        return .ok
    }
}

enum TableFormat {
    /// A coordinate to two decimals, without trailing zeros.
    static func number(_ value: Double) -> String {
        let rounded = (value * 100).rounded() / 100
        return rounded == rounded.rounded() ? String(Int(rounded)) : String(rounded)
    }
}
