import Foundation
import PDFAccess
import TrapperCore

/// `pdftrapper preview TARGET`: one page as a PNG, a quick look on a headless box.
enum PreviewCommand: Command {
    static let name = "preview"
    static let summary = "Render a page of a PDF (now, or as a revision left it) to a PNG file."
    static let synopsis = "preview TARGET.pdf [--page N] [--revision R] [--dpi D] [--out FILE.png]"
    static let details = """
    Renders page N of TARGET.pdf through poppler, as a viewer shows it (its rotation and crop
    box), to an RGB PNG: a quick look at what the scanner or an edit produced, on a box without a
    screen. With --revision, the page as revision R (its number in `pdftrapper history`) left
    the file; the file itself is only read.

      --page N        the page, from 1 (default 1)
      --revision R    the revision, from 1 (default the last)
      --dpi D         the resolution (default 100; at most 600)
      --out FILE.png  where to write it (default TARGET-pN.png, or TARGET-pN-rR.png, in the
                      current folder); "-" writes the PNG to standard output

    Exit codes: 0 written, 64 usage, 65 not a readable PDF, 66 no such file, 73 cannot write.
    """
    static let arguments = ArgumentSpec(options: ["--page", "--revision", "--dpi", "--out"])

    static func run(_ arguments: ParsedArguments, _ context: CommandContext) -> ExitCode {
        guard arguments.positionals.count == 1 else {
            context.err("pdftrapper preview: name one PDF\nusage: pdftrapper \(synopsis)")
            return .usage
        }
        let written = arguments.positionals[0]
        let target = context.absolute(written)
        guard FileManager.default.fileExists(atPath: target) else {
            context.err("pdftrapper preview: \(written): no such file")
            return .noInput
        }
        func number(_ option: String, default fallback: Int?, in range: ClosedRange<Int>) -> Int?? {
            guard let text = arguments.options[option] else { return .some(fallback) }
            guard let value = Int(text), range.contains(value) else {
                context.err("pdftrapper preview: \(option) \(text): a number from \(range.lowerBound) to \(range.upperBound)")
                return nil
            }
            return .some(value)
        }
        guard let dpi = number("--dpi", default: 100, in: 1...600), let dpi else { return .usage }
        let pictures: PagePictures
        do {
            pictures = try PagePictures(target: target)
        } catch {
            context.err("pdftrapper preview: \(written): \(error)")
            return .dataError
        }
        guard let revision = number("--revision", default: nil, in: 1...max(1, pictures.history.count)) else { return .usage }
        do {
            let (png, page) = try pictures.withRevision(revision) { renderer throws -> ([UInt8]?, Int) in
                guard let page = number("--page", default: 1, in: 1...max(1, renderer.pageCount)), let page else { return (nil, 0) }
                return (try PagePictures.png(renderer, page: page - 1, dpi: dpi), page)
            }
            guard let png else { return .usage }
            let stem = ((written as NSString).lastPathComponent as NSString).deletingPathExtension
            let out = arguments.options["--out"] ?? "\(stem)-p\(page)" + (revision.map { "-r\($0)" } ?? "") + ".png"
            if out == "-" {
                FileHandle.standardOutput.write(Data(png))
            } else {
                do {
                    try Data(png).write(to: URL(fileURLWithPath: context.absolute(out)), options: .atomic)
                } catch {
                    context.err("pdftrapper preview: \(out): \(error.localizedDescription)")
                    return .cantCreate
                }
                context.out("\(out): page \(page) of \(written)" + (revision.map { " as revision \($0) left it" } ?? "") + " at \(dpi) dpi")
            }
            return .ok
        } catch {
            context.err("pdftrapper preview: \(written): \(error)")
            return .dataError
        }
    }
}
