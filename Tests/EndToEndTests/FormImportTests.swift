import Foundation
import TestSupport
import Testing

/// Fields of imported PDFs stay fields: their form joins the target's, and the pages look as they did.
@Suite struct FormImportTests {
    static let fields = "import sys, pypdf\nprint(len(pypdf.PdfReader(sys.argv[1]).get_fields() or {}))"

    @Test func importedFieldsJoinANewAndAnExistingForm() throws {
        let scratch = try Scratch()
        let latex = try #require(try PDFCorpus.files().first { $0.hasSuffix("pdflatex-forms.pdf") })
        let office = try #require(try PDFCorpus.files().first { $0.hasSuffix("libreoffice-form.pdf") })
        let latexFields = try Int(Python.run(Self.fields, [latex]).trimmingCharacters(in: .whitespacesAndNewlines))!
        let officeFields = try Int(Python.run(Self.fields, [office]).trimmingCharacters(in: .whitespacesAndNewlines))!
        #expect(latexFields > 0 && officeFields > 0)
        let state = ["--state-dir", scratch.path + "/state"]

        #expect(try Binary.run(["ingest", "--to", "New.pdf", latex] + state, in: scratch.url).status == 0)
        #expect(try Python.run(Self.fields, [scratch.path + "/New.pdf"]) == "\(latexFields)\n")
        #expect(try PDFReaders.renderPPM(scratch.path + "/New.pdf", page: 1) == PDFReaders.renderPPM(latex, page: 1))

        try FileManager.default.copyItem(atPath: office, toPath: scratch.path + "/Office.pdf")
        let officePages = try PDFReaders.pdfinfoPages(office)
        #expect(try Binary.run(["ingest", "--to", "Office.pdf", latex] + state, in: scratch.url).status == 0)
        let target = scratch.path + "/Office.pdf"
        try PDFReaders.requireAllAgree(target, pages: officePages + PDFReaders.pdfinfoPages(latex))
        #expect(try Python.run(Self.fields, [target]) == "\(latexFields + officeFields)\n")
        #expect(try PDFReaders.renderPPM(target, page: 1) == PDFReaders.renderPPM(office, page: 1))
        #expect(try PDFReaders.renderPPM(target, page: officePages + 1) == PDFReaders.renderPPM(latex, page: 1))
    }
}
