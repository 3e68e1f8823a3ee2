/// One scanned page's samples as SANE delivered them: rows of `bytesPerLine` bytes (which may hold
/// padding past `width` pixels), 1-bit gray with 1 = black and the leftmost pixel in the high bit,
/// 16-bit samples in host byte order.
public struct ScannedPage: Sendable, Equatable {
    public enum Format: Sendable, Equatable { case gray, rgb }
    public var format: Format
    /// Bits per sample: 1, 8 or 16.
    public var depth: Int
    public var width: Int
    public var height: Int
    public var bytesPerLine: Int
    public var samples: [UInt8]

    public init(format: Format, depth: Int, width: Int, height: Int, bytesPerLine: Int, samples: [UInt8]) {
        self.format = format
        self.depth = depth
        self.width = width
        self.height = height
        self.bytesPerLine = bytesPerLine
        self.samples = samples
    }

    public var channels: Int { format == .rgb ? 3 : 1 }
    /// Bytes of one row's real pixels, without padding.
    var packedRowBytes: Int { (width * channels * depth + 7) / 8 }
}

extension ScannedPage {
    /// Joins a page's frames: one gray or RGB frame, or three-pass red, green and blue in any order.
    init(frames: [(FrameParameters, [UInt8])]) throws(ScanError) {
        for (p, _) in frames {
            guard [1, 8, 16].contains(p.depth) else { throw .unsupportedFrame("depth \(p.depth) (only 1, 8, 16)") }
            guard p.bytesPerLine > 0, p.pixelsPerLine > 0 else {
                throw .unsupportedFrame("empty frame (\(p.pixelsPerLine) pixels, \(p.bytesPerLine) bytes per line)")
            }
        }
        if frames.count == 1, let (p, data) = frames.first {
            let format: Format
            switch p.format {
            case .gray: format = .gray
            case .rgb: format = .rgb
            default: throw .unsupportedFrame("a single \(p.format) frame is not a page")
            }
            let height = data.count / p.bytesPerLine
            self.init(format: format, depth: p.depth, width: p.pixelsPerLine, height: height,
                      bytesPerLine: p.bytesPerLine, samples: Array(data[0..<height * p.bytesPerLine]))
            return
        }
        try self.init(threePass: frames)
    }

    private init(threePass frames: [(FrameParameters, [UInt8])]) throws(ScanError) {
        let order: [FrameParameters.Format] = [.red, .green, .blue]
        let byColor = order.compactMap { color in frames.first { $0.0.format == color } }
        guard frames.count == 3, byColor.count == 3 else {
            throw .unsupportedFrame("three-pass frames \(frames.map { "\($0.0.format)" }) are not one red, one green and one blue")
        }
        let first = byColor[0].0
        guard byColor.allSatisfy({ $0.0.pixelsPerLine == first.pixelsPerLine && $0.0.depth == first.depth && $0.0.bytesPerLine == first.bytesPerLine }) else {
            throw .unsupportedFrame("three-pass frames differ in width, depth or line length")
        }
        guard first.depth != 1 else { throw .unsupportedFrame("three-pass 1-bit color is not supported") }
        let width = first.pixelsPerLine, sampleBytes = first.depth / 8
        let height = byColor.map { $0.1.count / first.bytesPerLine }.min() ?? 0
        let rowBytes = width * 3 * sampleBytes
        var samples = [UInt8](repeating: 0, count: rowBytes * height)
        for (channel, (p, data)) in byColor.enumerated() {
            for y in 0..<height {
                for x in 0..<width {
                    for b in 0..<sampleBytes {
                        samples[y * rowBytes + (x * 3 + channel) * sampleBytes + b] = data[y * p.bytesPerLine + x * sampleBytes + b]
                    }
                }
            }
        }
        self.init(format: .rgb, depth: first.depth, width: width, height: height, bytesPerLine: rowBytes, samples: samples)
    }

    /// The page as a PNM file: P4 for 1-bit gray (PBM's 1 = black is SANE's too), P5 or P6 with maxval
    /// 255 or 65535 for 8 and 16 bits (16-bit samples swapped to the big-endian order PNM requires).
    /// 1-bit color, which PNM has no bitmap for, becomes an 8-bit P6 of 0 and 255.
    public func pnm() -> [UInt8] {
        if depth == 1 && format == .rgb { return expandedToEightBit().pnm() }
        let magic = depth == 1 ? "P4" : (format == .rgb ? "P6" : "P5")
        let maxval = depth == 1 ? "" : (depth == 16 ? "65535\n" : "255\n")
        var out = Array("\(magic)\n\(width) \(height)\n\(maxval)".utf8)
        let rowBytes = packedRowBytes
        out.reserveCapacity(out.count + rowBytes * height)
        for y in 0..<height {
            let row = samples[y * bytesPerLine..<y * bytesPerLine + rowBytes]
            if depth == 16 && Self.hostIsLittleEndian {
                var i = row.startIndex
                while i < row.endIndex { out.append(row[i + 1]); out.append(row[i]); i += 2 }
            } else {
                out.append(contentsOf: row)
            }
        }
        return out
    }

    private static var hostIsLittleEndian: Bool { 1.littleEndian == 1 }

    /// 1-bit samples as 0 / 255 bytes (bit set = full intensity for color).
    private func expandedToEightBit() -> ScannedPage {
        let perRow = width * channels
        var out = [UInt8](repeating: 0, count: perRow * height)
        for y in 0..<height {
            for i in 0..<perRow where samples[y * bytesPerLine + i / 8] & (0x80 >> UInt8(i % 8)) != 0 {
                out[y * perRow + i] = 255
            }
        }
        return ScannedPage(format: format, depth: 8, width: width, height: height, bytesPerLine: perRow, samples: out)
    }
}
