import TrapperCore

/// One scanned page: a `Raster` (see there for the sample layout), gray or RGB, 1, 8 or 16 bits.
public typealias ScannedPage = Raster

extension Raster {
    public enum Format: Sendable, Equatable { case gray, rgb }

    public var format: Format { channels == 3 ? .rgb : .gray }

    public init(format: Format, depth: Int, width: Int, height: Int, bytesPerLine: Int, samples: [UInt8]) {
        self.init(width: width, height: height, channels: format == .rgb ? 3 : 1, depth: depth,
                  bytesPerLine: bytesPerLine, samples: samples)
    }
}

extension ScannedPage {
    /// Joins a page's frames: one gray or RGB frame, or three-pass red, green and blue in any order.
    init(frames: [(FrameParameters, [UInt8])]) throws(ScanError) {
        for (p, _) in frames { try Self.checkFrame(p) }
        if frames.count == 1, let (p, data) = frames.first {
            try self.init(frame: p, data: data)
            return
        }
        try self.init(threePass: frames)
    }

    /// Refuses, before its data is read, a frame no page can be made of.
    static func checkFrame(_ p: FrameParameters) throws(ScanError) {
        guard [1, 8, 16].contains(p.depth) else { throw .unsupportedFrame("depth \(p.depth) (only 1, 8, 16)") }
        guard p.bytesPerLine > 0, p.pixelsPerLine > 0 else {
            throw .unsupportedFrame("empty frame (\(p.pixelsPerLine) pixels, \(p.bytesPerLine) bytes per line)")
        }
    }

    /// A page of one gray or RGB frame; its height is the number of whole lines in `data`. The
    /// frame is cut in place, so a 26 MB page is not copied when `data` is its only reference.
    init(frame p: FrameParameters, data: [UInt8]) throws(ScanError) {
        let format: Format
        switch p.format {
        case .gray: format = .gray
        case .rgb: format = .rgb
        default: throw .unsupportedFrame("a single \(p.format) frame is not a page")
        }
        var data = data
        let height = data.count / p.bytesPerLine
        data.removeSubrange((height * p.bytesPerLine)...)
        self.init(format: format, depth: p.depth, width: p.pixelsPerLine, height: height,
                  bytesPerLine: p.bytesPerLine, samples: data)
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
}
