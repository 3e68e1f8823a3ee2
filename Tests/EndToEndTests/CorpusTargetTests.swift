import Foundation
import TestSupport
import Testing

/// Every real PDF works as a target, those made here by real producers (ProducedCorpus) and those
/// of the shared corpus when it is there: an image and a PDF appended, undone and redone, with its
/// forms, outlines and annotations intact and its pages looking the same.
@Suite struct CorpusTargetTests {
    /// What pypdf sees of a document's structure: outline entries, annotations per page, form fields.
    static let structure = """
        import sys, pypdf
        reader = pypdf.PdfReader(sys.argv[1])
        def count(items):
            return sum(count(i) if isinstance(i, list) else 1 for i in items)
        annots = [len(p.get("/Annots") or []) for p in reader.pages]
        print(count(reader.outline), len(reader.get_fields() or {}), annots[:int(sys.argv[2])])
        """

    @Test(arguments: PDFCorpus.unencrypted(try ProducedCorpus.files()))
    func producedFile(source: String) throws { try appendUndoRedo(source: source) }

    @Test(.enabled(if: PDFCorpus.isPresent, "\(PDFCorpus.missing)"), arguments: PDFCorpus.unencrypted(try PDFCorpus.filesIfPresent()))
    func sharedCorpusFile(source: String) throws { try appendUndoRedo(source: source) }

    func appendUndoRedo(source: String) throws {
        let scratch = try Scratch()
        let target = scratch.path + "/T.pdf"
        try FileManager.default.copyItem(atPath: source, toPath: target)
        try TestImages.make(scratch.path + "/a.jpg")
        let pdf = try ProducedCorpus.file("ghostscript-4-pages.pdf")
        let pages = try PDFReaders.pdfinfoPages(source)
        let structure = try Python.run(Self.structure, [source, "\(pages)"])
        let renders = try (1...pages).map { try PDFReaders.renderPPM(source, page: $0) }
        func run(_ arguments: [String]) throws -> Run {
            try Binary.run(arguments + ["--state-dir", scratch.path + "/state"], in: scratch.url)
        }

        let image = try run(["ingest", "--to", "T.pdf", "a.jpg"])
        #expect(image.status == 0, "stderr: \(image.stderr)")
        let afterImage = try Data(contentsOf: URL(fileURLWithPath: target))
        let imported = try run(["ingest", "--to", "T.pdf", pdf])
        #expect(imported.status == 0, "stderr: \(imported.stderr)")
        let afterPDF = try Data(contentsOf: URL(fileURLWithPath: target))
        #expect(afterPDF.starts(with: afterImage))
        #expect(afterImage.starts(with: try Data(contentsOf: URL(fileURLWithPath: source))))

        #expect(try run(["undo", "T.pdf", "--steps", "2"]).status == 0)
        #expect(FileManager.default.contentsEqual(atPath: source, andPath: target))
        #expect(try run(["redo", "T.pdf"]).status == 0)
        #expect(try Data(contentsOf: URL(fileURLWithPath: target)) == afterImage)
        #expect(try run(["redo", "T.pdf"]).status == 0)
        #expect(try Data(contentsOf: URL(fileURLWithPath: target)) == afterPDF)

        try PDFReaders.requireAllAgree(target, pages: pages + 5)
        #expect(try Python.run(Self.structure, [target, "\(pages)"]) == structure, "outline, fields or annotations changed")
        for page in 1...pages {
            #expect(try PDFReaders.renderPPM(target, page: page) == renders[page - 1], "page \(page) renders differently")
        }
    }
}
