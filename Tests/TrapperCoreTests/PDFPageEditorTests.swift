import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

@testable import TrapperCore

/// Page edits written as one incremental update, checked from outside: every independent reader
/// agrees on the page count, pypdf sees the order (each page draws "Page n"), rotations and boxes,
/// pdftoppm renders pages that moved as before, and the old bytes are a prefix of the new file.
@Suite("PDF page editor")
struct PDFPageEditorTests {
    // MARK: Edits on the project's own files, classic table and xref stream

    @Test(arguments: [PDFXrefForm.table, .stream])
    func everyPageEditInOneRevision(_ form: PDFXrefForm) throws {
        let path = try EditorFixtures.target(pages: 6, form: form)
        let renders = try (1...6).map { try PDFReaders.renderPPM(path, page: $0) }
        try EditorFixtures.edit(path) { editor in
            try editor.rotate([0, 5], by: 90)                 // pages 1 and 6
            try editor.rotate([0], by: -180)                  // page 1: 90 - 180 = 270
            try editor.delete([2])                            // page 3 goes: 1 2 4 5 6
            try editor.move([0], before: 3)                   // 2 4 1 5 6
            try editor.duplicate([1])                         // 2 4 4 1 5 6
            try editor.insertBlank(at: 0, width: 200, height: 100)   // blank 2 4 4 1 5 6
            try editor.crop([6], to: [250, 150, 50, 20])      // page 6, corners in any order
            try editor.move([3, 4], before: nil)              // blank 2 4 5 6 4 1
        }
        try PDFReaders.requireAllAgree(path, pages: 7)
        let pages = try EditorFixtures.pages(path)
        #expect(pages.map(\.text) == ["", "Page 2", "Page 4", "Page 5", "Page 6", "Page 4", "Page 1"])
        #expect(pages.map(\.rotate) == [0, 0, 0, 0, 90, 0, 270])
        #expect(pages[0].media == [0, 0, 200, 100])
        #expect(pages[4].crop == [50, 20, 250, 150])
        #expect(pages[5].crop == [0, 0, 300, 200])
        // Unrotated pages that moved or were copied look exactly as before.
        for (page, original) in [(2, 2), (3, 4), (4, 5), (6, 4)] {
            #expect(try PDFReaders.renderPPM(path, page: page) == renders[original - 1], "page \(page)")
        }
        #expect(try PDFTailReader(path: path).tail.form == form, "the update keeps the xref form")
        try EditorFixtures.requireConsistentTree(path)
    }

    @Test func theCopyIsANewPageSharingContentAndResources() throws {
        let path = try EditorFixtures.target(pages: 2)
        let reader = try PDFTailReader(path: path)
        var editor = try PDFPageEditor(reader: reader)
        try editor.duplicate([0])
        var revision = PDFRevision(appendingTo: reader.tail)
        _ = try editor.write(into: &revision)
        let firstKid = try #require(PDFPageTree.root(of: reader).dictionary[.kids]?.arrayValue?.first)
        let original = try #require(reader.resolve(firstKid).dictionaryValue)
        let copies = revision.objects.compactMap { $0.object.dictionaryValue }.filter { $0[.type] == .name("Page") }
        #expect(copies.count == 1)
        #expect(copies.first?["Contents"] == original["Contents"])
        #expect(copies.first?["Resources"] == original["Resources"])
        #expect(revision.objects.count == 2, "the copy and the root: nothing else")
    }

    @Test func moveConventions() throws {
        func order(_ pages: Int, _ body: (inout PDFPageEditor) throws -> Void) throws -> [String] {
            let path = try EditorFixtures.target(pages: pages)
            try EditorFixtures.edit(path, body)
            return try EditorFixtures.pages(path).map { String($0.text.dropFirst(5)) }
        }
        #expect(try order(5) { try $0.move([3, 1], before: 0) } == ["2", "4", "1", "3", "5"])
        #expect(try order(5) { try $0.move([0], before: nil) } == ["2", "3", "4", "5", "1"])
        #expect(try order(5) { try $0.move([0], before: 5) } == ["2", "3", "4", "5", "1"])
        // The target page moves too: before the first page after it that stays.
        #expect(try order(5) { try $0.move([1, 2, 4], before: 2) } == ["1", "2", "3", "5", "4"])
        #expect(try order(3) { try $0.insertBlank(at: 3, width: 100, height: 100) } == ["1", "2", "3", ""])
        #expect(try order(3) { try $0.insertBlank(at: 1, width: 100, height: 100) } == ["1", "", "2", "3"])
    }

    @Test func aMoveThatChangesNothingWritesNothing() throws {
        let reader = try PDFTailReader(source: PDFMemorySource(PDFPageTree.newDocument(
            (1...5).map { EditorFixtures.numberedPage($0) }).serialized()))
        var editor = try PDFPageEditor(reader: reader)
        try editor.move([3, 4], before: nil)
        try editor.move([1, 2], before: 3)
        try editor.rotate([0], by: 360)
        var revision = PDFRevision(appendingTo: reader.tail)
        _ = try editor.write(into: &revision)
        #expect(revision.objects.isEmpty)
    }

    // MARK: Refusals

