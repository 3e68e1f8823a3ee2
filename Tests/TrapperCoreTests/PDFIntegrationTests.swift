import Foundation
import TestSupport
import Testing

@testable import TrapperCore

/// Files written by TrapperCore, checked by every independent reader after every write: all must
/// open them, agree on the page count, find the old bytes untouched, and render old pages the same.
@Suite("PDF writes checked by independent readers", .serialized)
struct PDFIntegrationTests {
    /// Appends `pages` at `position` as one revision and checks the result with every reader.
    func appendAndVerify(
        _ path: String, _ pages: [PDFNewPage], at position: PDFPagePosition, revision number: Int,
        skipping: Set<String> = []
    ) throws {
        let before = try FileManagerShim.read(path)
        let pagesBefore = try PDFReaders.pdfinfoPages(path)
        let renders = try (1...max(1, pagesBefore)).prefix(pagesBefore).map { try PDFReaders.renderPPM(path, page: $0) }

        let reader = try PDFTailReader(path: path)
        var revision = PDFRevision(appendingTo: reader.tail)
        revision.trailerExtras = ["PDFTrapper": .dictionary(["Revision": .integer(number)])]
        try PDFPageTree.addPages(pages, at: position, reader: reader, to: &revision)
        try FileManagerShim.append(revision.serialized(), to: path)

        let after = try FileManagerShim.read(path)
        #expect(after.count > before.count)
        #expect(Array(after.prefix(before.count)) == before, "old bytes were changed in \(path)")
        try PDFReaders.requireAllAgree(path, pages: pagesBefore + pages.count, skipping: skipping)
        for (index, render) in renders.enumerated() {
            let moved = position == .end ? index + 1 : index + 1 + pages.count
            #expect(try PDFReaders.renderPPM(path, page: moved) == render, "page \(index + 1) renders differently")
        }
        let reread = try PDFTailReader(path: path)
        #expect(reread.tail.form == reader.tail.form, "the update changed the xref form")
        #expect(reread.tail.trailer["PDFTrapper"] == .dictionary(["Revision": .integer(number)]))
        #expect(reread.tail.trailer[.prev] == .integer(reader.tail.startxref))
        if let id = reader.tail.id, !id.isEmpty {
            #expect(reread.tail.id?.first == id.first, "/ID[0] must survive")
        } else {
            #expect(reread.tail.id?.count == 2, "a missing /ID must be created")
        }
        #expect(reread.tail.id?.last != reader.tail.id?.last, "/ID[1] must be new")
    }

    @Test func newFileThenThreeRevisions() throws {
        let path = FileManagerShim.temporaryPath("new.pdf")
        try FileManagerShim.write(PDFPageTree.newDocument([rectanglePage()]).serialized(), to: path)
        try PDFReaders.requireAllAgree(path, pages: 1)
        try appendAndVerify(path, [rectanglePage(1)], at: .end, revision: 1)
        try appendAndVerify(path, [rectanglePage(2, width: 200, height: 300), rectanglePage(3)], at: .front, revision: 2)
        try appendAndVerify(path, [rectanglePage(4)], at: .end, revision: 3)
        #expect(try PDFReaders.pdfinfoPages(path) == 5)
    }

    @Test func revisionsAfterAnXrefStream() throws {
        let original = FileManagerShim.temporaryPath("original.pdf")
        try FileManagerShim.write(PDFPageTree.newDocument([rectanglePage(), rectanglePage(5)]).serialized(), to: original)
        let path = original.replacingOccurrences(of: "original.pdf", with: "streams.pdf")
        try PDFReaders.qpdfUncompressedObjectStreams(original, to: path)
        #expect(try PDFTailReader(path: path).tail.form == .stream)
        try appendAndVerify(path, [rectanglePage(1)], at: .end, revision: 1)
        try appendAndVerify(path, [rectanglePage(2)], at: .front, revision: 2)
    }

    @Test func leadingGarbageBeforeTheHeader() throws {
        let path = FileManagerShim.temporaryPath("garbage.pdf")
        let garbage = Array("X-Mailer: something prepended this\n".utf8)
        try FileManagerShim.write(garbage + PDFPageTree.newDocument([rectanglePage()]).serialized(), to: path)
        // Strict pypdf refuses any byte before `%PDF` by design; the others read such files.
        try PDFReaders.requireAllAgree(path, pages: 1, skipping: ["pypdf"])
        try appendAndVerify(path, [rectanglePage(1)], at: .end, revision: 1, skipping: ["pypdf"])
        #expect(try PDFTailReader(path: path).tail.headerOffset == garbage.count)
    }

    /// Every produced file (ProducedCorpus: real producers, run here) takes a revision.
    @Test(arguments: try ProducedCorpus.files())
    func appendToProducedFile(_ source: String) throws { try appendToCorpusFile(source) }

    /// Every file of the shared corpus (`../shared/pdf-corpus` beside the package, or
    /// `PDFTRAPPER_PDF_CORPUS`) takes a revision.
    @Test(.enabled(if: PDFCorpus.isPresent, "\(PDFCorpus.missing)"), arguments: try PDFCorpus.filesIfPresent())
    func appendToSharedCorpusFile(_ source: String) throws { try appendToCorpusFile(source) }

    /// A copy of `source` takes one revision, checked by every reader; an encrypted one (its name
    /// says "password") is refused.
    func appendToCorpusFile(_ source: String) throws {
        let name = URL(fileURLWithPath: source).lastPathComponent
        let path = FileManagerShim.temporaryPath(name)
        try FileManager.default.copyItem(atPath: source, toPath: path)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: path)

        if name.contains("password") {
            #expect {
                _ = try PDFTailReader(path: path)
            } throws: { error in
                if case PDFError.encrypted = error { return true }
                return false
            }
            return
        }

        // Files whose xref or object streams are Flate-compressed need a decoder this module does
        // not have: read those through qpdf's uncompressed rewrite, the rest exactly as they are.
        var target = path
        do {
            let reader = try PDFTailReader(path: path)
            _ = try reader.resolve(try #require(reader.catalog()[.pages]))
        } catch PDFError.unsupportedFilter {
            target = path + ".objstm.pdf"
            try PDFReaders.qpdfUncompressedObjectStreams(path, to: target)
        }
        let pages = try PDFReaders.pdfinfoPages(target)
        try PDFReaders.requireAllAgree(target, pages: pages)  // the input itself is sound
        try appendAndVerify(target, [rectanglePage(7, width: 595, height: 842)], at: .end, revision: 1)
    }
}
