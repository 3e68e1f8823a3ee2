import Foundation
import Imaging
import PDFAccess
import Testing
import TrapperCore

/// A scanned page is encoded once, into the file whose data goes into the PDF unchanged. Each test
/// builds a raster the way SANE delivers it, every row padded past the width with junk (and, for
/// bitmaps, junk in the unused bits of the last byte), encodes it, and has Pillow (for 16-bit PNG
/// also a plain-Python PNG reader, as Pillow narrows 16-bit colour to 8) read the file back
/// against a clean reference written here as PNM.
@Suite struct ScanEncodingTests {
    static let junk: UInt8 = 0xA5

    @Test func rgbBecomesAJPEGWithTheResolutionAsJFIFDensity() throws {
        let scratch = try ImageScratch()
        defer { scratch.remove() }
        // Smooth ramps: JPEG keeps them within a few levels, while a row read from the wrong place shows.
        let (width, height) = (61, 40)
        let clean: [[UInt8]] = (0..<height).map { y in
            (0..<width).flatMap { x -> [UInt8] in [UInt8(x * 4), UInt8(y * 6), UInt8(255 - x * 2)] }
        }
        let encoded = try encode(Self.padded(clean, by: 7), width: width, channels: 3, depth: 8, dpi: 200)
        #expect(encoded.fileExtension == "jpg")
        #expect(Self.jfifDensity(encoded.bytes) == JFIFDensity(unit: 1, x: 200, y: 200))
        try save(encoded, scratch, "page.jpg")
        try Self.pnm("P6", width, height, 255, clean.flatMap { $0 }).write(to: URL(fileURLWithPath: scratch.path("ref.ppm")))
        let report = try scratch.python("""
            img = Image.open('page.jpg')
            ref = Image.open('ref.ppm')
            d = ImageChops.difference(img.convert('RGB'), ref)
            from PIL import ImageStat
            mean = max(ImageStat.Stat(d).mean)
            print(img.format, img.mode, img.size, img.info.get('dpi'), img.info.get('jfif_unit'), round(mean, 1) < 2, diff(img, ref) < 16)
            """)
        #expect(report == "JPEG RGB (61, 40) (200, 200) 1 True True", "\(report)")
    }

    @Test func greyBecomesAOneComponentJPEG() throws {
        let scratch = try ImageScratch()
        defer { scratch.remove() }
        // 37 pixels: not a whole number of Leptonica's four-pixel words.
        let (width, height) = (37, 25)
        let clean = (0..<height).map { y in (0..<width).map { x in UInt8(x * 5 + y * 2) } }
        let encoded = try encode(Self.padded(clean, by: 3), width: width, channels: 1, depth: 8, dpi: 150)
        #expect(encoded.fileExtension == "jpg")
        #expect(Self.jfifDensity(encoded.bytes) == JFIFDensity(unit: 1, x: 150, y: 150))
        try save(encoded, scratch, "page.jpg")
        try Self.pnm("P5", width, height, 255, clean.flatMap { $0 }).write(to: URL(fileURLWithPath: scratch.path("ref.pgm")))
        let report = try scratch.python("""
            img = Image.open('page.jpg')
            print(img.format, img.mode, img.layers, img.size, img.info.get('dpi'), diff(img, Image.open('ref.pgm')) < 8)
            """)
        #expect(report == "JPEG L 1 (37, 25) (150, 150) True", "\(report)")
    }

    @Test func bitmapBecomesAG4TIFFOfTheSamePixels() throws {
        let scratch = try ImageScratch()
        defer { scratch.remove() }
        // 45 pixels: six bytes a row, the last with three unused bits, which the raster fills with junk.
        let (width, height) = (45, 30)
        let black = { (x: Int, y: Int) in (x * y + x / 3) % 3 == 0 || y == x / 2 }
        let clean = (0..<height).map { y in Self.bits((0..<width).map { black($0, y) }) }
        let dirty = clean.map { row in row.enumerated().map { $0.offset == row.count - 1 ? $0.element | 0b0000_0111 : $0.element } }
        let encoded = try encode(Self.padded(dirty, by: 2), width: width, channels: 1, depth: 1, dpi: 300)
        #expect(encoded.fileExtension == "tif")
        try save(encoded, scratch, "page.tif")
        try Self.pnm("P4", width, height, nil, clean.flatMap { $0 }).write(to: URL(fileURLWithPath: scratch.path("ref.pbm")))
        let report = try scratch.python("""
            img = Image.open('page.tif')
            tags = img.tag_v2
            same = ImageChops.difference(img.convert('L'), Image.open('ref.pbm').convert('L')).getbbox() is None
            print(img.format, img.mode, img.size, tags[259], float(tags[282]), float(tags[283]), tags[296], same)
            """)
        // Compression 4 is CCITT T.6 (G4); resolution unit 2 is inches.
        #expect(report == "TIFF 1 (45, 30) 4 300.0 300.0 2 True", "\(report)")
    }

