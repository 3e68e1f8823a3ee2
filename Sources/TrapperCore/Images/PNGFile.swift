/// A PNG's chunks, checked: signature, every chunk's CRC, IHDR first, IEND present. Keeps what
/// embedding needs: IHDR, PLTE, tRNS, pHYs, eXIf orientation, and the IDAT data concatenated.
public struct PNGFile: Sendable {
    public static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    public var width: Int
    public var height: Int
    public var bitDepth: Int
    /// 0 grey, 2 RGB, 3 palette, 4 grey + alpha, 6 RGBA.
    public var colorType: Int
    public var interlaced: Bool
    public var palette: [UInt8]?
    public var transparency: [UInt8]?
    public var resolution: ImageResolution?
    public var idat: [UInt8]

    public init(_ bytes: [UInt8], limits: ImageLimits = ImageLimits()) throws {
        guard bytes.starts(with: Self.signature) else { throw ImageInputError.corrupt(.png, "no PNG signature") }
        var position = 8
        var header: ArraySlice<UInt8>? = nil
        var palette: [UInt8]? = nil
        var transparency: [UInt8]? = nil
        var resolution: ImageResolution? = nil
        var idat: [UInt8] = []
        var sawEnd = false
        while !sawEnd {
            guard position + 8 <= bytes.count else {
                throw ImageInputError.truncated(.png, position == bytes.count ? "no IEND chunk" : "cut off inside a chunk")
            }
            let length = Int(Self.be32(bytes, position))
            let type = String(decoding: bytes[(position + 4)..<(position + 8)], as: UTF8.self)
            guard length <= 0x7FFF_FFFF, position + 12 + length <= bytes.count else {
                throw ImageInputError.truncated(.png, "cut off inside the \(type) chunk")
            }
            let data = bytes[(position + 8)..<(position + 8 + length)]
            let stored = Self.be32(bytes, position + 8 + length)
            guard CRC32.checksum(bytes[(position + 4)..<(position + 8 + length)]) == stored else {
                throw ImageInputError.corrupt(.png, "bad CRC in the \(type) chunk")
            }
            if header == nil, type != "IHDR" { throw ImageInputError.corrupt(.png, "first chunk is \(type), not IHDR") }
            switch type {
            case "IHDR":
                guard length == 13 else { throw ImageInputError.corrupt(.png, "IHDR is \(length) bytes, not 13") }
                header = data
                // The pixel bomb is refused here, before any chunk after IHDR is even looked at.
                try limits.check(width: Int(Self.be32(bytes, position + 8)), height: Int(Self.be32(bytes, position + 12)),
                    format: .png)
            case "PLTE": palette = Array(data)
            case "tRNS": transparency = Array(data)
            case "pHYs" where length == 9:
                let unit: ImageResolution.Unit = data[data.startIndex + 8] == 1 ? .metre : .none
                resolution = ImageResolution.stated(x: Double(Self.be32(bytes, position + 8)),
                    y: Double(Self.be32(bytes, position + 12)), unit: unit)
            case "IDAT": idat.append(contentsOf: data)
            case "IEND": sawEnd = true
            default: break
            }
            position += 12 + length
        }
        guard let header else { throw ImageInputError.corrupt(.png, "no IHDR chunk") }
        let h = header.startIndex
        width = Int(Self.be32(bytes, h))
        height = Int(Self.be32(bytes, h + 4))
        bitDepth = Int(header[h + 8])
        colorType = Int(header[h + 9])
        interlaced = header[h + 12] == 1
        let allowed: [Int: [Int]] = [0: [1, 2, 4, 8, 16], 2: [8, 16], 3: [1, 2, 4, 8], 4: [8, 16], 6: [8, 16]]
        guard allowed[colorType]?.contains(bitDepth) == true else {
            throw ImageInputError.corrupt(.png, "color type \(colorType) with bit depth \(bitDepth)")
        }
        guard header[h + 10] == 0, header[h + 11] == 0, header[h + 12] <= 1 else {
            throw ImageInputError.corrupt(.png, "unknown compression, filter or interlace method")
        }
        if colorType == 3 {
            guard let palette, !palette.isEmpty, palette.count % 3 == 0, palette.count / 3 <= 1 << bitDepth else {
                throw ImageInputError.corrupt(.png, "palette image without a valid PLTE chunk")
            }
        }
        guard !idat.isEmpty else { throw ImageInputError.corrupt(.png, "no IDAT chunk") }
        self.palette = palette
        self.transparency = transparency
        self.resolution = resolution
        self.idat = idat
    }

    /// Samples per pixel.
    public var channels: Int { [0: 1, 2: 3, 3: 1, 4: 2, 6: 4][colorType] ?? 1 }
    public var hasAlpha: Bool { colorType == 4 || colorType == 6 || transparency != nil }

    static func be32(_ bytes: [UInt8], _ at: Int) -> UInt32 {
        UInt32(bytes[at]) << 24 | UInt32(bytes[at + 1]) << 16 | UInt32(bytes[at + 2]) << 8 | UInt32(bytes[at + 3])
    }
}
