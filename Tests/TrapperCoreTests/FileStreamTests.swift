import Foundation
import Testing
@testable import TrapperCore

/// A JPEG too large to hold: walked in windows of a megabyte, and copied into the target from its
/// file a chunk at a time, byte for byte as if it had been held.
@Suite struct FileStreamTests {
    static let window = 1 << 20

    /// A scratch file holding `bytes`, removed by `body`'s end.
    static func withFile<T>(_ bytes: [UInt8], _ body: (String) throws -> T) throws -> T {
        let path = NSTemporaryDirectory() + "filestream-\(UUID().uuidString)"
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        return try body(path)
    }

    /// A baseline JPEG whose entropy-coded data ends with `end` (its end-of-image marker) `lead`
    /// bytes before the edge of the scan's second window: the scan's windows start where the data
    /// starts, and the second one at the first one's last byte, a 0xFF.
    static func jpeg(lead: Int, end: [UInt8]) -> [UInt8] {
        var bytes: [UInt8] = [0xFF, 0xD8]
        bytes += ImageParserTests.segment(0xC0, [8] + ImageParserTests.be16(48) + ImageParserTests.be16(64) + [1, 1, 0x11, 0])
        bytes += ImageParserTests.segment(0xDA, [1, 1, 0, 0, 63, 0])
        // Stuffing (0xFF00) and a restart marker across the first edge, which the scan must step over.
        bytes += [UInt8](repeating: 0x12, count: window - 1) + [0xFF, 0x00, 0x34, 0xFF, 0xD0]
        bytes += [UInt8](repeating: 0x56, count: window - 5 - lead)
        return bytes + end
    }

    @Test(arguments: [0, 1, 2, 3])
    func anEndMarkerAcrossAWindowsEdgeEndsTheWalk(lead: Int) throws {
        // FF D9 alone, and padded with more 0xFF bytes, each way across the second window's edge.
        for end: [UInt8] in [[0xFF, 0xD9], [0xFF, 0xFF, 0xFF, 0xD9]] {
            let bytes = Self.jpeg(lead: lead, end: end)
            let jpeg = try Self.withFile(bytes) { try JPEGFile(PDFFileSource(path: $0)) }
            #expect(jpeg.width == 64 && jpeg.height == 48)
            // Cut before its end-of-image marker, the same file is refused.
            #expect(throws: ImageInputError.truncated(.jpeg, "no end-of-image marker")) {
                try Self.withFile(Array(bytes.dropLast())) { try JPEGFile(PDFFileSource(path: $0)) }
            }
        }
    }

    @Test func theWriterCopiesAStreamFromItsFileAsItWouldWriteItHeld() throws {
        // Two chunks and a part of one, so that the copy goes round more than once.
        let data = (0..<(2 * PDFFileRange.chunkSize + 17)).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ $0 >> 11) }
        let dictionary: PDFDictionary = [.filter: .name("DCTDecode"), "Width": 64]
        var held = try PDFUpdateWriter(base: .newFile(version: "1.7"), output: [UInt8]())
        try held.set(held.reserve(), to: .stream(PDFStream(dictionary: dictionary, data: data)))
        var copied = try PDFUpdateWriter(base: .newFile(version: "1.7"), output: [UInt8]())
        try Self.withFile(data) { path in
            try copied.set(copied.reserve(), toStream: dictionary, copying: PDFFileRange(try PDFFileSource(path: path)))
        }
        #expect(copied.output == held.output)
        // A revision held in memory takes the data whole.
        var revision = PDFRevision(newFileVersion: "1.7")
        let reference = revision.reserve()
        try Self.withFile(data) { path in
            try revision.set(reference, toStream: dictionary, copying: PDFFileRange(try PDFFileSource(path: path)))
        }
        #expect(revision.objects.first { $0.0 == reference }?.1.streamValue?.data == data)
    }

    @Test func aFileChangedAfterItWasCheckedIsNotCopied() throws {
        let data = [UInt8](repeating: 0x41, count: 3 * PDFFileRange.chunkSize / 2)
        try Self.withFile(data) { path in
            // Written to: its modification time moves (from a day long past, so a clock tick cannot hide it).
            var past = [timespec(tv_sec: 946_684_800, tv_nsec: 0), timespec(tv_sec: 946_684_800, tv_nsec: 0)]
            #expect(utimensat(AT_FDCWD, path, &past, 0) == 0)
            let source = try PDFFileSource(path: path)
            let handle = try #require(FileHandle(forWritingAtPath: path))
            try handle.write(contentsOf: [0x42])
            try handle.close()
            #expect(throws: PDFError.self) { try PDFFileRange(source).copy { _ in } }
        }
        try Self.withFile(data) { path in
            // Cut short.
            let source = try PDFFileSource(path: path)
            #expect(truncate(path, off_t(data.count / 2)) == 0)
            #expect(throws: PDFError.self) { try PDFFileRange(source).copy { _ in } }
        }
    }
}