    @Test(arguments: [1, 3])
    func sixteenBitBecomesAPNGWithEverySample(channels: Int) throws {
        let scratch = try ImageScratch()
        defer { scratch.remove() }
        let (width, height) = (23, 17)
        // Values whose two bytes differ, so a byte-order slip shows; the raster holds them in host order.
        let values = (0..<height).map { y in (0..<width * channels).map { i in UInt16(truncatingIfNeeded: i * 1031 + y * 2579 + 17) } }
        let host = values.map { row in row.flatMap { value in withUnsafeBytes(of: value) { Array($0) } } }
        let encoded = try encode(Self.padded(host, by: 6), width: width, channels: channels, depth: 16, dpi: 300)
        #expect(encoded.fileExtension == "png")
        try save(encoded, scratch, "page.png")
        let bigEndian = values.flatMap { row in row.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] } }
        try Data(bigEndian).write(to: URL(fileURLWithPath: scratch.path("ref.raw")))
        let report = try scratch.python(Self.pngReader + """
            header, phys, samples = png_samples('page.png')
            img = Image.open('page.png')
            dpi = tuple(round(d, 2) for d in img.info['dpi'])
            line = [header, phys, dpi, samples == open('ref.raw', 'rb').read()]
            if header[3] == 0:  # Pillow keeps 16-bit grey: its samples too
                from array import array
                ref = array('H'); ref.frombytes(open('ref.raw', 'rb').read()); ref.byteswap()
                line.append(img.mode == 'I;16' and array('H', img.tobytes()) == ref or img.mode)
            print(*line)
            """)
        // pHYs: 300 dpi is 11,811 pixels a metre (unit 1).
        let expected = "(23, 17, 16, \(channels == 3 ? 2 : 0)) (11811, 11811, 1) (300.0, 300.0) True" + (channels == 1 ? " True" : "")
        #expect(report == expected, "\(report)")
    }

    @Test func oneBitColourBecomesAnEightBitPNGOfFullIntensities() throws {
        let scratch = try ImageScratch()
        defer { scratch.remove() }
        let (width, height) = (13, 9)
        let on = { (x: Int, y: Int, c: Int) in (x + 2 * y + c) % 3 == 0 }
        let clean = (0..<height).map { y in Self.bits((0..<width).flatMap { x in (0..<3).map { on(x, y, $0) } }) }
        let encoded = try encode(Self.padded(clean, by: 3), width: width, channels: 3, depth: 1, dpi: 100)
        #expect(encoded.fileExtension == "png")
        try save(encoded, scratch, "page.png")
        let pixels = (0..<height).flatMap { y in (0..<width).flatMap { x in (0..<3).map { on(x, y, $0) ? UInt8(255) : 0 } } }
        try Self.pnm("P6", width, height, 255, pixels).write(to: URL(fileURLWithPath: scratch.path("ref.ppm")))
        let report = try scratch.python("""
            img = Image.open('page.png')
            print(img.mode, img.size, diff(img, Image.open('ref.ppm')))
            """)
        #expect(report == "RGB (13, 9) 0", "\(report)")
    }

    @Test func rastersItCannotEncodeAreRefused() {
        let flate = ZlibFlate()
        let cases: [(String, Raster)] = [
            ("two channels", Raster(width: 2, height: 2, channels: 2, depth: 8, bytesPerLine: 4, samples: [UInt8](repeating: 0, count: 8))),
            ("4-bit", Raster(width: 2, height: 2, channels: 1, depth: 4, bytesPerLine: 1, samples: [0, 0])),
            ("fewer samples than rows", Raster(width: 4, height: 3, channels: 1, depth: 8, bytesPerLine: 4, samples: [UInt8](repeating: 0, count: 11))),
            ("rows narrower than the width", Raster(width: 9, height: 1, channels: 1, depth: 1, bytesPerLine: 1, samples: [0])),
            ("no pixels", Raster(width: 0, height: 5, channels: 1, depth: 8, bytesPerLine: 0, samples: [])),
        ]
        for (what, raster) in cases {
            #expect(throws: ScanEncoding.Failure.self, "\(what)") {
                try ScanEncoding.encode(raster, dpi: 300, jpegQuality: 85, flate: flate)
            }
        }
    }

    // MARK: Helpers

    private func encode(_ rows: (bytesPerLine: Int, samples: [UInt8]), width: Int, channels: Int, depth: Int, dpi: Int) throws
        -> ScanEncoding.Encoded
    {
        let raster = Raster(width: width, height: rows.samples.count / rows.bytesPerLine, channels: channels, depth: depth,
                            bytesPerLine: rows.bytesPerLine, samples: rows.samples)
        return try ScanEncoding.encode(raster, dpi: dpi, jpegQuality: 95, flate: ImageScratch.flate)
    }

    private func save(_ encoded: ScanEncoding.Encoded, _ scratch: ImageScratch, _ name: String) throws {
        try Data(encoded.bytes).write(to: URL(fileURLWithPath: scratch.path(name)))
    }

    /// Rows laid end to end, each followed by `padding` junk bytes: SANE's bytes_per_line past the pixels.
    static func padded(_ rows: [[UInt8]], by padding: Int) -> (bytesPerLine: Int, samples: [UInt8]) {
        let bytesPerLine = (rows.first?.count ?? 0) + padding
        return (bytesPerLine, rows.flatMap { $0 + [UInt8](repeating: junk, count: padding) })
    }

    /// Bits packed leftmost in the high bit, as SANE and PBM do (1 = black in grey bitmaps).
    static func bits(_ flags: [Bool]) -> [UInt8] {
        stride(from: 0, to: flags.count, by: 8).map { start in
            flags[start..<min(start + 8, flags.count)].enumerated()
                .reduce(UInt8(0)) { $0 | ($1.element ? 0x80 >> UInt8($1.offset) : 0) }
        }
    }

    /// A binary PNM file; `maxval` is nil for P4.
    static func pnm(_ kind: String, _ width: Int, _ height: Int, _ maxval: Int?, _ body: [UInt8]) -> Data {
        Data("\(kind)\n\(width) \(height)\n\(maxval.map { "\($0)\n" } ?? "")".utf8) + Data(body)
    }

    struct JFIFDensity: Equatable {
        var unit: UInt8
        var x, y: Int
    }

    /// The density in the JFIF APP0 segment that must follow SOI.
    static func jfifDensity(_ jpeg: [UInt8]) -> JFIFDensity? {
        guard jpeg.count > 18, Array(jpeg[0...3]) == [0xFF, 0xD8, 0xFF, 0xE0], Array(jpeg[6...10]) == Array("JFIF\0".utf8) else { return nil }
        return JFIFDensity(unit: jpeg[13], x: Int(jpeg[14]) << 8 | Int(jpeg[15]), y: Int(jpeg[16]) << 8 | Int(jpeg[17]))
    }

    /// A PNG reader in plain Python (chunks with their CRCs, zlib, all five row filters), which
    /// keeps 16-bit samples as they are: `png_samples(path)` gives (width, height, depth, colour
    /// type), the pHYs triple and the unfiltered sample bytes.
    static let pngReader = #"""
        import struct, zlib
        def png_samples(path):
            data = open(path, 'rb').read()
            assert data[:8] == b'\x89PNG\r\n\x1a\n', 'not a PNG'
            pos, idat, phys = 8, b'', None
            while pos < len(data):
                n, kind = struct.unpack('>I4s', data[pos:pos + 8])
                body = data[pos + 8:pos + 8 + n]
                assert zlib.crc32(kind + body) == struct.unpack('>I', data[pos + 8 + n:pos + 12 + n])[0], kind
                if kind == b'IHDR':
                    w, h, depth, ctype = struct.unpack('>IIBB', body[:10])
                elif kind == b'pHYs':
                    phys = struct.unpack('>IIB', body)
                elif kind == b'IDAT':
                    idat += body
                pos += 12 + n
            raw = zlib.decompress(idat)
            bpp = {0: 1, 2: 3}[ctype] * depth // 8
            stride = w * bpp
            out, prev = bytearray(), bytearray(stride)
            for y in range(h):
                f = raw[y * (stride + 1)]
                line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
                for i in range(stride):
                    a = line[i - bpp] if i >= bpp else 0
                    b = prev[i]
                    c = prev[i - bpp] if i >= bpp else 0
                    if f == 1: line[i] = (line[i] + a) & 255
                    elif f == 2: line[i] = (line[i] + b) & 255
                    elif f == 3: line[i] = (line[i] + (a + b) // 2) & 255
                    elif f == 4:
                        p = a + b - c
                        pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                        line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
                out += line
                prev = line
            return (w, h, depth, ctype), phys, bytes(out)

        """#
}
