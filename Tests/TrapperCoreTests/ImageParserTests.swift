import Foundation
import Testing
import TrapperCore

/// The pure image-header parsers, on files built byte by byte here: what they read, and that a
/// file cut anywhere or damaged anywhere is refused with a typed, one-line error, never a crash.
@Suite struct ImageParserTests {
    // MARK: files built by hand

    static func be16(_ value: Int) -> [UInt8] { [UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)] }
    static func be32(_ value: Int) -> [UInt8] { be16(value >> 16) + be16(value & 0xFFFF) }
    static func segment(_ marker: UInt8, _ body: [UInt8]) -> [UInt8] { [0xFF, marker] + be16(body.count + 2) + body }

    /// A big-endian TIFF structure with one IFD of (tag, type, value) SHORT/LONG entries and
    /// RATIONAL entries stored after it.
    static func tiff(_ entries: [(tag: Int, type: Int, value: Int)], rationals: [(tag: Int, value: Int)] = [],
        extra: [UInt8] = []) -> [UInt8]
    {
        let count = entries.count + rationals.count
        let ifdEnd = 8 + 2 + count * 12 + 4
        var out: [UInt8] = Array("MM".utf8) + be16(42) + be32(8) + be16(count)
        var tail: [UInt8] = []
        var all: [(Int, [UInt8])] = entries.map { entry in
            (entry.tag, be16(entry.tag) + be16(entry.type) + be32(1) + (entry.type == 3 ? be16(entry.value) + [0, 0] : be32(entry.value)))
        }
        for rational in rationals {
            all.append((rational.tag, be16(rational.tag) + be16(5) + be32(1) + be32(ifdEnd + tail.count)))
            tail += be32(rational.value) + be32(1)
        }
        for (_, bytes) in all.sorted(by: { $0.0 < $1.0 }) { out += bytes }
        return out + be32(0) + tail + extra
    }

    /// A JPEG header with JFIF (no unit), EXIF (orientation 6, 200 dpi), Adobe APP14, SOF2 and a
    /// scan whose data holds a stuffed 0xFF00 and a restart marker.
    static func jpeg(width: Int = 640, height: Int = 480, components: Int = 4, sof: UInt8 = 0xC2) -> [UInt8] {
        let exif = Array("Exif\0\0".utf8) + tiff([(274, 3, 6), (296, 3, 2)], rationals: [(282, 200), (283, 200)])
        var bytes: [UInt8] = [0xFF, 0xD8]
        bytes += segment(0xE0, Array("JFIF\0".utf8) + [1, 1, 0] + be16(1) + be16(1) + [0, 0])
        bytes += segment(0xE1, exif)
        bytes += segment(0xEE, Array("Adobe".utf8) + be16(100) + be16(0) + be16(0) + [2])
        bytes += segment(sof, [8] + be16(height) + be16(width) + [UInt8(components)]
            + (0..<components).flatMap { [UInt8($0 + 1), 0x11, 0] })
        bytes += segment(0xDA, [1, 1, 0, 0, 63, 0])
        bytes += [0x12, 0xFF, 0x00, 0x34, 0xFF, 0xD0, 0x56]
        return bytes + [0xFF, 0xD9]
    }

    static func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        let typed = Array(type.utf8) + data
        return be32(data.count) + typed + be32(Int(CRC32.checksum(typed)))
    }

    static func png(width: Int = 300, height: Int = 200, depth: UInt8 = 4, colorType: UInt8 = 3) -> [UInt8] {
        PNGFile.signature + chunk("IHDR", be32(width) + be32(height) + [depth, colorType, 0, 0, 0])
            + chunk("PLTE", [0, 0, 0, 255, 255, 255]) + chunk("tRNS", [0]) + chunk("pHYs", be32(5906) + be32(5906) + [1])
            + chunk("IDAT", [0x78, 0x9C, 1, 2]) + chunk("IDAT", [3, 4]) + chunk("IEND", [])
    }

    /// Every proper prefix of `bytes` is refused with an ImageInputError.
    static func everyPrefixIsRefused(_ bytes: [UInt8], _ parse: ([UInt8]) throws -> Void) {
        for length in 0..<bytes.count {
            do {
                try parse(Array(bytes[..<length]))
                Issue.record("prefix of \(length) of \(bytes.count) bytes accepted")
            } catch let error as ImageInputError {
                #expect(!error.description.contains("\n"))
            } catch {
                Issue.record("prefix of \(length): untyped \(error)")
            }
        }
    }

    // MARK: JPEG

    @Test func jpegHeadersAreRead() throws {
        let jpeg = try JPEGFile(Self.jpeg())
        #expect(jpeg.width == 640 && jpeg.height == 480 && jpeg.components == 4 && jpeg.progressive)
        #expect(jpeg.resolution == ImageResolution(x: 200, y: 200), "JFIF without a unit defers to EXIF")
        #expect(jpeg.orientation == .right)
        #expect(jpeg.isAdobeInvertedCMYK)
        let page = try JPEGFile.page(Self.jpeg())
        #expect(page.image.data == Self.jpeg())
        #expect(page.image.dictionary["Decode"] == [1, 0, 1, 0, 1, 0, 1, 0])
        // 640 x 480 at 200 dpi, turned a quarter: 172.8 x 230.4 points.
        #expect(page.widthPoints == 172.8 && page.heightPoints == 230.4)
        #expect(String(decoding: page.content, as: UTF8.self) == "q 0 -230.4 172.8 0 0 230.4 cm /Im0 Do Q\n")
    }

    @Test func jpegCutAnywhereIsRefused() {
        Self.everyPrefixIsRefused(Self.jpeg()) { _ = try JPEGFile($0) }
        #expect(throws: ImageInputError.truncated(.jpeg, "no end-of-image marker")) { try JPEGFile(Self.jpeg().dropLast(2)) }
    }

    @Test func jpegVariantsPDFCannotShowAreRefused() {
        #expect(throws: ImageInputError.unsupported(.jpeg, "lossless JPEG, which PDF readers cannot show")) {
            try JPEGFile(Self.jpeg(sof: 0xC3))
        }
        #expect(throws: ImageInputError.unsupported(.jpeg, "arithmetic-coded JPEG, which PDF readers cannot show")) {
            try JPEGFile(Self.jpeg(sof: 0xC9))
        }
        #expect(throws: ImageInputError.tooManyPixels(width: 65535, height: 65535, limit: 200_000_000)) {
            try JPEGFile(Self.jpeg(width: 65535, height: 65535))
        }
    }

    // MARK: PNG

    @Test func crc32MatchesTheStandardCheckValue() {
        #expect(CRC32.checksum(Array("123456789".utf8)) == 0xCBF4_3926)
    }

    @Test func pngChunksAreRead() throws {
        let png = try PNGFile(Self.png())
        #expect(png.width == 300 && png.height == 200 && png.bitDepth == 4 && png.colorType == 3 && !png.interlaced)
        #expect(png.palette == [0, 0, 0, 255, 255, 255] && png.transparency == [0] && png.hasAlpha)
        #expect(png.idat == [0x78, 0x9C, 1, 2, 3, 4], "IDAT chunks are concatenated")
        #expect(abs((png.resolution?.x ?? 0) - 150.0124) < 0.001)
    }

    @Test func pngCutOrDamagedAnywhereIsRefused() {
        let bytes = Self.png()
        Self.everyPrefixIsRefused(bytes) { _ = try PNGFile($0) }
        for index in 8..<bytes.count {
            var damaged = bytes
            damaged[index] ^= 0x20
            #expect(throws: ImageInputError.self, "flipped byte \(index) accepted") { try PNGFile(damaged) }
        }
    }

    @Test func pngBombIsRefusedFromIHDR() {
        #expect(throws: ImageInputError.tooManyPixels(width: 100_000, height: 100_000, limit: 200_000_000)) {
            try PNGFile(Self.png(width: 100_000, height: 100_000))
        }
        #expect(ImageInputError.tooManyPixels(width: 100_000, height: 100_000, limit: 200_000_000).description
            == "image is 100000 x 100000 pixels, over the limit of 200 megapixels (limits.max_pixels)")
        #expect(throws: ImageInputError.corrupt(.png, "color type 2 with bit depth 4")) {
            try PNGFile(Self.png(depth: 4, colorType: 2))
        }
    }

    // MARK: TIFF

    static func g4Tiff() -> [UInt8] {
        let entries: [(tag: Int, type: Int, value: Int)] = [
            (256, 3, 1728), (257, 3, 2200), (259, 3, 4), (262, 3, 0), (273, 4, 200), (279, 4, 10), (274, 3, 3),
        ]
        var bytes = tiff(entries, rationals: [(282, 200), (283, 100)])
        bytes += [UInt8](repeating: 0, count: 200 - bytes.count) + [UInt8](repeating: 0xAB, count: 10)
        return bytes
    }

    @Test func tiffPagesAreRead() throws {
        let page = try #require(try TIFFFile(Self.g4Tiff()).pages.first)
        #expect(page.width == 1728 && page.height == 2200 && page.compression == 4 && page.isCCITTPassThrough)
        #expect(page.resolution == ImageResolution(x: 200, y: 100) && page.orientation == .down)
        let image = try #require(TIFFFile.ccittImage(page, in: Self.g4Tiff()))
        #expect(image.data == [UInt8](repeating: 0xAB, count: 10))
        #expect(image.dictionary["DecodeParms"] == .dictionary(["K": -1, "Columns": 1728, "Rows": 2200, "BlackIs1": false]))
    }

    @Test func tiffCutAnywhereIsRefused() {
        Self.everyPrefixIsRefused(Self.g4Tiff()) { _ = try TIFFFile($0) }
    }

    @Test func tiffDirectoryLoopEnds() throws {
        // The IFD's next pointer points back at itself: one page, not an endless loop.
        var bytes = Self.g4Tiff()
        let next = 8 + 2 + 9 * 12
        bytes.replaceSubrange(next..<(next + 4), with: Self.be32(8))
        #expect(try TIFFFile(bytes).pages.count == 1)
    }

    // MARK: PNM

    @Test func pnmHeadersAndSamplesAreRead() throws {
        let pbm = try PNMFile(Array("P4\n# scanner\n10 2\n".utf8) + [0xFF, 0xC0, 0x00, 0x40])
        #expect(pbm.isBitmap && pbm.width == 10 && pbm.samples == [0xFF, 0xC0, 0x00, 0x40])
        let plain = try PNMFile(Array("P1 10 2 1111111111 0000000001".utf8))
        #expect(plain.samples == [0xFF, 0xC0, 0x00, 0x40], "P1 digits may touch")
        let pgm = try PNMFile(Array("P5 2 1 65535\n".utf8) + [1, 2, 3, 4])
        #expect(pgm.bitsPerComponent == 16 && pgm.samples == [1, 2, 3, 4])
        Self.everyPrefixIsRefused(Array("P6 2 2 255\n".utf8) + [UInt8](repeating: 7, count: 12)) { _ = try PNMFile($0) }
        #expect(throws: ImageInputError.tooManyPixels(width: 100_000, height: 100_000, limit: 200_000_000)) {
            try PNMFile(Array("P5 100000 100000 255\n".utf8))
        }
    }

    // MARK: orientation and sniffing

    @Test(arguments: ImageOrientation.allCases)
    func orientationMatrixFillsThePageAndPutsTheFirstPixelWhereEXIFSays(_ orientation: ImageOrientation) {
        let (w, h) = (30.0, 20.0)
        let m = orientation.matrix(width: w, height: h)
        func map(_ u: Double, _ v: Double) -> (Double, Double) { (m[0] * u + m[2] * v + m[4], m[1] * u + m[3] * v + m[5]) }
        let (pageWidth, pageHeight) = orientation.swapsSides ? (h, w) : (w, h)
        let corners = [map(0, 0), map(1, 0), map(0, 1), map(1, 1)]
        #expect(Set(corners.map { "\($0.0),\($0.1)" }) == ["0.0,0.0", "\(pageWidth),0.0", "0.0,\(pageHeight)", "\(pageWidth),\(pageHeight)"])
        // The stored image's top-left corner is (u 0, v 1); EXIF says where row 0 / column 0 go.
        let expected: [ImageOrientation: (Double, Double)] = [
            .up: (0, pageHeight), .mirrored: (pageWidth, pageHeight), .down: (pageWidth, 0), .downMirrored: (0, 0),
            .leftMirrored: (0, pageHeight), .right: (pageWidth, pageHeight), .rightMirrored: (pageWidth, 0), .left: (0, 0),
        ]
        #expect(map(0, 1) == expected[orientation]!)
    }

    @Test func formatsAreKnownByContent() {
        #expect(FileKind.sniff(Self.jpeg()).imageFormat == .jpeg)
        #expect(FileKind.sniff(Self.png()).imageFormat == .png)
        #expect(FileKind.sniff(Self.g4Tiff()).imageFormat == .tiff)
        #expect(FileKind.sniff(Array("P6\n1 1 255\n...".utf8)).imageFormat == .pnm)
        #expect(FileKind.sniff(Array("%PDF-1.7".utf8)).imageFormat == nil)
        #expect(FileKind.sniff(Array("Pizza".utf8)).imageFormat == nil)
    }
}
