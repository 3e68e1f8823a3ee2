/// Netpbm images (what SANE's scanimage writes): P1/P4 bitmaps, P2/P5 greymaps, P3/P6 pixmaps, as
/// packed PDF samples. Bitmaps keep PBM's sense, 1 = black.
public struct PNMFile: Sendable {
    public var width: Int
    public var height: Int
    /// 1 for P1/P4, else from maxval (8 or 16).
    public var bitsPerComponent: Int
    public var components: Int
    public var maxValue: Int
    /// Rows of packed samples: 1-bit rows padded to a byte, 16-bit samples big-endian.
    public var samples: [UInt8]

    public var isBitmap: Bool { bitsPerComponent == 1 }

    static func isWhitespace(_ byte: UInt8) -> Bool { byte == 0x20 || (0x09...0x0D).contains(byte) }

    public init(_ bytes: [UInt8], limits: ImageLimits = ImageLimits()) throws {
        guard bytes.count >= 2, bytes[0] == UInt8(ascii: "P"), let kind = Int(String(UnicodeScalar(bytes[1]))),
            (1...6).contains(kind)
        else { throw ImageInputError.corrupt(.pnm, "no P1–P6 magic number") }
        var position = 2
        func headerNumber() throws -> Int {
            while true {
                while position < bytes.count, Self.isWhitespace(bytes[position]) { position += 1 }
                guard position < bytes.count else { throw ImageInputError.truncated(.pnm, "cut off inside its header") }
                guard bytes[position] == UInt8(ascii: "#") else { break }
                while position < bytes.count, bytes[position] != 0x0A, bytes[position] != 0x0D { position += 1 }
            }
            var value = 0
            var digits = 0
            while position < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[position]) {
                value = value * 10 + Int(bytes[position] - UInt8(ascii: "0"))
                digits += 1
                guard value < 1 << 31 else { throw ImageInputError.corrupt(.pnm, "header number out of range") }
                position += 1
            }
            guard digits > 0 else {
                if position >= bytes.count { throw ImageInputError.truncated(.pnm, "cut off inside its header") }
                throw ImageInputError.corrupt(.pnm, "expected a number at offset \(position)")
            }
            return value
        }
        width = try headerNumber()
        height = try headerNumber()
        try limits.check(width: width, height: height, format: .pnm)
        let bitmap = kind == 1 || kind == 4
        maxValue = bitmap ? 1 : try headerNumber()
        guard (1...65535).contains(maxValue) else { throw ImageInputError.corrupt(.pnm, "maxval \(maxValue)") }
        components = kind == 3 || kind == 6 ? 3 : 1
        bitsPerComponent = bitmap ? 1 : maxValue < 256 ? 8 : 16
        let rowBytes = bitmap ? (width + 7) / 8 : width * components * bitsPerComponent / 8
        let size = rowBytes * height
        if kind >= 4 {
            // Exactly one whitespace byte separates the header from the raster.
            guard position < bytes.count, Self.isWhitespace(bytes[position]) else {
                throw ImageInputError.truncated(.pnm, "no image data after the header")
            }
            position += 1
            guard bytes.count - position >= size else {
                throw ImageInputError.truncated(.pnm, "image data holds \(bytes.count - position) of \(size) bytes")
            }
            samples = Array(bytes[position..<(position + size)])
        } else {
            samples = try Self.plain(bytes, from: position, kind: kind, width: width, height: height,
                components: components, bitsPerComponent: bitsPerComponent, size: size)
        }
    }

    /// P1–P3: decimal samples separated by whitespace (P1 digits may touch).
    private static func plain(_ bytes: [UInt8], from start: Int, kind: Int, width: Int, height: Int, components: Int,
        bitsPerComponent: Int, size: Int) throws -> [UInt8]
    {
        var output = [UInt8](repeating: 0, count: size)
        var position = start
        let perRow = width * components
        for row in 0..<height {
            for index in 0..<perRow {
                while position < bytes.count, isWhitespace(bytes[position]) || bytes[position] == UInt8(ascii: "#") {
                    if bytes[position] == UInt8(ascii: "#") {
                        while position < bytes.count, bytes[position] != 0x0A { position += 1 }
                    } else {
                        position += 1
                    }
                }
                guard position < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[position]) else {
                    throw ImageInputError.truncated(.pnm, "image data ends at row \(row + 1) of \(height)")
                }
                var value = 0
                repeat {
                    value = min(value * 10 + Int(bytes[position] - UInt8(ascii: "0")), 1 << 20)
                    position += 1
                } while kind != 1 && position < bytes.count && (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[position])
                switch bitsPerComponent {
                case 1:
                    if value != 0 { output[row * ((width + 7) / 8) + index / 8] |= 0x80 >> UInt8(index % 8) }
                case 8:
                    output[row * perRow + index] = UInt8(min(value, 255))
                default:
                    let clamped = min(value, 65535)
                    output[(row * perRow + index) * 2] = UInt8(clamped >> 8)
                    output[(row * perRow + index) * 2 + 1] = UInt8(clamped & 0xFF)
                }
            }
        }
        return output
    }

    /// The page as a Flate image. Bitmaps (PBM: 1 = black) get /Decode [1 0]; maxvals other than
    /// 255 and 65535 are scaled by /Decode, so the samples stay as stored.
    public static func page(_ pnm: PNMFile, limits: ImageLimits = ImageLimits(), flate: any FlateCoding) throws
        -> ImagePage
    {
        var image = try ImageXObject.flate(pnm.samples, width: pnm.width, height: pnm.height,
            colorSpace: ImageXObject.deviceColorSpace(components: pnm.components),
            bitsPerComponent: pnm.bitsPerComponent, flate: flate)
        if pnm.isBitmap {
            image.dictionary["Decode"] = [1, 0]
        } else if pnm.maxValue != (1 << pnm.bitsPerComponent) - 1 {
            let top = Double((1 << pnm.bitsPerComponent) - 1) / Double(pnm.maxValue)
            image.dictionary["Decode"] = .array(Array(repeating: [0, .real(top)], count: pnm.components).flatMap { $0 })
        }
        return pnm.imagePage(image, limits: limits)
    }

    public func imagePage(_ image: PDFStream, limits: ImageLimits) -> ImagePage {
        ImagePage(image: image, pixelWidth: width, pixelHeight: height,
            resolution: ImageResolution(x: limits.defaultDPI, y: limits.defaultDPI), orientation: .up)
    }
}
