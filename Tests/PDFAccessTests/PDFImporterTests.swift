import Foundation
import PDFAccess
import TestSupport
import Testing
import TrapperCore

/// A new document made of every page of `source`, imported one by one: the way the engine builds
/// a target from a dropped PDF.
func importWholeDocument(_ source: String) throws -> (revision: PDFRevision, pages: [PDFReference]) {
    let importer = try PDFImporter(path: source)
    var revision = PDFRevision(newFileVersion: "1.7")
    let catalog = revision.reserve()
    let root = revision.reserve()
    var pages: [PDFReference] = []
    for index in 0..<importer.pageCount {
        let (reference, page) = try importer.copyPage(index, into: &revision)
        #expect(page["Parent"] == nil)
        try PDFPageTree.writePage(page, as: reference, parent: root, into: &revision)
        pages.append(reference)
    }
    try PDFPageTree.writeNewRoot(pages, root: root, catalog: catalog, into: &revision)
    if let form = try importer.formDictionary(into: &revision) {
        let formReference = try revision.add(.dictionary(form))
        revision.set(catalog, to: .dictionary([
            .type: .name("Catalog"), .pages: .reference(root), "AcroForm": .reference(formReference),
        ]))
    }
    revision.root = catalog
    return (revision, pages)
}

@Suite struct PDFImporterTests {
    /// The produced files (the owner-password one among them) imported page by page.
    @Test func importsEveryProducedPageFaithfully() throws {
        try importsEveryPageFaithfully(ProducedCorpus.readableFiles(), atLeast: 12)
    }

    @Test(.enabled(if: PDFCorpus.isPresent, "\(PDFCorpus.missing)"))
    func importsEverySharedCorpusPageFaithfully() throws {
        try importsEveryPageFaithfully(PDFCorpus.readableFiles(), atLeast: 10)
    }

