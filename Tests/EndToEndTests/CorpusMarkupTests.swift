import Foundation
import TestSupport
import Testing

/// Markup and a flattened signature on page 1 of every real PDF, those made here by real producers
/// (ProducedCorpus) and those of the shared corpus when it is there: every reader still opens it,
/// the other pages look as they did, and erasing what PDFTrapper made leaves the page's own
/// annotations as they were.
@Suite struct CorpusMarkupTests {
    @Test(arguments: PDFCorpus.unencrypted(try ProducedCorpus.files()))
    func producedFile(source: String) throws { try markupOnARealDocument(source: source) }

    @Test(.enabled(if: PDFCorpus.isPresent, "\(PDFCorpus.missing)"), arguments: PDFCorpus.unencrypted(try PDFCorpus.filesIfPresent()))
    func sharedCorpusFile(source: String) throws { try markupOnARealDocument(source: source) }

    func markupOnARealDocument(source: String) throws {
        let scratch = try Scratch()
        try scratch.write("config.toml", EditScriptTests.config)
        for folder in ["library", "signatures"] {
            try FileManager.default.createDirectory(atPath: scratch.path + "/" + folder, withIntermediateDirectories: true)
        }
        try scratch.write("signatures/me.toml", "strokes = [[[0, 0], [30, 20], [60, 0]]]\n")
        let target = scratch.path + "/library/C.pdf"
        try FileManager.default.copyItem(atPath: source, toPath: target)
        let pages = try PDFReaders.pdfinfoPages(source)
        let ownAnnotations = try Binary.run(["annotations", "library/C.pdf", "--page", "1"], in: scratch.url)
        #expect(ownAnnotations.status == 0, "\(ownAnnotations.stderr)")
        let later = pages > 1 ? try PDFReaders.renderPPM(source, page: pages) : nil

        // Everything is placed for a 300-point page and scaled to page 1 as shown (ImageMagick's are
        // a few points across); the text box and the 20-point note icon only where they fit.
        let size = try Python.run("""
            import sys, pypdf
            page = pypdf.PdfReader(sys.argv[1]).pages[0]
            w, h = float(page.mediabox.width), float(page.mediabox.height)
            print(min(w, h))
            """, [source])
        let scale = (Double(size.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 300) / 300
        /// A length of the 300-point layout, in inches of this page.
        func s(_ points: Double) -> String { String(points * scale / 72) }
        let textbox = scale < 0.5 ? ""
            : "[[edit]]\nop = \"textbox\"\npage = 1\nbox = [\(s(20)), \(s(100)), \(s(140)), \(s(130))]\ntext = \"Checked\"\nsize = 11\n"
            + "[[edit]]\nop = \"note\"\npage = 1\nat = [\(s(150)), \(s(20))]\ncontents = \"A note\"\n"
        try scratch.write("mark.toml", """
            target = "C.pdf"
            origin = "top-left"
            units = "in"
            [[edit]]
            op = "highlight"
            page = 1
            rects = [[\(s(20)), \(s(20)), \(s(120)), \(s(32))]]
            [[edit]]
            op = "ink"
            page = 1
            width = \(max(0.1, 2 * scale))
            strokes = [[[\(s(20)), \(s(60))], [\(s(60)), \(s(90))], [\(s(100)), \(s(60))]]]
            [[edit]]
            op = "signature"
            page = 1
            name = "me"
            box = [\(s(20)), \(s(140)), \(s(100)), \(s(170))]
            flatten = true

            """ + textbox)
        let marked = try Binary.run(["apply", "--config", "config.toml", "mark.toml"], in: scratch.url)
        #expect(marked.status == 0, "\(PDFCorpus.name(source)): \(marked.stderr)")
        try PDFReaders.requireAllAgree(target, pages: pages)
        if let later { #expect(try PDFReaders.renderPPM(target, page: pages) == later, "the last page looks as it did") }
        let listed = try Binary.run(["annotations", "library/C.pdf", "--page", "1"], in: scratch.url)
        #expect(listed.stdout.components(separatedBy: "pdftrapper-").count - 1 == (textbox.isEmpty ? 2 : 4), "\(listed.stdout)")

        try scratch.write("erase.toml", "target = \"C.pdf\"\n[[edit]]\nop = \"erase\"\nmade_by_pdftrapper = true\n")
        let erased = try Binary.run(["apply", "--config", "config.toml", "erase.toml"], in: scratch.url)
        #expect(erased.status == 0, "\(erased.stderr)")
        let after = try Binary.run(["annotations", "library/C.pdf", "--page", "1"], in: scratch.url)
        #expect(after.stdout == ownAnnotations.stdout, "the document's own annotations stay as they were")
        try PDFReaders.requireAllAgree(target, pages: pages)
    }
}
