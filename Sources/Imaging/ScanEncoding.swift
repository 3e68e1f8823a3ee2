import CLeptonica
import Glibc
import TrapperCore

/// Encodes a scanned page once, into the file whose data goes into the PDF unchanged: so lossy
/// compression happens exactly once, here. 8-bit gray and colour become JPEG at the profile's
/// quality (as every scanning app does), 1-bit becomes CCITT G4 in a TIFF (lossless, a tenth of
/// Flate's size on text), 16-bit becomes PNG (JPEG has no 16-bit). Each states the resolution.
public enum ScanEncoding {
    public struct Encoded: Sendable {
        public var bytes: [UInt8]
        /// "jpg", "tif" or "png": the spool file's extension.
        public var fileExtension: String
    }

    public enum Failure: Error, CustomStringConvertible {
        case unsupported(String)
        case encoder(String)

        public var description: String {
            switch self {
            case .unsupported(let what): "cannot encode \(what)"
            case .encoder(let step): "\(step) failed"
            }
        }
    }

    public static func encode(_ raster: Raster, dpi: Int, jpegQuality: Int, flate: any FlateCoding) throws -> Encoded {
        guard raster.width > 0, raster.height > 0, [1, 3].contains(raster.channels),
              raster.samples.count >= raster.bytesPerLine * raster.height,
              raster.bytesPerLine * 8 >= raster.width * raster.channels * raster.depth else {
            throw Failure.unsupported("a \(raster.width)x\(raster.height) raster of \(raster.samples.count) bytes")
        }
        switch (raster.depth, raster.channels) {
        case (1, 1):
            return Encoded(bytes: try g4TIFF(raster, dpi: dpi), fileExtension: "tif")
        case (8, _):
            return Encoded(bytes: try jpeg(raster, dpi: dpi, quality: jpegQuality), fileExtension: "jpg")
        case (16, _):
            return Encoded(bytes: try png(raster, dpi: dpi, flate: flate), fileExtension: "png")
        case (1, 3):
            // 1-bit colour (eight colours) has no bitmap format; lossless 8-bit keeps its hard edges.
            return Encoded(bytes: try png(raster.expandedToEightBit(), dpi: dpi, flate: flate), fileExtension: "png")
        default:
            throw Failure.unsupported("\(raster.depth)-bit samples")
        }
    }

    static func jpeg(_ raster: Raster, dpi: Int, quality: Int) throws -> [UInt8] {
        let lept = try Leptonica.functions()
        guard let pix = LeptonicaPix(lept, raster: raster) else { throw Failure.encoder("pixCreate") }
        _ = lept.pixSetResolution(pix.pix, Int32(dpi), Int32(dpi))
        var out: UnsafeMutablePointer<UInt8>? = nil
        var size = 0
        guard lept.pixWriteMemJpeg(&out, &size, pix.pix, Int32(quality), 0) == 0, let out else {
            throw Failure.encoder("JPEG encoding")
        }
        defer { free(out) }
        return Array(UnsafeBufferPointer(start: out, count: size))
    }

    static func g4TIFF(_ raster: Raster, dpi: Int) throws -> [UInt8] {
        let rowBytes = (raster.width + 7) / 8
        var rows = [UInt8](repeating: 0, count: rowBytes * raster.height)
        for y in 0..<raster.height {
            rows[y * rowBytes..<(y + 1) * rowBytes] = raster.samples[y * raster.bytesPerLine..<y * raster.bytesPerLine + rowBytes]
        }
        guard let pix = try LeptonicaPix.bitmap(width: raster.width, height: raster.height, rows: rows) else {
            throw Failure.encoder("pixCreate")
        }
        let lept = pix.lept
        _ = lept.pixSetResolution(pix.pix, Int32(dpi), Int32(dpi))
        var out: UnsafeMutablePointer<UInt8>? = nil
        var size = 0
        guard lept.pixWriteMemTiff(&out, &size, pix.pix, Int32(IFF_TIFF_G4)) == 0, let out else {
            throw Failure.encoder("G4 TIFF encoding")
        }
        defer { free(out) }
        return Array(UnsafeBufferPointer(start: out, count: size))
    }

    static func png(_ raster: Raster, dpi: Int, flate: any FlateCoding) throws -> [UInt8] {
        let rowBytes = raster.width * raster.channels * raster.depth / 8
        var rows = [UInt8](repeating: 0, count: rowBytes * raster.height)
        let swap = raster.depth == 16 && 1.littleEndian == 1
        for y in 0..<raster.height {
            let from = y * raster.bytesPerLine, to = y * rowBytes
            for i in stride(from: 0, to: rowBytes, by: swap ? 2 : 1) {
                if swap {
                    rows[to + i] = raster.samples[from + i + 1]
                    rows[to + i + 1] = raster.samples[from + i]
                } else {
                    rows[to + i] = raster.samples[from + i]
                }
            }
        }
        return try PNGWriter.encode(width: raster.width, height: raster.height, bitDepth: raster.depth,
                                    channels: raster.channels, samples: rows, dpi: Double(dpi), flate: flate)
    }
}