    @Test func refusalsNameTheOperationAndThePage() throws {
        let reader = try PDFTailReader(source: PDFMemorySource(PDFPageTree.newDocument(
            (1...12).map { EditorFixtures.numberedPage($0) }).serialized()))
        var editor = try PDFPageEditor(reader: reader)
        func refusal(_ body: (inout PDFPageEditor) throws -> Void) -> String? {
            (#expect(throws: PDFPageEditError.self) { try body(&editor) })?.description
        }
        #expect(refusal { try $0.rotate([2, 12], by: 90) } == "rotate: page 13: out of range (the document has 12 pages)")
        #expect(refusal { try $0.rotate([2], by: 45) } == "rotate: 45 degrees is not a multiple of 90")
        #expect(refusal { try $0.delete(Array(0..<12)) } == "delete: would delete all 12 pages; a PDF needs at least one")
        #expect(refusal { try $0.delete([-1]) } == "delete: page 0: out of range (the document has 12 pages)")
        #expect(refusal { try $0.move([1], before: 13) } == "move: page 14: out of range (the document has 12 pages)")
        #expect(refusal { try $0.insertBlank(at: 13, width: 100, height: 100) }
            == "insert blank: page 14: out of range (the document has 12 pages)")
        #expect(refusal { try $0.insertBlank(at: 0, width: 0, height: 100) }
            == "insert blank: page 1: page size [0 100] points is outside 3...14400 (ISO 32000-1 C.2)")
        #expect(refusal { try $0.duplicate([12]) } == "duplicate: page 13: out of range (the document has 12 pages)")
        #expect(refusal { try $0.crop([0], to: [0, 0, 301, 200]) }
            == "crop: page 1: box [0 0 301 200] is not inside the media box [0 0 300 200]")
        #expect(refusal { try $0.crop([0], to: [10, 10, 10, 100]) } == "crop: box [10 10 10 100] is empty")
        #expect(refusal { try $0.crop([0], to: [0, 0, 1]) } == "crop: [0 0 1] is not a box of four finite numbers")
        #expect(refusal { try $0.addBookmark(title: "x", page: 12) } == "bookmark: page 13: out of range (the document has 12 pages)")
        #expect(refusal { _ = try $0.mediaBox(ofPage: 12) } == "read page: page 13: out of range (the document has 12 pages)")
        // A refused edit changes nothing, even when part of its pages were fine.
        #expect(refusal { try $0.crop([0, 1], to: [0, 0, 300, 250]) } != nil)
        #expect(editor.pageCount == 12)
        var revision = PDFRevision(appendingTo: reader.tail)
        _ = try editor.write(into: &revision)
        #expect(revision.objects.isEmpty)
    }

    @Test func theLastPageCannotBeDeleted() throws {
        let path = try EditorFixtures.target(pages: 3)
        let error = #expect(throws: PDFPageEditError.self) {
            try EditorFixtures.edit(path) { editor in
                try editor.delete([0, 1])
                try editor.delete([0])
            }
        }
        #expect(error?.reason == .wouldDeleteEveryPage(pageCount: 1))
    }

    @Test func aCopiedEditorIsIndependent() throws {
        let reader = try PDFTailReader(source: PDFMemorySource(PDFPageTree.newDocument(
            (1...3).map { EditorFixtures.numberedPage($0) }).serialized()))
        let original = try PDFPageEditor(reader: reader)
        var trial = original
        try trial.delete([0])
        try trial.rotate([0], by: 90)
        #expect(trial.pageCount == 2)
        #expect(original.pageCount == 3)
        #expect(try original.rotation(ofPage: 1) == 0)
        #expect(try trial.rotation(ofPage: 0) == 90)
    }

    // MARK: Inherited attributes

    @Test func pagesKeepWhatTheyInheritedWhereverTheyGo() throws {
        let path = try EditorFixtures.nestedTarget()
        let before = try EditorFixtures.pages(path)
        #expect(before.map(\.text) == (1...6).map { "Page \($0)" })
        #expect(before.map(\.rotate) == [90, 90, 180, 270, 270, 0])
        let renders = try (1...6).map { try PDFReaders.renderPPM(path, page: $0) }

        let reader = try PDFTailReader(path: path)
        let editor = try PDFPageEditor(reader: reader)
        #expect(try editor.mediaBox(ofPage: 0) == [0, 0, 300, 200])
        #expect(try editor.mediaBox(ofPage: 1) == [0, 0, 200, 300])
        #expect(try editor.cropBox(ofPage: 3) == [10, 10, 390, 240])
        #expect(try editor.rotation(ofPage: 4) == 270)

        try EditorFixtures.edit(path) { editor in
            try editor.move([0], before: nil)        // from A (Rotate 90, root's box) into B
            try editor.move([3], before: 1)          // page 5 from C (Rotate 270, B's boxes) to the root
            try editor.duplicate([3])                // page 4's copy beside it in C
            try editor.duplicate([1])                // page 5's copy, now under the root
            try editor.insertBlank(at: 0, width: 100, height: 150)   // into A: must not inherit Rotate 90
        }
        // blank 2 5 5 3 4 4 6 1
        let after = try EditorFixtures.pages(path)
        let labels = [0, 2, 5, 5, 3, 4, 4, 6, 1]
        #expect(after.map(\.text) == labels.map { $0 == 0 ? "" : "Page \($0)" })
        #expect(after[0].rotate == 0)
        #expect(after[0].media == [0, 0, 100, 150])
        for (position, label) in labels.enumerated() where label > 0 {
            #expect(after[position].rotate == before[label - 1].rotate, "page \(label) at \(position + 1)")
            #expect(after[position].crop == before[label - 1].crop, "page \(label) at \(position + 1)")
            #expect(try PDFReaders.renderPPM(path, page: position + 1) == renders[label - 1],
                    "page \(label) at \(position + 1) renders differently")
        }
        try PDFReaders.requireAllAgree(path, pages: 9)
        try EditorFixtures.requireConsistentTree(path)
    }

    @Test func anEmptiedNodeLeavesTheTree() throws {
        let path = try EditorFixtures.nestedTarget()
        let revision = try EditorFixtures.edit(path) { try $0.delete([3, 4]) }.revision   // both pages of C
        try PDFReaders.requireAllAgree(path, pages: 4)
        try EditorFixtures.requireConsistentTree(path)
        #expect(try EditorFixtures.pages(path).map(\.text) == ["Page 1", "Page 2", "Page 3", "Page 6"])
        // B (kids and count) and the root (count): the pages themselves are not rewritten.
        #expect(revision.objects.count == 2)
    }

    /// A one-page node among pages (so /Count equals the number of kids), and /Kids held in an
    /// array object of its own: both are rewritten where they are.
    @Test func oddButLegalTreeShapes() throws {
        var revision = PDFRevision(newFileVersion: "1.7")
        let (catalog, root, node, kids) = (revision.reserve(), revision.reserve(), revision.reserve(), revision.reserve())
        func page(_ number: Int, _ parent: PDFReference) -> PDFObject {
            let contents = revision.add(.stream(PDFStream(data: EditorFixtures.content(number))))
            return .reference(revision.add(.dictionary([.type: .name("Page"), "Parent": .reference(parent),
                "MediaBox": [0, 0, 300, 200], "Resources": EditorFixtures.helveticaObject, "Contents": .reference(contents)])))
        }
        revision.set(kids, to: [page(1, root), .reference(node), page(3, root)])
        revision.set(node, to: .dictionary([.type: .name("Pages"), "Parent": .reference(root), .kids: [page(2, node)], .count: 1]))
        revision.set(root, to: .dictionary([.type: .name("Pages"), .kids: .reference(kids), .count: 3]))
        revision.set(catalog, to: .dictionary([.type: .name("Catalog"), .pages: .reference(root)]))
        revision.root = catalog
        let path = FileManagerShim.temporaryPath("odd.pdf")
        try FileManagerShim.write(revision.serialized(), to: path)

        let edited = try EditorFixtures.edit(path) { editor in
            try editor.rotate([1], by: 90)
            try editor.move([1], before: 0)       // out of its node, which then leaves the tree
        }
        #expect(try EditorFixtures.pages(path).map(\.text) == ["Page 2", "Page 1", "Page 3"])
        #expect(try EditorFixtures.pages(path).map(\.rotate) == [90, 0, 0])
        try PDFReaders.requireAllAgree(path, pages: 3)
        try EditorFixtures.requireConsistentTree(path)
        let written = Set(edited.revision.objects.map(\.reference.number))
        #expect(written.contains(kids.number) && written.contains(root.number) && written.count == 3,
                "the kids array, the root and page 2: \(written.sorted())")
    }

    /// The one shape that defeats "as many kids as pages means one page per kid": an empty node
    /// beside a node of two. Touching it is refused rather than miscounted.
    @Test func aTreeThatHidesANodeAmongPagesIsRefused() throws {
        var pdf = PDFHandBuilder(header: "%PDF-1.7\n")
        pdf.object(1, "<</Type/Catalog/Pages 2 0 R>>")
        pdf.object(2, "<</Type/Pages/Kids[3 0 R 6 0 R 7 0 R]/Count 3>>")
        pdf.object(3, "<</Type/Pages/Parent 2 0 R/Kids[4 0 R 5 0 R]/Count 2>>")
        for number in [4, 5] { pdf.object(number, "<</Type/Page/Parent 3 0 R/MediaBox[0 0 10 10]>>") }
        pdf.object(6, "<</Type/Page/Parent 2 0 R/MediaBox[0 0 10 10]>>")
        pdf.object(7, "<</Type/Pages/Parent 2 0 R/Kids[]/Count 0>>")
        pdf.classicTail(Array(1...7), trailer: "<</Size 8/Root 1 0 R>>")
        var editor = try PDFPageEditor(reader: PDFTailReader(source: PDFMemorySource(pdf.bytes)))
        let error = #expect(throws: PDFPageEditError.self) { try editor.rotate([0], by: 90) }
        #expect(error?.description == "rotate: page 1: page-tree node 2 0 R has as many /Kids as pages, yet kid 3 0 R is a node of 2 pages (an empty node must be beside it)")
    }

    // MARK: Cost follows the edit

    /// The same ten edits on 10 and on 5,000 pages read and write about the same objects: a flat
    /// tree reads one node, a balanced one (10 x 10 x 50) the kids of each node on the way down.
    @Test(arguments: [false, true])
    func tenEditsOnFiveThousandPagesTouchAHandfulOfObjects(_ balanced: Bool) throws {
        func run(_ pages: Int) throws -> (edited: EditorFixtures.Edited, path: String) {
            let path = FileManagerShim.temporaryPath("big.pdf")
            try FileManagerShim.write(balanced ? EditorFixtures.balancedTree(pages: pages)
                                               : EditorFixtures.flatTree(pages: pages), to: path)
            let last = pages - 1
            let edited = try EditorFixtures.edit(path) { editor in
                try editor.rotate([3, last], by: 90)
                try editor.delete([last - 1])
                try editor.move([1, 2], before: last - 2)
                try editor.duplicate([4])
                try editor.insertBlank(at: 0, width: 595, height: 842)
                try editor.crop([5], to: [0, 0, 100, 100])
                try editor.addBookmark(title: "Late", page: last - 5)
                try editor.setInfo(title: "Big", author: nil, subject: nil, keywords: nil)
                #expect(try editor.mediaBox(ofPage: last) == [0, 0, 300, 200])
                #expect(try editor.rotation(ofPage: last + 1) == 90)
            }
            return (edited, path)
        }
        let small = try run(10)
        let big = try run(5000)
        let (written, read) = (big.edited.revision.objects.count, big.edited.objectsRead)
        if balanced {
            // Pages 2 and 3 move from the first branch to the last: rewritten, with two more nodes.
            #expect(written == small.edited.revision.objects.count + 4)
            #expect(read <= small.edited.objectsRead + 30, "objects read: \(read) against \(small.edited.objectsRead)")
        } else {
            #expect(written == small.edited.revision.objects.count, "the same objects on any page count")
            #expect(read == small.edited.objectsRead, "objects read: \(read) against \(small.edited.objectsRead)")
        }
        #expect(written <= 16)
        try PDFReaders.requireAllAgree(big.path, pages: 5001)
        try EditorFixtures.requireConsistentTree(big.path)
        let pages = try EditorFixtures.pages(big.path)
        #expect(pages[0].media == [0, 0, 595, 842])
        #expect(pages[5000].text == "Page 5000" && pages[5000].rotate == 90)
        #expect(pages[4997].text == "Page 2" && pages[4998].text == "Page 3" && pages[4999].text == "Page 4998")
        #expect(pages[5].text == "Page 7" && pages[5].crop == [0, 0, 100, 100] && pages[6].text == "Page 7")
        #expect(try EditorFixtures.outline(big.path) == [EditorFixtures.Bookmark(title: "Late", page: 4994)])
    }

    // MARK: Document information and bookmarks

    @Test func infoIsUpdatedInPlaceOrCreated() throws {
        let withInfo = try EditorFixtures.target(pages: 1, info: ["Title": .string(PDFString("Old")),
                                                                   "Creator": .string(PDFString("tests"))])
        let oldInfo = try #require(PDFTailReader(path: withInfo).tail.info)
        let date = Date(timeIntervalSince1970: 1_800_000_000)
        try EditorFixtures.edit(withInfo) { editor in
            try editor.setInfo(title: "Tax 2026", author: "Zoë Müller", subject: nil, keywords: nil, modified: date)
            try editor.setInfo(title: nil, author: nil, subject: "", keywords: "a, b", modified: date)
        }
        let info = try EditorFixtures.pdfinfo(withInfo)
        #expect(info["Title"] == "Tax 2026")
        #expect(info["Author"] == "Zoë Müller")
        #expect(info["Keywords"] == "a, b")
        #expect(info["Creator"] == "tests")
        #expect(info["ModDate"]?.contains("2027") == true)
        #expect(try PDFTailReader(path: withInfo).tail.info == oldInfo, "the same /Info object, updated")

        let withoutInfo = try EditorFixtures.target(pages: 1, info: nil)
        try EditorFixtures.edit(withoutInfo) { try $0.setInfo(title: "New", author: "Me", subject: nil, keywords: nil) }
        #expect(try EditorFixtures.pdfinfo(withoutInfo)["Title"] == "New")
        #expect(try EditorFixtures.pdfinfo(withoutInfo)["Author"] == "Me")
        try EditorFixtures.edit(withoutInfo) { try $0.setInfo(title: "", author: nil, subject: nil, keywords: nil) }
        #expect(try EditorFixtures.pdfinfo(withoutInfo)["Title"] == nil)
        #expect(try EditorFixtures.pdfinfo(withoutInfo)["Author"] == "Me")
    }

    @Test func bookmarksAreAppendedToTheOutline() throws {
        let path = try EditorFixtures.target(pages: 4)
        try EditorFixtures.edit(path) { editor in
            try editor.addBookmark(title: "Invoice", page: 2)
            try editor.addBookmark(title: "Café ✓", page: 0)
        }
        typealias Bookmark = EditorFixtures.Bookmark
        #expect(try EditorFixtures.outline(path) == [Bookmark(title: "Invoice", page: 2), Bookmark(title: "Café ✓", page: 0)])
        // A later revision appends after them; the pages they open follow the pages' moves.
        try EditorFixtures.edit(path) { editor in
            try editor.move([2], before: 0)
            try editor.duplicate([3])
            try editor.addBookmark(title: "Copy", page: 4)
        }
        #expect(try EditorFixtures.outline(path)
            == [Bookmark(title: "Invoice", page: 0), Bookmark(title: "Café ✓", page: 1), Bookmark(title: "Copy", page: 4)])
        try PDFReaders.requireAllAgree(path, pages: 5)
    }

    @Test func theStreamingWriterTakesTheSameEdits() throws {
        let path = try EditorFixtures.target(pages: 3, form: .stream, info: nil)
        let reader = try PDFTailReader(path: path)
        var editor = try PDFPageEditor(reader: reader)
        try editor.move([2], before: 0)
        try editor.setInfo(title: "Streamed", author: nil, subject: nil, keywords: nil)
        let handle = try #require(FileHandle(forWritingAtPath: path))
        let output = try PDFFileOutput(handle: handle)
        var writer = try PDFUpdateWriter(base: .appending(reader.tail), output: output)
        let changes = try editor.write(into: &writer)
        #expect(changes.info != nil)
        if let info = changes.info { writer.info = info }
        try writer.finish()
        try output.flush()
        try handle.close()
        try PDFReaders.requireAllAgree(path, pages: 3)
        #expect(try EditorFixtures.pages(path).map(\.text) == ["Page 3", "Page 1", "Page 2"])
        #expect(try EditorFixtures.pdfinfo(path)["Title"] == "Streamed")
    }

    // MARK: The corpora: real producers' files, as they are (Flate-compressed object streams too), the
    // produced ones always and the shared ones when they are there

    @Test(arguments: PDFCorpus.unencrypted(try ProducedCorpus.files()))
    func producedFileTakesEveryEdit(_ source: String) throws { try corpusFileTakesEveryEdit(source) }

    @Test(.enabled(if: PDFCorpus.isPresent, "\(PDFCorpus.missing)"), arguments: PDFCorpus.unencrypted(try PDFCorpus.filesIfPresent()))
    func sharedCorpusFileTakesEveryEdit(_ source: String) throws { try corpusFileTakesEveryEdit(source) }

    @Test(arguments: PDFCorpus.unencrypted(try ProducedCorpus.files()))
    func nestedProducedFileKeepsInheritedLooks(_ source: String) throws { try nestedCorpusFileKeepsInheritedLooks(source) }

    @Test(.enabled(if: PDFCorpus.isPresent, "\(PDFCorpus.missing)"), arguments: PDFCorpus.unencrypted(try PDFCorpus.filesIfPresent()))
    func nestedSharedCorpusFileKeepsInheritedLooks(_ source: String) throws { try nestedCorpusFileKeepsInheritedLooks(source) }

    /// Copy of the last page to the front, page 1 deleted, a blank page at the end turned, a
    /// bookmark, /Info: every reader agrees, and every page that stays renders as before.
    func corpusFileTakesEveryEdit(_ source: String) throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = try folder.copy(source)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: path)
        let count = try PDFReaders.pdfinfoPages(path)
        let renders = try (1...count).map { try PDFReaders.renderPPM(path, page: $0) }
        let outline = try EditorFixtures.outline(path)
        let original = try folder.copy(path, as: "original.pdf")
        try EditorFixtures.edit(path, decoder: ZlibTestDecoder()) { editor in
            try editor.duplicate([count - 1])
            try editor.move([count], before: 0)
            if count > 1 { try editor.delete([1]) }
            try editor.insertBlank(at: editor.pageCount, width: 595, height: 842)
            try editor.rotate([editor.pageCount - 1], by: 90)
            try editor.addBookmark(title: "Start", page: 0)
            try editor.setInfo(title: "Edited", author: "PDFTrapper tests", subject: nil, keywords: nil)
        }
        let labels = [count] + (count > 1 ? Array(2...count) : [1]) + [0]
        try PDFReaders.requireAllAgree(path, pages: labels.count)
        try EditorFixtures.requireConsistentTree(path)
        for (position, label) in labels.enumerated().dropFirst() where label > 0 {
            #expect(try PDFReaders.renderPPM(path, page: position + 1) == renders[label - 1],
                    "page \(label) at \(position + 1) renders differently")
        }
        try EditorFixtures.expectCopy(at: 1, in: path, of: count, before: original)
        let blank = try #require(EditorFixtures.pages(path).last)
        #expect(blank.rotate == 90 && blank.media == [0, 0, 595, 842] && blank.text.isEmpty)
        let info = try EditorFixtures.pdfinfo(path)
        #expect(info["Title"] == "Edited" && info["Author"] == "PDFTrapper tests")
        let after = try EditorFixtures.outline(path)
        #expect(after.count == outline.count + 1)
        #expect(after.last == EditorFixtures.Bookmark(title: "Start", page: 0))
    }

    /// The corpus files made nested by a foreign revision (pages in pairs under nodes that carry
    /// the first page's /Resources, /MediaBox, /CropBox and /Rotate, the first node /Rotate 90):
    /// pages moved to other nodes, and copies, render exactly as before.
    func nestedCorpusFileKeepsInheritedLooks(_ source: String) throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = try folder.copy(source)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: path)
        try EditorFixtures.nest(path)
        let count = try PDFReaders.pdfinfoPages(path)
        try PDFReaders.requireAllAgree(path, pages: count)
        let renders = try (1...count).map { try PDFReaders.renderPPM(path, page: $0) }
        let original = try folder.copy(path, as: "original.pdf")
        try EditorFixtures.edit(path, decoder: ZlibTestDecoder()) { editor in
            try editor.move([0], before: nil)             // page 1 from the first node to the last
            try editor.duplicate([count - 1])             // and a copy beside it
            if count > 2 { try editor.move([count - 2], before: 0) }   // the last page to the first node
        }
        let labels = count == 1 ? [1, 1] : count == 2 ? [2, 1, 1] : [count] + Array(2..<count) + [1, 1]
        try PDFReaders.requireAllAgree(path, pages: labels.count)
        try EditorFixtures.requireConsistentTree(path)
        for (position, label) in labels.enumerated().dropLast() {
            #expect(try PDFReaders.renderPPM(path, page: position + 1) == renders[label - 1],
                    "page \(label) at \(position + 1) renders differently")
        }
        try EditorFixtures.expectCopy(at: labels.count, in: path, of: 1, before: original)
    }
}

