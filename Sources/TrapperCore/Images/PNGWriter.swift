/// Writes a PNG (RFC 2083) from rows of samples: the lossless file for scans JPEG cannot hold
/// (16-bit). Each row gets the Up filter, which costs one subtraction per byte and shrinks scans'
/// smooth vertical runs; pHYs carries the resolution so the page comes out at paper size.
public enum PNGWriter {
    /// `samples` holds `height` rows of `rowBytes` bytes, big-endian for 16-bit, as PNG stores them.
    public static func encode(width: Int, height: Int, bitDepth: Int, channels: Int, samples: [UInt8],
                              dpi: Double, flate: any FlateCoding) throws -> [UInt8] {
        precondition([1, 3].contains(channels) && [8, 16].contains(bitDepth), "gray or RGB, 8 or 16 bits")
        let rowBytes = width * channels * bitDepth / 8
        precondition(samples.count >= rowBytes * height, "fewer samples than rows")
        var filtered = [UInt8](repeating: 0, count: (rowBytes + 1) * height)
        samples.withUnsafeBufferPointer { source in
            filtered.withUnsafeMutableBufferPointer { out in
                for y in 0..<height {
                    let to = y * (rowBytes + 1), from = y * rowBytes
                    out[to] = y == 0 ? 0 : 2
                    for i in 0..<rowBytes {
                        out[to + 1 + i] = y == 0 ? source[from + i] : source[from + i] &- source[from - rowBytes + i]
                    }
                }
            }
        }
        var png = PNGFile.signature
        var header = be32(width) + be32(height)
        header += [UInt8(bitDepth), channels == 3 ? 2 : 0, 0, 0, 0]
        append("IHDR", header, to: &png)
        let perMetre = Int((dpi / 0.0254).rounded())
        append("pHYs", be32(perMetre) + be32(perMetre) + [1], to: &png)
        append("IDAT", try flate.deflate(filtered), to: &png)
        append("IEND", [], to: &png)
        return png
    }

    private static func append(_ type: String, _ body: [UInt8], to png: inout [UInt8]) {
        let typed = Array(type.utf8) + body
        png += be32(body.count) + typed + be32(Int(CRC32.checksum(typed)))
    }

    private static func be32(_ value: Int) -> [UInt8] {
        [UInt8(truncatingIfNeeded: value >> 24), UInt8(truncatingIfNeeded: value >> 16),
         UInt8(truncatingIfNeeded: value >> 8), UInt8(truncatingIfNeeded: value)]
    }
}
