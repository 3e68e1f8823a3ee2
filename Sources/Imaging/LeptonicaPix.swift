import CLeptonica
import Glibc
import System
import TrapperCore

/// A leptonica image owned by Swift: destroyed when this goes away. Converts to PDF samples and
/// encodes bilevel images as CCITT G4.
final class LeptonicaPix {
    private(set) var pix: UnsafeMutablePointer<PIX>?
    /// Leptonica's functions, which made the image: whoever holds a pix can call them.
    let lept: trapper_leptonica

    /// `pix` as `lept` returned it (nil when it failed).
    init?(_ lept: trapper_leptonica, _ pix: UnsafeMutablePointer<PIX>?) {
        guard let pix else { return nil }
        self.pix = pix
        self.lept = lept
    }

    deinit { lept.pixDestroy(&pix) }

    var width: Int { Int(lept.pixGetWidth(pix)) }
    var height: Int { Int(lept.pixGetHeight(pix)) }
    var depth: Int { Int(lept.pixGetDepth(pix)) }
    var samplesPerPixel: Int { Int(lept.pixGetSpp(pix)) }

    /// An 8-bit grey or RGB raster as a leptonica image (8 or 32 bits a pixel); nil when it is
    /// neither, or leptonica could not make one.
    convenience init?(_ lept: trapper_leptonica, raster: Raster) {
        guard raster.depth == 8,
              let made = lept.pixCreate(Int32(raster.width), Int32(raster.height), raster.channels == 3 ? 32 : 8),
              let data = lept.pixGetData(made) else { return nil }
        self.init(lept, made)
        let wordsPerLine = Int(lept.pixGetWpl(made))
        raster.samples.withUnsafeBufferPointer { source in
            for y in 0..<raster.height {
                let row = source.baseAddress! + y * raster.bytesPerLine
                let words = data + y * wordsPerLine
                if raster.channels == 3 {
                    for x in 0..<raster.width {
                        let p = row + 3 * x
                        words[x] = UInt32(p[0]) << 24 | UInt32(p[1]) << 16 | UInt32(p[2]) << 8
                    }
                } else {
                    // Leptonica keeps 8-bit pixels in native-endian 32-bit words, leftmost in the high byte.
                    for x in 0..<raster.width {
                        words[x >> 2] |= UInt32(row[x]) << (24 - 8 * UInt32(x & 3))
                    }
                }
            }
        }
    }

    /// Decodes page `index` of a TIFF held in memory; nil when leptonica cannot.
    static func tiffPage(_ bytes: [UInt8], index: Int) throws(SharedLibrary.Failure) -> LeptonicaPix? {
        let lept = try Leptonica.functions()
        return bytes.withUnsafeBufferPointer { LeptonicaPix(lept, lept.pixReadMemTiff($0.baseAddress, $0.count, Int32(index))) }
    }

    /// A 1-bit image from packed rows (MSB first, 1 = black, leptonica's own sense).
    static func bitmap(width: Int, height: Int, rows: [UInt8]) throws(SharedLibrary.Failure) -> LeptonicaPix? {
        let lept = try Leptonica.functions()
        guard let pix = LeptonicaPix(lept, lept.pixCreate(Int32(width), Int32(height), 1)) else { return nil }
        let wordsPerLine = Int(lept.pixGetWpl(pix.pix))
        let rowBytes = (width + 7) / 8
        let data = UnsafeMutableRawPointer(lept.pixGetData(pix.pix)!).assumingMemoryBound(to: UInt8.self)
        for row in 0..<height {
            // Bytes in reading order, then swapped to leptonica's native-endian words below.
            rows.withUnsafeBufferPointer { source in
                (data + row * wordsPerLine * 4).update(from: source.baseAddress! + row * rowBytes, count: rowBytes)
            }
        }
        _ = lept.pixEndianByteSwap(pix.pix)
        return pix
    }

    /// Rows of packed samples in PDF's layout, with the color space and bits they need. 32-bit
    /// images come out as RGB, with their alpha as 8-bit samples when they have four.
    func pdfSamples() throws -> (samples: [UInt8], alpha: [UInt8]?, colorSpace: PDFObject, bits: Int, decode: PDFObject?) {
        let wordsPerLine = Int(lept.pixGetWpl(pix))
        guard let words = lept.pixGetData(pix) else { throw ImageInputError.decodeFailed(.tiff, "no pixel data") }
        let (width, height, depth) = (self.width, self.height, self.depth)
        if depth == 32 {
            var rgb = [UInt8](repeating: 0, count: width * height * 3)
            var alpha = samplesPerPixel == 4 ? [UInt8](repeating: 0, count: width * height) : nil
            for y in 0..<height {
                for x in 0..<width {
                    let word = words[y * wordsPerLine + x]
                    let at = (y * width + x) * 3
                    rgb[at] = UInt8(word >> 24)
                    rgb[at + 1] = UInt8(truncatingIfNeeded: word >> 16)
                    rgb[at + 2] = UInt8(truncatingIfNeeded: word >> 8)
                    alpha?[y * width + x] = UInt8(truncatingIfNeeded: word)
                }
            }
            return (rgb, alpha, .name("DeviceRGB"), 8, nil)
        }
        guard [1, 2, 4, 8, 16].contains(depth) else {
            throw ImageInputError.unsupported(.tiff, "\(depth)-bit decoded pixels")
        }
        let rowBytes = (width * depth + 7) / 8
        var samples = [UInt8](repeating: 0, count: rowBytes * height)
        for y in 0..<height {
            for byte in 0..<rowBytes {
                samples[y * rowBytes + byte] = UInt8(truncatingIfNeeded: words[y * wordsPerLine + byte / 4] >> (24 - 8 * UInt32(byte % 4)))
            }
        }
        if let colormap = lept.pixGetColormap(pix) {
            let count = Int(lept.pixcmapGetCount(colormap))
            var table: [UInt8] = []
            for index in 0..<count {
                var r: Int32 = 0, g: Int32 = 0, b: Int32 = 0
                _ = lept.pixcmapGetColor(colormap, Int32(index), &r, &g, &b)
                table += [UInt8(clamping: r), UInt8(clamping: g), UInt8(clamping: b)]
            }
            let space: PDFObject = [.name("Indexed"), .name("DeviceRGB"), .integer(count - 1),
                .string(PDFString(bytes: table, form: .hex))]
            return (samples, nil, space, depth, nil)
        }
        // Leptonica's bilevel images hold 1 for black; PDF's grey holds 1 for white.
        return (samples, nil, .name("DeviceGray"), depth, depth == 1 ? [1, 0] : nil)
    }

    /// The image as a G4 /CCITTFaxDecode stream, by letting leptonica write a one-strip G4 TIFF
    /// to memory and taking its strip; nil if that fails or the TIFF is not one strip.
    func g4Image() -> PDFStream? {
        guard depth == 1 else { return nil }
        var data: UnsafeMutablePointer<UInt8>? = nil
        var size = 0
        guard lept.pixWriteMemTiff(&data, &size, pix, Int32(IFF_TIFF_G4)) == 0, let data else { return nil }
        defer { free(data) }
        let tiff = Array(UnsafeBufferPointer(start: data, count: size))
        guard let page = try? TIFFFile(tiff, limits: ImageLimits(maxPixels: .max)).pages.first else { return nil }
        return TIFFFile.ccittImage(page, in: tiff)
    }
}
