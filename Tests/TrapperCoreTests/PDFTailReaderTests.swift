import Foundation
import Testing

@testable import TrapperCore

@Suite("PDF tail reader")
struct PDFTailReaderTests {
    func newFile(pages: Int = 1) throws -> [UInt8] {
        try PDFPageTree.newDocument((0..<pages).map { rectanglePage($0) }).serialized()
    }

    func append(_ file: [UInt8], pages: Int, at position: PDFPagePosition = .end,
        extras: PDFDictionary = [:]) throws -> [UInt8]
    {
        let reader = try PDFTailReader(source: PDFMemorySource(file))
        var revision = PDFRevision(appendingTo: reader.tail)
        revision.trailerExtras = extras
        try PDFPageTree.addPages((0..<pages).map { rectanglePage($0) }, at: position, reader: reader, to: &revision)
        return try file + revision.serialized()
    }

    func pageCount(_ file: [UInt8]) throws -> Int {
        let reader = try PDFTailReader(source: PDFMemorySource(file))
        let root = try reader.resolve(try #require(reader.catalog()[.pages]))
        return try #require(root.dictionaryValue?[.count]?.integerValue)
    }

    func readError(_ file: [UInt8]) -> PDFError? {
        do {
            _ = try PDFTailReader(source: PDFMemorySource(file))
            return nil
        } catch let error as PDFError {
            return error
        } catch {
            return nil
        }
    }

    @Test func readsANewClassicFile() throws {
        let file = try newFile()
        let reader = try PDFTailReader(source: PDFMemorySource(file))
        #expect(reader.tail.form == .table)
        #expect(reader.tail.version == "1.7")
        #expect(reader.tail.headerOffset == 0)
        #expect(reader.tail.fileLength == file.count)
        #expect(reader.tail.root == PDFReference(1))
        #expect(reader.tail.size == 5)
        #expect(reader.tail.id?.count == 2)
        #expect(reader.tail.endsWithEOL)
        #expect(try reader.catalog()[.type] == .name("Catalog"))
        #expect(try pageCount(file) == 1)
    }

    @Test func followsPrevOnlyAsFarAsNeeded() throws {
        var file = try newFile()
        for _ in 0..<3 { file = try append(file, pages: 1) }
        let reader = try PDFTailReader(source: PDFMemorySource(file))
        // The page-tree root was rewritten by the newest revision: found without following /Prev.
        #expect(try reader.resolve(PDFReference(2)).dictionaryValue?[.count] == 4)
        #expect(reader.sectionsRead == 1)
        // The first page lives only in the first revision: all four sections are needed.
        #expect(try reader.resolve(PDFReference(4)).dictionaryValue?[.type] == .name("Page"))
        #expect(reader.sectionsRead == 4)
        #expect(try reader.object(number: 999) == nil)
        #expect(try reader.resolve(PDFReference(999)) == .null)
    }

    @Test func openingCostDoesNotGrowWithTheFile() throws {
        let small = try CountingSource(newFile(pages: 100))
        let big = try CountingSource(newFile(pages: 5000))
        _ = try PDFTailReader(source: small)
        _ = try PDFTailReader(source: big)
        #expect(abs(big.bytesRead - small.bytesRead) < 64)  // only digit counts differ
        #expect(big.bytesRead < 5000)
        #expect(big.length > 50 * small.length)
    }

    @Test func objectStreamsAndXrefStreams() throws {
        var pdf = PDFHandBuilder()
        pdf.objectStream(3, [(1, "<</Type/Catalog/Pages 2 0 R>>"), (2, "<</Type/Pages/Kids[4 0 R]/Count 1>>")])
        pdf.object(4, "<</Type/Page/Parent 2 0 R/MediaBox[0 0 100 100]/Contents 5 0 R/Resources<<>>>>")
        pdf.object(6, "9")
        // Stream with an indirect /Length.
        pdf.offsets[5] = pdf.bytes.count
        pdf.raw("5 0 obj\n<</Length 6 0 R>>\nstream\n0 0 m 9 9 l S\nendstream\nendobj\n")
        pdf.xrefStreamTail(
            7, size: 8,
            entries: [
                1: (2, 3, 0), 2: (2, 3, 1), 3: (1, pdf.offsets[3]!, 0), 4: (1, pdf.offsets[4]!, 0),
                5: (1, pdf.offsets[5]!, 0), 6: (1, pdf.offsets[6]!, 0), 0: (0, 0, 255),
            ], extra: "/Root 1 0 R/ID[<AA><BB>]")
        let reader = try PDFTailReader(source: PDFMemorySource(pdf.bytes))
        #expect(reader.tail.form == .stream)
        #expect(reader.tail.size == 8)
        #expect(try reader.entry(for: 2) == .inObjectStream(streamNumber: 3, index: 1))
        #expect(try reader.catalog()[.pages] == .reference(PDFReference(2)))
        #expect(try reader.resolve(PDFReference(2)).dictionaryValue?[.count] == 1)
        #expect(try reader.resolve(PDFReference(5)).streamValue?.data == Array("0 0 m 9 9 l S".utf8))

        // An update after an xref stream is an xref stream, and reads back.
        let updated = try append(pdf.bytes, pages: 2)
        let tail = try PDFTailReader(source: PDFMemorySource(updated))
        #expect(tail.tail.form == .stream)
        #expect(tail.tail.trailer[.prev] == .integer(reader.tail.startxref))
        #expect(tail.tail.trailer["W"] == [1, 2, 1])
        #expect(tail.tail.trailer[.id]?.arrayValue?.first == .string(PDFString(bytes: [0xAA])))
        #expect(tail.tail.size == 8 + 4 + 1)  // 2 pages + 2 contents + the xref stream itself
        #expect(try pageCount(updated) == 3)
        #expect(try tail.resolve(PDFReference(5)).streamValue?.data == Array("0 0 m 9 9 l S".utf8))
    }

    @Test func hybridFilesUseTheirXRefStm() throws {
        var pdf = PDFHandBuilder()
        pdf.object(1, "<</Type/Catalog/Pages 2 0 R>>")
        pdf.objectStream(3, [(2, "<</Type/Pages/Kids[]/Count 0>>")])
        let streamOffset = pdf.bytes.count
        pdf.offsets[4] = streamOffset
        let rows: [UInt8] = [2, 0, 0, 3, 0]  // object 2: in object stream 3, index 0
        pdf.stream(4, "<</Type/XRef/Size 5/W[1 3 1]/Index[2 1]/Length 5>>", rows)
        // The table marks object 2 free: old readers skip it, new ones look in /XRefStm.
        pdf.classicTail([1, 3], trailer: "<</Size 5/Root 1 0 R/XRefStm \(streamOffset)>>", free: [2])
        let reader = try PDFTailReader(source: PDFMemorySource(pdf.bytes))
        #expect(reader.tail.form == .table)
        #expect(try reader.entry(for: 2) == .inObjectStream(streamNumber: 3, index: 0))
        #expect(try reader.resolve(PDFReference(2)).dictionaryValue?[.type] == .name("Pages"))
        let updated = try append(pdf.bytes, pages: 1)
        #expect(try PDFTailReader(source: PDFMemorySource(updated)).tail.form == .table)
        #expect(try pageCount(updated) == 1)
    }

    @Test func leadingGarbageShiftsOffsets() throws {
        let garbage = Array("garbage from a mail gateway\r\n".utf8) + [0xFF, 0x00, 0x0A]
        let file = try garbage + newFile()
        let reader = try PDFTailReader(source: PDFMemorySource(file))
        #expect(reader.tail.headerOffset == garbage.count)
        #expect(try pageCount(file) == 1)
        let updated = try append(file, pages: 2, at: .front)
        #expect(try pageCount(updated) == 3)
        let again = try PDFTailReader(source: PDFMemorySource(updated))
        #expect(try again.resolve(PDFReference(4)).dictionaryValue?[.type] == .name("Page"))
    }

    @Test func wrongAndIndirectStreamLengths() throws {
        var pdf = PDFHandBuilder()
        pdf.object(1, "<</Type/Catalog/Pages 2 0 R>>")
        pdf.object(2, "<</Type/Pages/Kids[]/Count 0>>")
        pdf.offsets[3] = pdf.bytes.count
        pdf.raw("3 0 obj\n<</Length 3>>\nstream\r\nlonger than three\r\nendstream\nendobj\n")
        pdf.offsets[4] = pdf.bytes.count
        pdf.raw("4 0 obj\n<</Length 5 0 R>>\nstream\nexact\nendstream\nendobj\n")
        pdf.object(5, "5")
        pdf.offsets[6] = pdf.bytes.count
        pdf.raw("6 0 obj\n<<>>\nstream\nno length\nendstream\nendobj\n")
        pdf.classicTail([1, 2, 3, 4, 5, 6], trailer: "<</Size 7/Root 1 0 R>>")
        let reader = try PDFTailReader(source: PDFMemorySource(pdf.bytes))
        #expect(try reader.resolve(PDFReference(3)).streamValue?.data == Array("longer than three".utf8))
        #expect(try reader.resolve(PDFReference(4)).streamValue?.data == Array("exact".utf8))
        #expect(try reader.resolve(PDFReference(6)).streamValue?.data == Array("no length".utf8))
    }

    @Test func damagedFilesAreReportedForRepair() throws {
        let file = try newFile()
        // No %%EOF.
        let truncated = Array(file.dropLast(7))
        #expect(readError(truncated)?.step == .findingStartxref)
        #expect(readError(truncated)?.needsRepair == true)
        guard case .damaged? = readError(truncated) else {
            Issue.record("expected damaged")
            return
        }
        // startxref a few bytes off.
        let text = String(decoding: file, as: UTF8.self)
        let startxref = try #require(Int(text.split(separator: "\n").dropLast().last!))
        let shifted = Array(text.replacingLast("\(startxref)\n%%EOF", with: "\(startxref + 3)\n%%EOF").utf8)
        let error = try #require(readError(shifted))
        #expect(error == .damaged(.findingStartxref, offset: startxref + 3,
            "startxref does not point at a cross-reference section"))
        #expect(error.needsRepair)
        // Beyond the end.
        #expect(readError(Array(text.replacingLast("\(startxref)\n%%EOF", with: "99999999\n%%EOF").utf8))?.needsRepair == true)
        // No header, empty file, random bytes: errors, not crashes.
        #expect(readError(Array(file.dropFirst(9)))?.step == .findingHeader)
        #expect(readError([]) != nil)
        #expect(readError(Array(repeating: 0x25, count: 5000)) != nil)
    }

    @Test(arguments: ["\r\n", " \n", "\n", " \r\n"])
    func xrefEntriesOfEveryWidth(eol: String) throws {
        var pdf = PDFHandBuilder()
        pdf.object(1, "<</Type/Catalog/Pages 2 0 R>>")
        pdf.object(2, "<</Type/Pages/Kids[]/Count 0>>")
        let start = pdf.bytes.count
        let line = { (offset: Int, kind: String) in String(format: "%010d 00000 %@", offset, kind) + eol }
        pdf.raw("xref\n0 3\n" + line(0, "f") + line(pdf.offsets[1]!, "n") + line(pdf.offsets[2]!, "n"))
        pdf.raw("trailer\n<</Size 3/Root 1 0 R>>\nstartxref\n\(start)\n%%EOF")
        let reader = try PDFTailReader(source: PDFMemorySource(pdf.bytes))
        #expect(try reader.resolve(PDFReference(2)).dictionaryValue?[.count] == 0)
        #expect(!reader.tail.endsWithEOL)
    }

    @Test func mutatedFilesNeverCrashTheReader() throws {
        var generator = SystemRandomNumberGenerator()
        let valid = try append(newFile(pages: 2), pages: 1)
        for round in 0..<500 {
            var bytes = valid
            for _ in 0..<Int.random(in: 1...8, using: &generator) {
                let index = Int.random(in: 0..<bytes.count, using: &generator)
                bytes[index] = round % 2 == 0 ? UInt8.random(in: 0...255, using: &generator) : UInt8(ascii: "(")
            }
            if round % 5 == 0 { bytes = Array(bytes.prefix(Int.random(in: 0..<bytes.count, using: &generator))) }
            guard let reader = try? PDFTailReader(source: PDFMemorySource(bytes)) else { continue }
            for number in 0..<min(reader.tail.size, 50) { _ = try? reader.object(number: number) }
            var revision = PDFRevision(appendingTo: reader.tail)
            _ = try? PDFPageTree.addPages([rectanglePage()], at: .end, reader: reader, to: &revision)
        }
    }

    @Test func hugeNumbersInTheXrefAreDamageNotOverflow() throws {
        for tail in [
            "xref\n9223372036854775000 9223372036854775000\n", "xref\n0 99999999999\n",
        ] {
            var pdf = PDFHandBuilder()
            pdf.object(1, "<</Type/Catalog>>")
            let start = pdf.bytes.count
            pdf.raw(tail + "trailer\n<</Size 2/Root 1 0 R>>\nstartxref\n\(start)\n%%EOF\n")
            #expect(readError(pdf.bytes)?.needsRepair == true)
        }
        var pdf = PDFHandBuilder()
        pdf.object(1, "<</Type/Catalog>>")
        pdf.raw("startxref\n9223372036854775807\n%%EOF\n")
        #expect(readError(pdf.bytes)?.needsRepair == true)
        var stream = PDFHandBuilder()
        stream.object(1, "<</Type/Catalog>>")
        let rows: [UInt8] = [1] + Array(repeating: 0xFF, count: 8) + [0]
        let start = stream.bytes.count
        stream.stream(2, "<</Type/XRef/Size 3/W[1 8 1]/Index[1 1]/Root 1 0 R/Length 10>>", rows)
        stream.raw("startxref\n\(start)\n%%EOF\n")
        let reader = try PDFTailReader(source: PDFMemorySource(stream.bytes))
        #expect(throws: PDFError.self) { try reader.catalog() }
    }

    @Test func encryptedFilesAreRefused() throws {
        var pdf = PDFHandBuilder()
        pdf.object(1, "<</Type/Catalog/Pages 2 0 R>>")
        pdf.object(2, "<</Filter/Standard/V 2>>")
        pdf.classicTail([1, 2], trailer: "<</Size 3/Root 1 0 R/Encrypt 2 0 R>>")
        let error = try #require(readError(pdf.bytes))
        guard case .encrypted = error else {
            Issue.record("expected encrypted, got \(error)")
            return
        }
        #expect(!error.needsRepair)
    }

    @Test func compressedStreamsNeedTheInjectedDecoder() throws {
        // A made-up filter, decoded by a test decoder: proves the seam without zlib.
        struct ReversingDecoder: PDFStreamDecoding {
            func decode(_ data: [UInt8], dictionary: PDFDictionary) throws -> [UInt8] {
                guard dictionary[.filter] == .name("Reverse") else { throw PDFError.unsupportedFilter(.decodingStream, offset: 0, "?") }
                return data.reversed()
            }
        }
        var pdf = PDFHandBuilder()
        let members = "1 0 <</Type/Catalog/Pages 2 0 R>>"
        pdf.stream(3, "<</Type/ObjStm/N 1/First 4/Filter/Reverse/Length \(members.utf8.count)>>", Array(members.utf8).reversed())
        pdf.object(2, "<</Type/Pages/Kids[]/Count 0>>")
        pdf.xrefStreamTail(4, size: 5, entries: [1: (2, 3, 0), 2: (1, pdf.offsets[2]!, 0), 3: (1, pdf.offsets[3]!, 0)],
            extra: "/Root 1 0 R")
        let plain = try PDFTailReader(source: PDFMemorySource(pdf.bytes))
        #expect(throws: PDFError.self) { try plain.catalog() }
        let decoding = try PDFTailReader(source: PDFMemorySource(pdf.bytes), decoder: ReversingDecoder())
        #expect(try decoding.catalog()[.pages] == .reference(PDFReference(2)))
    }

    @Test func fileSourceReadsRanges() throws {
        let path = FileManagerShim.temporaryPath("tail-reader.pdf")
        let file = try newFile(pages: 3)
        try FileManagerShim.write(file, to: path)
        let source = try PDFFileSource(path: path)
        #expect(source.length == file.count)
        #expect(try source.read(offset: 5, count: 3) == Array(file[5..<8]))
        #expect(try source.read(offset: file.count - 2, count: 100) == Array(file.suffix(2)))
        #expect(try source.read(offset: file.count + 5, count: 1) == [])
        let reader = try PDFTailReader(path: path)
        #expect(try reader.resolve(PDFReference(2)).dictionaryValue?[.count] == 3)
    }
}

extension String {
    func replacingLast(_ target: String, with replacement: String) -> String {
        guard let range = range(of: target, options: .backwards) else { return self }
        return replacingCharacters(in: range, with: replacement)
    }
}