/// Targets, the edit-and-append step, and pypdf's and pdfinfo's view of the result.
enum EditorFixtures {
    static let helvetica: PDFDictionary = ["Font": .dictionary(["F1": .dictionary([
        .type: .name("Font"), "Subtype": .name("Type1"), "BaseFont": .name("Helvetica"),
    ])])]

    /// "Page n" in Helvetica, and a bar as long as n, on a `width` × `height` page.
    static func numberedPage(_ number: Int, width: Double = 300, height: Double = 200) -> PDFNewPage {
        PDFNewPage(width: width, height: height, resources: helvetica, content: content(number))
    }

    static func content(_ number: Int) -> [UInt8] {
        Array("BT /F1 24 Tf 30 80 Td (Page \(number)) Tj ET\n0 0.4 1 rg 20 20 \(10 + number % 50 * 5) 12 re f\n".utf8)
    }

    /// A file of `pages` numbered pages by the project's own writer; `.stream` rewrites it through
    /// qpdf with object streams and an xref stream (stored uncompressed, as TrapperCore reads them).
    static func target(pages: Int, form: PDFXrefForm = .table, info: PDFDictionary? = nil) throws -> String {
        let path = FileManagerShim.temporaryPath("target.pdf")
        try FileManagerShim.write(PDFPageTree.newDocument((1...pages).map { numberedPage($0) }, info: info)
            .serialized(), to: path)
        guard form == .stream else { return path }
        let streams = path.replacingOccurrences(of: "target.pdf", with: "streams.pdf")
        try PDFReaders.qpdfUncompressedObjectStreams(path, to: streams)
        return streams
    }