    /// Every page of `files`, imported into a new file: the independent readers accept it, and each
    /// page looks (pixel for pixel), reads (pdftotext) and links (annotations, URIs) as the source.
    func importsEveryPageFaithfully(_ files: [(path: String, pages: Int)], atLeast minimum: Int) throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        #expect(files.count >= minimum)
        for (source, expectedPages) in files {
            let name = PDFCorpus.name(source)
            do {
                let (revision, pages) = try importWholeDocument(source)
                #expect(pages.count == expectedPages, "\(name)")
                let output = folder.file("imported-" + name)
                try TemporaryFolder.write(revision.serialized(), to: output)
                try PDFReaders.requireAllAgree(output, pages: expectedPages)
                for page in 1...expectedPages {
                    #expect(try PDFReaders.renderPPM(output, page: page) == PDFReaders.renderPPM(source, page: page),
                        "\(name) page \(page) renders differently")
                    #expect(try PDFReaders.text(output, page: page) == PDFReaders.text(source, page: page),
                        "\(name) page \(page) text differs")
                }
                #expect(try PDFReaders.annotationCounts(output) == PDFReaders.annotationCounts(source), "\(name)")
                #expect(try PDFReaders.linkURIs(output) == PDFReaders.linkURIs(source), "\(name)")
                #expect(try PDFReaders.fonts(output).sorted() == PDFReaders.fonts(source).sorted(), "\(name)")
                #expect(try PDFReaders.imageCount(output) == PDFReaders.imageCount(source), "\(name)")
                // The tail reader (with the Flate decoder) opens what was written, too.
                let reader = try PDFTailReader(path: output, decoder: FlateStreamDecoder())
                #expect(try reader.catalog()[.pages] != nil)
            } catch {
                Issue.record("\(name): \(error)")
            }
        }
    }

    @Test func copiesSharedObjectsOncePerImporter() throws {
        let source = try ProducedCorpus.file("ghostscript-4-pages.pdf")
        let importer = try PDFImporter(path: source)
        var revision = PDFRevision(newFileVersion: "1.7")
        _ = try importer.copyPage(0, into: &revision)
        let afterFirst = revision.objects.count
        #expect(afterFirst > 3)
        // The same page again: only its own (reserved) reference is new; every object it uses
        // was copied already.
        let again = try importer.copyPage(0, into: &revision)
        #expect(revision.objects.count == afterFirst)
        // The next page shares its fonts: far fewer objects than the first.
        _ = try importer.copyPage(1, into: &revision)
        #expect(revision.objects.count - afterFirst < afterFirst)
        #expect(again.dictionary["Contents"] != nil)
    }

    /// pypdf's file has both on the page-tree root; Ghostscript's and cairo's have them on each page.
    @Test func makesInheritedAttributesOfProducedFilesExplicit() throws {
        try makesInheritedAttributesExplicit(["pypdf-inherited.pdf", "ghostscript-4-pages.pdf", "cairo-4-pages.pdf"]
            .map(ProducedCorpus.file))
    }

    /// pdflatex puts /MediaBox on the page-tree node; LibreOffice puts /Resources there.
    @Test(.enabled(if: PDFCorpus.isPresent, "\(PDFCorpus.missing)"))
    func makesInheritedAttributesOfSharedCorpusFilesExplicit() throws {
        try makesInheritedAttributesExplicit(["pdflatex-4-pages.pdf", "002-trivial-libre-office-writer.pdf",
                                              "google-doc-document.pdf"].map(PDFCorpus.file))
    }

    /// The first page of each of `sources`, copied, has its own /MediaBox and /Resources and no
    /// /Parent. An inherited array may come as a reference to a copy in the revision: qpdf makes
    /// it indirect as it pushes it down to the pages that share it.
    func makesInheritedAttributesExplicit(_ sources: [String]) throws {
        for source in sources {
            let name = PDFCorpus.name(source)
            let importer = try PDFImporter(path: source)
            var revision = PDFRevision(newFileVersion: "1.7")
            let page = try importer.copyPage(0, into: &revision).dictionary
            let mediaBox = page["MediaBox"].map { box in box.referenceValue.flatMap { revision.object(number: $0.number) } ?? box }
            #expect(mediaBox?.arrayValue?.count == 4, "\(name)")
            #expect(page["Resources"] != nil, "\(name)")
            #expect(page["Parent"] == nil, "\(name)")
        }
    }

    @Test func keepsOtherPagesOutOfProducedFiles() throws {
        try keepsOtherPagesOutAndPointsAnnotationsAtTheNewPage(
            ["ghostscript-outline.pdf", "qpdf-object-streams.pdf", "reportlab-form.pdf", "pypdf-form.pdf"].map(ProducedCorpus.file))
    }

    @Test(.enabled(if: PDFCorpus.isPresent, "\(PDFCorpus.missing)"))
    func keepsOtherPagesOutOfSharedCorpusFiles() throws {
        try keepsOtherPagesOutAndPointsAnnotationsAtTheNewPage(
            ["pdflatex-outline.pdf", "pdflatex-forms.pdf", "libreoffice-form.pdf"].map(PDFCorpus.file))
    }

    /// Links to other pages do not pull those pages in; annotations' /P points at the new page.
    func keepsOtherPagesOutAndPointsAnnotationsAtTheNewPage(_ sources: [String]) throws {
        for source in sources {
            let name = PDFCorpus.name(source)
            let importer = try PDFImporter(path: source)
            var revision = PDFRevision(newFileVersion: "1.7")
            let (reference, page) = try importer.copyPage(0, into: &revision)
            let pageObjects = revision.objects.filter { $0.object.dictionaryValue?[.type] == .name("Page") }
            #expect(pageObjects.isEmpty, "\(name): another page was copied")
            #expect(!revision.objects.contains { $0.object.dictionaryValue?[.type] == .name("Pages") }, "\(name)")
            #expect(!revision.objects.contains { $0.object.dictionaryValue?[.type] == .name("Catalog") }, "\(name)")
            for (_, object) in revision.objects {
                if let back = object.dictionaryValue?["P"], object.dictionaryValue?["Subtype"] != nil {
                    #expect(back == .reference(reference), "\(name): an annotation's /P is \(back)")
                }
            }
            _ = page
        }
    }

    /// A link whose /Dest names another page by reference: the destination page becomes null,
    /// nothing of it is copied, and the link's /P follows the imported page.
    @Test func nullsDirectReferencesToOtherPages() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let square = { (n: Int) in PDFNewPage(width: 200, height: 200, content: Array("0 0 \(n * 10) 50 re f".utf8)) }
        var revision = PDFPageTree.newDocument([square(1), square(2), square(3)])
        let pageNumbers = revision.objects.filter { $0.object.dictionaryValue?[.type] == .name("Page") }.map(\.reference)
        #expect(pageNumbers.count == 3)
        let link = revision.add(.dictionary([
            .type: .name("Annot"), "Subtype": .name("Link"), "Rect": [10, 10, 50, 50],
            "Dest": [.reference(pageNumbers[2]), .name("Fit")], "P": .reference(pageNumbers[0]),
        ]))
        guard case .dictionary(var first)? = revision.object(number: pageNumbers[0].number) else {
            Issue.record("no first page")
            return
        }
        first["Annots"] = [.reference(link)]
        revision.set(pageNumbers[0], to: .dictionary(first))
        let source = folder.file("linked.pdf")
        try TemporaryFolder.write(revision.serialized(), to: source)

        let importer = try PDFImporter(path: source)
        var target = PDFRevision(newFileVersion: "1.7")
        let (reference, page) = try importer.copyPage(0, into: &target)
        #expect(page["Annots"]?.arrayValue?.count == 1)
        #expect(!target.objects.contains { $0.object.dictionaryValue?[.type] == .name("Page") })
        let copiedLink = target.objects.compactMap { $0.object.dictionaryValue }.first { $0["Subtype"] == .name("Link") }
        #expect(copiedLink?["Dest"] == [.null, .name("Fit")])
        #expect(copiedLink?["P"] == .reference(reference))
        // Without a reference for the page, /P goes.
        let other = try PDFImporter(path: source)
        var plain = PDFRevision(newFileVersion: "1.7")
        _ = try other.copyPage(0, into: &plain, as: nil)
        let plainLink = plain.objects.compactMap { $0.object.dictionaryValue }.first { $0["Subtype"] == .name("Link") }
        #expect(plainLink != nil && plainLink?["P"] == nil)
    }

    @Test func importsOwnerPasswordOnlyFilesDecrypted() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let source = try ProducedCorpus.file("ghostscript-4-pages.pdf")
        let locked = try ProducedCorpus.file("qpdf-owner-password.pdf")   // the same pages, encrypted
        let (revision, pages) = try importWholeDocument(locked)
        #expect(pages.count == 4)
        let output = folder.file("decrypted.pdf")
        try TemporaryFolder.write(revision.serialized(), to: output)
        try PDFReaders.requireAllAgree(output, pages: 4)
        for page in 1...4 {
            #expect(try PDFReaders.renderPPM(output, page: page) == PDFReaders.renderPPM(source, page: page))
        }
        #expect(!(try PDFReaders.run("qpdf", ["--show-encryption", output]).text.contains("R = ")))
    }

    @Test func refusesProducedFilesThatNeedAUserPassword() throws {
        try refusesFilesThatNeedAUserPassword(ProducedCorpus.files())
    }

    @Test(.enabled(if: PDFCorpus.isPresent, "\(PDFCorpus.missing)"))
    func refusesSharedCorpusFilesThatNeedAUserPassword() throws {
        try refusesFilesThatNeedAUserPassword(PDFCorpus.files())
    }

    /// The one file of `files` that needs a user password is refused, with a message that says so.
    func refusesFilesThatNeedAUserPassword(_ files: [String]) throws {
        let locked = try files.filter { try PDFCorpus.needsPassword($0) }
        #expect(locked.count == 1)
        for path in locked {
            #expect(throws: PDFImportError.passwordRequired(path: path)) { try PDFImporter(path: path) }
            #expect(PDFImportError.passwordRequired(path: path).description.hasSuffix("encrypted, needs a user password"))
        }
    }

    @Test func errorsNameTheStep() throws {
        let importer = try PDFImporter(path: try ProducedCorpus.file("mutool-create-images.pdf"))
        var revision = PDFRevision(newFileVersion: "1.7")
        #expect(throws: PDFImportError.noSuchPage(index: 4, count: 1)) { try importer.copyPage(4, into: &revision) }
        #expect(PDFImportError.noSuchPage(index: 4, count: 1).description == "import page 5: the document has 1 pages")
        #expect(PDFImportError.page(index: 2, step: "read stream 12 0 R", "bad zlib").description
            == "import page 3: read stream 12 0 R: bad zlib")
        let missing = "/nonexistent/\(UUID().uuidString).pdf"
        #expect(throws: PDFImportError.self) { try PDFImporter(path: missing) }
        do {
            _ = try PDFImporter(path: missing)
        } catch {
            #expect(error.description.hasPrefix("open \(missing): "))
            #expect(!error.description.contains("\n"))
        }
    }

    /// A stream whose data qpdf cannot read (its /Length points past the end, and the bytes are
    /// not there) fails with the stream named, not a crash or a silent empty page.
    @Test func reportsAnUnreadableFileAsAnOpenError() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let garbage = folder.file("garbage.pdf")
        try TemporaryFolder.write(Array("%PDF-1.4\nthis is not a pdf at all\n".utf8), to: garbage)
        #expect(throws: PDFImportError.self) { try PDFImporter(path: garbage) }
    }
}
