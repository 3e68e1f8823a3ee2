import Foundation
import TestSupport
import Testing

/// Fields of imported PDFs stay fields: their form joins the target's, and the pages look as they did.
@Suite struct FormImportTests {
    static let fields = "import sys, pypdf\nprint(len(pypdf.PdfReader(sys.argv[1]).get_fields() or {}))"

    /// reportlab's form imported into a new file, then into pypdf's.
    @Test func producedFormsJoin() throws {
        try importedFieldsJoinANewAndAnExistingForm(
            incoming: ProducedCorpus.file("reportlab-form.pdf"), existing: ProducedCorpus.file("pypdf-form.pdf"))
    }

    /// pdflatex's form imported into a new file, then into LibreOffice's (the shared corpus).
    @Test(.enabled(if: PDFCorpus.isPresent, "\(PDFCorpus.missing)")) func sharedCorpusFormsJoin() throws {
        try importedFieldsJoinANewAndAnExistingForm(
            incoming: PDFCorpus.file("pdflatex-forms.pdf"), existing: PDFCorpus.file("libreoffice-form.pdf"))
    }

    /// `incoming`'s fields join a new file's form, then the form `existing` already has.
    func importedFieldsJoinANewAndAnExistingForm(incoming: String, existing: String) throws {
        let scratch = try Scratch()
        let incomingFields = try Int(Python.run(Self.fields, [incoming]).trimmingCharacters(in: .whitespacesAndNewlines))!
        let existingFields = try Int(Python.run(Self.fields, [existing]).trimmingCharacters(in: .whitespacesAndNewlines))!
        #expect(incomingFields > 0 && existingFields > 0)
        let state = ["--state-dir", scratch.path + "/state"]

        #expect(try Binary.run(["ingest", "--to", "New.pdf", incoming] + state, in: scratch.url).status == 0)
        #expect(try Python.run(Self.fields, [scratch.path + "/New.pdf"]) == "\(incomingFields)\n")
        #expect(try PDFReaders.renderPPM(scratch.path + "/New.pdf", page: 1) == PDFReaders.renderPPM(incoming, page: 1))

        try FileManager.default.copyItem(atPath: existing, toPath: scratch.path + "/Existing.pdf")
        let existingPages = try PDFReaders.pdfinfoPages(existing)
        #expect(try Binary.run(["ingest", "--to", "Existing.pdf", incoming] + state, in: scratch.url).status == 0)
        let target = scratch.path + "/Existing.pdf"
        try PDFReaders.requireAllAgree(target, pages: existingPages + PDFReaders.pdfinfoPages(incoming))
        #expect(try Python.run(Self.fields, [target]) == "\(incomingFields + existingFields)\n")
        #expect(try PDFReaders.renderPPM(target, page: 1) == PDFReaders.renderPPM(existing, page: 1))
        #expect(try PDFReaders.renderPPM(target, page: existingPages + 1) == PDFReaders.renderPPM(incoming, page: 1))
    }
}