    static func flatTree(pages: Int) throws -> [UInt8] {
        try PDFPageTree.newDocument((1...pages).map { numberedPage($0) }).serialized()
    }

    /// Pages in leaves of 50 under nodes of 10 leaves under the root, which holds the pages'
    /// /Resources and /MediaBox for all of them.
    static func balancedTree(pages: Int) throws -> [UInt8] {
        var revision = PDFRevision(newFileVersion: "1.7")
        let catalog = revision.reserve()
        let root = revision.reserve()
        var middles: [PDFReference] = []
        for middleStart in stride(from: 0, to: pages, by: 500) {
            let middle = revision.reserve()
            var leaves: [PDFReference] = []
            for leafStart in stride(from: middleStart, to: min(pages, middleStart + 500), by: 50) {
                let leaf = revision.reserve()
                let kids = (leafStart..<min(pages, leafStart + 50)).map { index in
                    let contents = revision.add(.stream(PDFStream(data: content(index + 1))))
                    return revision.add(.dictionary([.type: .name("Page"), "Parent": .reference(leaf),
                                                     "Contents": .reference(contents)]))
                }
                revision.set(leaf, to: .dictionary([.type: .name("Pages"), "Parent": .reference(middle),
                    .kids: .array(kids.map(PDFObject.reference)), .count: .integer(kids.count)]))
                leaves.append(leaf)
            }
            revision.set(middle, to: .dictionary([.type: .name("Pages"), "Parent": .reference(root),
                .kids: .array(leaves.map(PDFObject.reference)), .count: .integer(min(pages, middleStart + 500) - middleStart)]))
            middles.append(middle)
        }
        revision.set(root, to: .dictionary([.type: .name("Pages"), .kids: .array(middles.map(PDFObject.reference)),
            .count: .integer(pages), "Resources": .dictionary(helvetica), "MediaBox": [0, 0, 300, 200]]))
        revision.set(catalog, to: .dictionary([.type: .name("Catalog"), .pages: .reference(root)]))
        revision.root = catalog
        return try revision.serialized()
    }

