/// Samples as a scanner delivers them: `height` rows of `bytesPerLine` bytes (padding allowed past
/// the pixels), 1-bit with 1 = black and the leftmost pixel in the high bit, 16-bit samples in host
/// byte order. The scanning adapter fills it; the scan encoder reads it.
public struct Raster: Sendable, Equatable {
    public var width: Int
    public var height: Int
    /// 1 (gray) or 3 (RGB).
    public var channels: Int
    /// Bits per sample: 1, 8 or 16.
    public var depth: Int
    public var bytesPerLine: Int
    public var samples: [UInt8]

    public init(width: Int, height: Int, channels: Int, depth: Int, bytesPerLine: Int, samples: [UInt8]) {
        self.width = width
        self.height = height
        self.channels = channels
        self.depth = depth
        self.bytesPerLine = bytesPerLine
        self.samples = samples
    }

    /// Bytes of one row's real pixels, without padding.
    public var packedRowBytes: Int { (width * channels * depth + 7) / 8 }

    /// 1-bit samples as 0 / 255 bytes (a set bit is full intensity in colour), for formats that have
    /// no 1-bit colour.
    public func expandedToEightBit() -> Raster {
        let perRow = width * channels
        var out = [UInt8](repeating: 0, count: perRow * height)
        for y in 0..<height {
            for i in 0..<perRow where samples[y * bytesPerLine + i / 8] & (0x80 >> UInt8(i % 8)) != 0 {
                out[y * perRow + i] = 255
            }
        }
        return Raster(width: width, height: height, channels: channels, depth: 8, bytesPerLine: perRow, samples: out)
    }
}
