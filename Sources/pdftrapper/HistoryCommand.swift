import Daemon
import Foundation
import PDFAccess
import TrapperCore

/// `pdftrapper history TARGET`: every revision of a PDF, read from the file itself.
enum HistoryCommand: Command {
    static let name = "history"
    static let summary = "List a PDF's revisions: what made each, when, and from which inputs."
    static let synopsis = "history TARGET.pdf [--thumbnails DIR]"
    static let details = """
    Lists the revisions of TARGET.pdf, oldest first, from the records PDFTrapper keeps in each
    revision's trailer: the operation, the time (UTC), the pages added, the byte range, the
    revision as an edit script's base_revision names it (END-HASH), and each input with the start
    of its SHA-256. What another program wrote is shown as "foreign".
    Reads only the tails of the revisions, not the whole file.

      --thumbnails DIR  also write one small picture per revision, DIR/revision-N.png (160
                        pixels on the longer side), of the page it is about, as it left it:
                        the last page it added (the first, for pages put in front), else page 1
    """
    static let arguments = ArgumentSpec(options: ["--thumbnails"])

    static func run(_ arguments: ParsedArguments, _ context: CommandContext) -> ExitCode {
        guard arguments.positionals.count == 1 else {
            context.err("pdftrapper history: name one PDF\nusage: pdftrapper \(synopsis)")
            return .usage
        }
        let target = context.absolute(arguments.positionals[0])
        let entries: [RevisionHistory.Entry]
        let source: PDFFileSource
        do {
            source = try PDFFileSource(path: target)
            entries = try RevisionHistory.read(source, decoder: FlateStreamDecoder())
        } catch PDFError.io {
            context.err("pdftrapper history: \(arguments.positionals[0]): cannot be read")
            return .noInput
        } catch {
            context.err("pdftrapper history: \(arguments.positionals[0]): \(error)")
            return .dataError
        }
        for (number, entry) in entries.enumerated() {
            context.out(describe(entry, number: number + 1, revision: TargetStore.revision(in: source, end: entry.end)))
        }
        if let folder = arguments.options["--thumbnails"] {
            return thumbnails(of: target, into: context.absolute(folder), context)
        }
        return .ok
    }

    static func thumbnails(of target: String, into folder: String, _ context: CommandContext) -> ExitCode {
        do {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        } catch {
            context.err("pdftrapper history: \(folder): \(error.localizedDescription)")
            return .cantCreate
        }
        do {
            let pictures = try PagePictures(target: target)
            for (index, entry) in pictures.history.enumerated() {
                let png = try pictures.withRevision(index + 1) { renderer -> [UInt8]? in
                    guard renderer.pageCount > 0 else { return nil }
                    let record = entry.record
                    let page = record?.operation == .ingest && record?.position != .front ? renderer.pageCount - 1 : 0
                    return try PagePictures.png(renderer, page: page, fitting: 160)
                }
                guard let png else { continue }
                try Data(png).write(to: URL(fileURLWithPath: folder + "/revision-\(index + 1).png"), options: .atomic)
            }
            context.out("\(folder): \(pictures.history.count) thumbnail\(pictures.history.count == 1 ? "" : "s")")
            return .ok
        } catch {
            context.err("pdftrapper history: thumbnails: \(error)")
            return .dataError
        }
    }

    static func describe(_ entry: RevisionHistory.Entry, number: Int, revision: RevisionID? = nil) -> String {
        let bytes = "bytes \(entry.base)-\(entry.end)" + (revision.map { "  revision \($0)" } ?? "")
        guard let record = entry.record else {
            return "\(number)  foreign  written by another program  \(bytes)"
        }
        let when = ISO8601DateFormatter().string(from: record.date)
        let count = abs(record.pagesAdded)
        let pages = record.pagesAdded == 0 ? "" : "  \(record.pagesAdded > 0 ? "+" : "-")\(count) page\(count == 1 ? "" : "s")"
            + (record.position == .front ? " in front" : "")
        var line = "\(number)  \(record.operation.rawValue)  \(when)\(pages)  \(bytes)"
        if !record.inputs.isEmpty {
            line += "  " + record.inputs.map { "\($0.name) (sha256 \(SHA256.hex($0.sha256).prefix(12)))" }.joined(separator: ", ")
        }
        if let note = record.note { line += "  [\(note)]" }
        return line
    }

    /// "IMG_1.jpg and 2 more (3 pages)".
    static func describeInputs(_ record: RevisionRecord) -> String {
        let pages = "\(record.pagesAdded) page\(record.pagesAdded == 1 ? "" : "s")"
        guard let first = record.inputs.first else { return pages }
        let more = record.inputs.count > 1 ? " and \(record.inputs.count - 1) more" : ""
        return "\(first.name)\(more) (\(pages))"
    }
}