    /// A tree where pages inherit all four inheritable values, from different levels:
    ///
    ///     root  /Resources (F1 Helvetica) /MediaBox [0 0 300 200]
    ///     ├─ A  /Rotate 90:  page 1, page 2 (own /MediaBox [0 0 200 300])
    ///     ├─ page 3  (own /Resources: F1 Courier; own /Rotate 180)
    ///     └─ B  /MediaBox [0 0 400 250] /CropBox [10 10 390 240] /Resources (F1 Times)
    ///        ├─ C  /Rotate 270:  page 4, page 5
    ///        └─ page 6
    static func nestedTarget() throws -> String {
        func font(_ name: String) -> PDFObject {
            .dictionary(["Font": .dictionary(["F1": .dictionary([.type: .name("Font"), "Subtype": .name("Type1"),
                                                                   "BaseFont": .name(PDFName(name))])])])
        }
        var revision = PDFRevision(newFileVersion: "1.7")
        let catalog = revision.reserve()
        let (root, a, b, c) = (revision.reserve(), revision.reserve(), revision.reserve(), revision.reserve())
        func page(_ number: Int, _ parent: PDFReference, _ own: PDFDictionary = [:]) -> PDFObject {
            var dictionary: PDFDictionary = [.type: .name("Page"), "Parent": .reference(parent),
                "Contents": .reference(revision.add(.stream(PDFStream(data: content(number)))))]
            for (key, value) in own { dictionary[key] = value }
            return .reference(revision.add(.dictionary(dictionary)))
        }
        let pagesOfA = [page(1, a), page(2, a, ["MediaBox": [0, 0, 200, 300]])]
        let page3 = page(3, root, ["Resources": font("Courier"), "Rotate": 180])
        let pagesOfC = [page(4, c), page(5, c)]
        let page6 = page(6, b)
        let nodes: [(PDFReference, PDFDictionary)] = [
            (root, [.kids: [.reference(a), page3, .reference(b)], .count: 6, "Resources": helveticaObject,
                    "MediaBox": [0, 0, 300, 200]]),
            (a, ["Parent": .reference(root), .kids: .array(pagesOfA), .count: 2, "Rotate": 90]),
            (b, ["Parent": .reference(root), .kids: [.reference(c), page6], .count: 3, "MediaBox": [0, 0, 400, 250],
                 "CropBox": [10, 10, 390, 240], "Resources": font("Times-Roman")]),
            (c, ["Parent": .reference(b), .kids: .array(pagesOfC), .count: 2, "Rotate": 270]),
        ]
        for (reference, dictionary) in nodes {
            var node: PDFDictionary = [.type: .name("Pages")]
            for (key, value) in dictionary { node[key] = value }
            revision.set(reference, to: .dictionary(node))
        }
        revision.set(catalog, to: .dictionary([.type: .name("Catalog"), .pages: .reference(root)]))
        revision.root = catalog
        let path = FileManagerShim.temporaryPath("nested.pdf")
        try FileManagerShim.write(revision.serialized(), to: path)
        return path
    }

