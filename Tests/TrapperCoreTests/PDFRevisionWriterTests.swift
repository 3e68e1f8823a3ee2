import Testing

@testable import TrapperCore

@Suite("PDF revision writer")
struct PDFRevisionWriterTests {
    func text(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }

    func tail(form: PDFXrefForm = .table, endsWithEOL: Bool = true, id: [PDFString]? = nil) -> PDFTail {
        PDFTail(
            fileLength: 1000, version: "1.4", startxref: 900, form: form, trailer: [:], size: 10,
            root: PDFReference(1), info: PDFReference(7), id: id, endsWithEOL: endsWithEOL)
    }

    @Test func classicUpdateLayout() throws {
        var revision = PDFRevision(appendingTo: tail(id: [PDFString(bytes: [1, 2]), PDFString(bytes: [3, 4])]))
        revision.set(PDFReference(5, 2), to: .string(PDFString("replaced")))
        let first = revision.add(.dictionary(["A": 1]))
        let second = revision.add(.null)
        #expect(first == PDFReference(10))
        #expect(second == PDFReference(11))
        revision.trailerExtras = ["PDFTrapper": .dictionary(["Revision": 3]), "Size": 1, "Prev": 2]
        let bytes = try revision.serialized(newID: [0xAB])
        let out = text(bytes)
        #expect(out.hasPrefix("5 2 obj\n(replaced)\nendobj\n10 0 obj\n<</A 1>>\nendobj\n"))
        let xref = try #require(out.range(of: "xref\n"))
        let table = String(out[xref.lowerBound...])
        #expect(table.hasPrefix("""
            xref
            5 1
            0000001000 00002 n \n10 2
            0000001026 00000 n \n0000001051 00000 n \ntrailer
            <</Size 12/Root 1 0 R/Info 7 0 R/ID [<0102> <AB>]/Prev 900/PDFTrapper <</Revision 3>>>>
            startxref
            1072
            %%EOF

            """))
        #expect(out.utf8.count == bytes.count)
        // startxref is the offset of `xref`, counted from the start of the file.
        #expect(1000 + out.utf8.distance(from: out.utf8.startIndex, to: xref.lowerBound) == 1072)
    }

    /// A file whose /Size leaves no room for another object (a damaged or hostile trailer): the
    /// revision's bytes are refused with a reason, not written with numbers no reader takes, and
    /// nothing traps (the fuzzers hand the page editor such files).
    @Test func aRevisionPastTheLargestObjectNumberIsRefused() throws {
        let full = PDFTail(
            fileLength: 1000, version: "1.4", startxref: 900, form: .table, trailer: [:],
            size: PDFTail.largestObjectNumber + 1, root: PDFReference(1), info: nil, id: nil, endsWithEOL: true)
        var revision = PDFRevision(appendingTo: full)
        _ = revision.add(.null)
        #expect(throws: PDFError.self) { try revision.serialized() }
        var roomy = PDFRevision(appendingTo: tail())
        _ = roomy.add(.null)
        #expect(text(try roomy.serialized()).hasSuffix("%%EOF\n"))
    }

    @Test func entriesAreTwentyBytes() throws {
        var revision = PDFRevision(appendingTo: tail())
        for _ in 0..<30 { revision.add(.integer(1)) }
        let out = try text(revision.serialized())
        let lines = out.components(separatedBy: "\n").filter { $0.hasSuffix(" n ") || $0.hasSuffix(" f ") }
        #expect(lines.count == 30)
        #expect(lines.allSatisfy { $0.utf8.count + 1 == 20 })
    }

    @Test func addsANewlineWhenTheFileLacksOne() throws {
        let bytes = try PDFRevision(appendingTo: tail(endsWithEOL: false)).serialized()
        #expect(bytes.first == 0x0A)
        let clean = try PDFRevision(appendingTo: tail()).serialized()
        #expect(clean.first == UInt8(ascii: "x"))
    }

    @Test func createsAnIDWhenMissing() throws {
        let out = try text(PDFRevision(appendingTo: tail()).serialized(newID: [9]))
        #expect(out.contains("/ID [<09> <09>]"))
    }

    @Test func xrefStreamUpdate() throws {
        var revision = PDFRevision(appendingTo: tail(form: .stream))
        revision.add(.string(PDFString("a")))
        revision.set(PDFReference(3), to: .string(PDFString("b")))
        let bytes = try revision.serialized(newID: [1])
        let out = text(bytes)
        #expect(out.contains("11 0 obj\n<</Type /XRef/Size 12/Index [3 1 10 2]/W [1 2 1]/Root 1 0 R/Info 7 0 R/ID [<01> <01>]/Prev 900/Length 12>>\nstream\n"))
        #expect(!out.contains("\nxref\n"))
        // Rows: object 3 at 1000 + offset of "3 0 obj", object 10 first, xref stream itself.
        let streamStart = try #require(out.range(of: "stream\n")).upperBound
        let rowsStart = out.utf8.distance(from: out.utf8.startIndex, to: streamStart)
        let rows = Array(bytes[rowsStart..<rowsStart + 12])
        let offset3 = 1000 + out.utf8.distance(from: out.utf8.startIndex, to: try #require(out.range(of: "3 0 obj")).lowerBound)
        #expect(rows[0..<4] == [1, UInt8(offset3 >> 8), UInt8(offset3 & 0xFF), 0])
        #expect(rows[4..<8] == [1, 0x03, 0xE8, 0])  // object 10 at 1000
        let xrefOffset = 1000 + out.utf8.distance(from: out.utf8.startIndex, to: try #require(out.range(of: "11 0 obj")).lowerBound)
        #expect(rows[8..<12] == [1, UInt8(xrefOffset >> 8), UInt8(xrefOffset & 0xFF), 0])
        #expect(out.hasSuffix("startxref\n\(xrefOffset)\n%%EOF\n"))
    }

    /// Ten thousand pages in one document (how fast is bench/'s to say, not a test's).
    @Test func tenThousandPagesSerialize() throws {
        let pages = (0..<10_000).map { rectanglePage($0) }
        let bytes = try PDFPageTree.newDocument(pages).serialized()
        #expect(bytes.count > 1_000_000)
        #expect(String(decoding: bytes.suffix(6), as: UTF8.self) == "%%EOF\n")
    }

    @Test func widthsGrowWithOffsets() {
        #expect(PDFRevisionWriter.byteWidth(0) == 1)
        #expect(PDFRevisionWriter.byteWidth(255) == 1)
        #expect(PDFRevisionWriter.byteWidth(256) == 2)
        #expect(PDFRevisionWriter.byteWidth(70_000) == 3)
        #expect(PDFRevisionWriter.byteWidth(5_000_000_000) == 5)
    }

    @Test func newFileHeaderAndTable() throws {
        let bytes = try PDFPageTree.newDocument([rectanglePage()], info: ["Producer": .string(PDFString("PDFTrapper"))])
            .serialized(newID: [7])
        #expect(Array(bytes.prefix(15)) == Array("%PDF-1.7\n%".utf8) + [0xE2, 0xE3, 0xCF, 0xD3, 0x0A])
        let out = text(bytes)
        #expect(out.contains("xref\n0 6\n0000000000 65535 f \n"))
        #expect(out.contains("trailer\n<</Size 6/Root 1 0 R/Info 5 0 R/ID [<07> <07>]>>"))
        #expect(out.contains("/Type /Page/Parent 2 0 R/MediaBox [0 0 300 200]"))
    }

    @Test func newPagesDoNotInheritFromTheRoot() throws {
        var pdf = PDFHandBuilder()
        pdf.object(1, "<</Type/Catalog/Pages 2 0 R>>")
        pdf.object(2, "<</Type/Pages/Kids 4 0 R/Count 1/Rotate 90/CropBox[0 0 5 5]/MediaBox[0 0 9 9]/Resources<</X 1>>>>")
        pdf.object(3, "<</Type/Page/Parent 2 0 R>>")
        pdf.object(4, "[3 0 R]")
        pdf.classicTail([1, 2, 3, 4], trailer: "<</Size 5/Root 1 0 R>>")
        let reader = try PDFTailReader(source: PDFMemorySource(pdf.bytes))
        var revision = PDFRevision(appendingTo: reader.tail)
        let added = try PDFPageTree.addPages([rectanglePage(), rectanglePage(1)], at: .front, reader: reader, to: &revision)
        #expect(added == [PDFReference(6), PDFReference(8)])
        // /Kids was indirect: that array object is replaced, root gets the new count.
        #expect(revision.object(number: 4) == [.reference(PDFReference(6)), .reference(PDFReference(8)), .reference(PDFReference(3))])
        #expect(revision.object(number: 2)?.dictionaryValue?[.count] == 3)
        #expect(revision.object(number: 2)?.dictionaryValue?[.kids] == .reference(PDFReference(4)))
        let page = try #require(revision.object(number: 6)?.dictionaryValue)
        #expect(page["Rotate"] == 0)
        #expect(page["CropBox"] == [0, 0, 300, 200])
        #expect(page["MediaBox"] == [0, 0, 300, 200])
        #expect(page["Resources"] == .dictionary([:]))
        #expect(page["Contents"] == .reference(PDFReference(5)))
        // Only the root, the kids array and new objects are written: no existing page.
        #expect(revision.object(number: 3) == nil)
    }
}