    static var helveticaObject: PDFObject { .dictionary(helvetica) }

    struct Edited {
        var revision: PDFRevision
        /// Objects the reader resolved while the editor worked.
        var objectsRead: Int
    }

    /// Edits the file at `path` and appends the update, checking that the old bytes stay a prefix.
    @discardableResult
    static func edit(_ path: String, decoder: any PDFStreamDecoding = PDFNoFilterDecoder(),
                     _ body: (inout PDFPageEditor) throws -> Void) throws -> Edited {
        let before = try FileManagerShim.read(path)
        let reader = try PDFTailReader(path: path, decoder: decoder)
        var editor = try PDFPageEditor(reader: reader)
        try body(&editor)
        var revision = PDFRevision(appendingTo: reader.tail)
        let changes = try editor.write(into: &revision)
        if let info = changes.info { revision.info = info }
        try FileManagerShim.append(revision.serialized(), to: path)
        let after = try FileManagerShim.read(path)
        #expect(Array(after.prefix(before.count)) == before, "old bytes changed")
        return Edited(revision: revision, objectsRead: reader.objectCache.count)
    }

    struct PageFacts: Decodable, Equatable {
        var text: String
        var rotate: Int
        var media: [Double]
        var crop: [Double]
    }

    /// Each page as strict pypdf sees it, inherited values resolved.
    static func pages(_ path: String) throws -> [PageFacts] {
        let json = try Python.run("""
            import sys, json, pypdf
            r = pypdf.PdfReader(sys.argv[1], strict=True)
            print(json.dumps([{"text": (p.extract_text() or "").strip(), "rotate": p.rotation % 360,
                               "media": [float(v) for v in p.mediabox], "crop": [float(v) for v in p.cropbox]}
                              for p in r.pages]))
            """, [path])
        return try JSONDecoder().decode([PageFacts].self, from: Data(json.utf8))
    }

    struct Bookmark: Decodable, Equatable {
        var title: String
        /// None when the page it pointed to was deleted (Ghostscript's bookmarks point at pages directly).
        var page: Int?
    }

    /// The outline's items in order (nested ones flattened), with pypdf's 0-based page.
    static func outline(_ path: String) throws -> [Bookmark] {
        let json = try Python.run("""
            import sys, json, pypdf
            r = pypdf.PdfReader(sys.argv[1], strict=True)
            out = []
            def walk(items):
                for item in items:
                    if isinstance(item, list): walk(item)
                    else: out.append({"title": item.title, "page": r.get_destination_page_number(item)})
            walk(r.outline)
            print(json.dumps(out))
            """, [path])
        return try JSONDecoder().decode([Bookmark].self, from: Data(json.utf8))
    }

    /// pdfinfo's fields (Title, Author, ...).
    static func pdfinfo(_ path: String) throws -> [String: String] {
        let output = try PDFReaders.succeeded("pdfinfo", [path]).text
        var fields: [String: String] = [:]
        for line in output.split(whereSeparator: \.isNewline) {
            guard let colon = line.firstIndex(of: ":") else { continue }
            fields[String(line[..<colon])] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        return fields
    }

    /// Every node's /Count is the number of pages below it, every kid's /Parent is its node, no
    /// node is empty and no page appears twice.
    static func requireConsistentTree(_ path: String) throws {
        _ = try Python.run("""
            import sys, pypdf
            from pypdf.generic import IndirectObject
            r = pypdf.PdfReader(sys.argv[1], strict=True)
            seen = set()
            def walk(ref):
                node = ref.get_object()
                if "/Kids" not in node:
                    assert ref.idnum not in seen, f"page {ref.idnum} appears twice"
                    seen.add(ref.idnum)
                    return 1
                total = 0
                for kid in node["/Kids"]:
                    assert isinstance(kid, IndirectObject), "a direct kid"
                    parent = kid.get_object().raw_get("/Parent")
                    assert parent.idnum == ref.idnum, f"kid {kid.idnum} of {ref.idnum} has /Parent {parent.idnum}"
                    total += walk(kid)
                assert total > 0, f"node {ref.idnum} is empty"
                assert node["/Count"] == total, f"node {ref.idnum}: /Count {node['/Count']}, {total} pages"
                return total
            print(walk(r.trailer["/Root"].raw_get("/Pages")))
            """, [path])
    }
}

extension EditorFixtures {
    /// A page's copy has the original's annotations but its form-field widgets (and popups), and
    /// looks the same: with annotations shown when the original has no widgets, else without.
    static func expectCopy(at page: Int, in path: String, of originalPage: Int, before original: String) throws {
        let subtypes = try annotationSubtypes(original)[originalPage - 1]
        #expect(try annotationSubtypes(path)[page - 1] == subtypes.filter { $0 != "/Widget" && $0 != "/Popup" })
        let hide = subtypes.contains("/Widget") ? ["-hide-annotations"] : []
        func render(_ file: String, _ number: Int) throws -> Data {
            try PDFReaders.succeeded("pdftoppm", ["-r", "72", "-f", "\(number)", "-l", "\(number)"] + hide + [file]).stdout
        }
        #expect(try render(path, page) == render(original, originalPage), "the copy at \(page) renders differently")
    }

    /// Each page's annotation subtypes, by pypdf.
    static func annotationSubtypes(_ path: String) throws -> [[String]] {
        let json = try Python.run("""
            import sys, json, pypdf
            r = pypdf.PdfReader(sys.argv[1])
            print(json.dumps([[str(a.get_object().get("/Subtype")) for a in (p.get("/Annots") or [])] for p in r.pages]))
            """, [path])
        return try JSONDecoder().decode([[String]].self, from: Data(json.utf8))
    }

    /// Rewrites a flat corpus file's tree as pairs of pages under new nodes, as a foreign revision:
    /// each node takes its first page's inheritable values, the first node also /Rotate 90.
    static func nest(_ path: String) throws {
        let reader = try PDFTailReader(path: path, decoder: ZlibTestDecoder())
        let (rootReference, root) = try PDFPageTree.root(of: reader)
        let kids = try #require(reader.resolve(root[.kids] ?? .null).arrayValue).compactMap(\.referenceValue)
        var revision = PDFRevision(appendingTo: reader.tail)
        var nodes: [PDFObject] = []
        for start in stride(from: 0, to: kids.count, by: 2) {
            let node = revision.reserve()
            let pair = kids[start..<min(kids.count, start + 2)]
            var dictionary: PDFDictionary = [.type: .name("Pages"), "Parent": .reference(rootReference),
                                             .kids: .array(pair.map(PDFObject.reference)), .count: .integer(pair.count)]
            for (offset, kid) in pair.enumerated() {
                var page = try #require(reader.resolve(kid).dictionaryValue)
                #expect(!PDFPageTreeState.isNode(page), "the corpus trees are flat")
                if offset == 0 {
                    for key in PDFPageTreeState.inheritable {
                        dictionary[key] = page[key]
                        page[key] = nil
                    }
                }
                page["Parent"] = .reference(node)
                revision.set(kid, to: .dictionary(page))
            }
            if start == 0, dictionary["Rotate"] == nil { dictionary["Rotate"] = 90 }
            revision.set(node, to: .dictionary(dictionary))
            nodes.append(.reference(node))
        }
        var newRoot = root
        newRoot[.kids] = .array(nodes)
        revision.set(rootReference, to: .dictionary(newRoot))
        try FileManagerShim.append(revision.serialized(), to: path)
    }
}

/// /FlateDecode through the system's zlib, loaded at run time (TrapperCore links no C library,
/// and this test target has none), with PNG and TIFF predictors: enough for the corpus's
/// compressed object and xref streams.
struct ZlibTestDecoder: PDFStreamDecoding {
    typealias Uncompress = @convention(c) (UnsafeMutablePointer<UInt8>?, UnsafeMutablePointer<UInt>?,
                                           UnsafePointer<UInt8>?, UInt) -> Int32
    static let uncompress: Uncompress? = {
        guard let library = dlopen("libz.so.1", RTLD_NOW), let symbol = dlsym(library, "uncompress") else { return nil }
        return unsafeBitCast(symbol, to: Uncompress.self)
    }()

    func decode(_ data: [UInt8], dictionary: PDFDictionary) throws -> [UInt8] {
        let filters = PDFStream(dictionary: dictionary, data: []).filters
        if filters.isEmpty { return data }
        guard filters == ["FlateDecode"], let uncompress = Self.uncompress else {
            throw PDFError.unsupportedFilter(.decodingStream, offset: 0, "\(filters)")
        }
        var capacity = max(4096, data.count * 8)
        while capacity < 1 << 28 {
            var out = [UInt8](repeating: 0, count: capacity)
            var length = UInt(capacity)
            let status = out.withUnsafeMutableBufferPointer { output in
                data.withUnsafeBufferPointer { input in uncompress(output.baseAddress, &length, input.baseAddress, UInt(data.count)) }
            }
            if status == 0 {
                let parameters = PDFPredictor.Parameters(dictionary["DecodeParms"]?.dictionaryValue)
                return try PDFPredictor.undo(Array(out.prefix(Int(length))), parameters)
            }
            guard status == -5 else { throw PDFError.damaged(.decodingStream, offset: 0, "zlib status \(status)") }
            capacity *= 4
        }
        throw PDFError.damaged(.decodingStream, offset: 0, "inflates past 256 MB")
    }
}
