/// Turns a PNG's IDAT data into rows of packed samples (no filter bytes, not interlaced), the
/// layout PDF images use. Flate comes from the caller; the inflated size is bounded by what the
/// header allows, so a compression bomb stops at that size.
enum PNGDecoder {
    /// Adam7: (first column, first row, column step, row step) of each pass.
    static let passes: [(Int, Int, Int, Int)] = [(0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4),
        (1, 0, 2, 2), (0, 1, 1, 2)]

    static func rowBytes(width: Int, bitsPerPixel: Int) -> Int { (width * bitsPerPixel + 7) / 8 }

    /// For IDAT data that goes into the PDF as it is: it must inflate to exactly the rows the
    /// header promises, each with a filter byte a reader knows. Otherwise a reader would show a
    /// broken page (garbage data) or inflate far more than the picture holds (a Flate bomb).
    static func validate(_ png: PNGFile, flate: any FlateCoding) throws {
        let stride = rowBytes(width: png.width, bitsPerPixel: png.channels * png.bitDepth)
        let expected = png.height * (1 + stride)
        let inflated: [UInt8]
        do {
            inflated = try flate.inflate(png.idat, limit: expected)
        } catch {
            throw ImageInputError.corrupt(.png, "image data does not inflate to the \(png.width) × \(png.height) pixels its "
                                          + "header gives (\(error))")
        }
        guard inflated.count == expected else {
            throw ImageInputError.truncated(.png, "image data holds \(inflated.count) of \(expected) bytes")
        }
        for row in 0..<png.height where inflated[row * (1 + stride)] > 4 {
            throw ImageInputError.corrupt(.png, "row \(row + 1) has filter type \(inflated[row * (1 + stride)]); PNG has 0 to 4")
        }
    }

    static func decode(_ png: PNGFile, flate: any FlateCoding) throws -> [UInt8] {
        let bitsPerPixel = png.channels * png.bitDepth
        let stride = rowBytes(width: png.width, bitsPerPixel: bitsPerPixel)
        // (width, height) of each reduced image that holds pixels.
        let images: [(Int, Int)] = png.interlaced
            ? passes.map { pass in
                ((png.width - pass.0 + pass.2 - 1) / pass.2, (png.height - pass.1 + pass.3 - 1) / pass.3)
            }.filter { $0.0 > 0 && $0.1 > 0 }
            : [(png.width, png.height)]
        let expected = images.reduce(0) { $0 + $1.1 * (1 + rowBytes(width: $1.0, bitsPerPixel: bitsPerPixel)) }
        let inflated: [UInt8]
        do {
            inflated = try flate.inflate(png.idat, limit: expected)
        } catch {
            throw ImageInputError.corrupt(.png, "image data does not inflate: \(error)")
        }
        guard inflated.count >= expected else {
            throw ImageInputError.truncated(.png, "image data holds \(inflated.count) of \(expected) bytes")
        }
        let bytesPerPixel = max(1, bitsPerPixel / 8)
        if !png.interlaced {
            return try unfilter(inflated[...], rows: png.height, stride: stride, bytesPerPixel: bytesPerPixel)
        }
        var output = [UInt8](repeating: 0, count: stride * png.height)
        var offset = 0
        for pass in passes {
            let width = (png.width - pass.0 + pass.2 - 1) / pass.2
            let height = (png.height - pass.1 + pass.3 - 1) / pass.3
            guard width > 0, height > 0 else { continue }
            let passStride = rowBytes(width: width, bitsPerPixel: bitsPerPixel)
            let size = height * (1 + passStride)
            let rows = try unfilter(inflated[offset..<(offset + size)], rows: height, stride: passStride,
                bytesPerPixel: bytesPerPixel)
            offset += size
            for row in 0..<height {
                let y = pass.1 + row * pass.3
                for column in 0..<width {
                    let x = pass.0 + column * pass.2
                    copyPixel(from: rows, fromOffset: row * passStride, fromIndex: column, to: &output,
                        toOffset: y * stride, toIndex: x, bitsPerPixel: bitsPerPixel)
                }
            }
        }
        return output
    }

    private static func copyPixel(from source: [UInt8], fromOffset: Int, fromIndex: Int, to target: inout [UInt8],
        toOffset: Int, toIndex: Int, bitsPerPixel: Int)
    {
        if bitsPerPixel >= 8 {
            let size = bitsPerPixel / 8
            for byte in 0..<size { target[toOffset + toIndex * size + byte] = source[fromOffset + fromIndex * size + byte] }
            return
        }
        let value = sample(source, rowOffset: fromOffset, index: fromIndex, bits: bitsPerPixel)
        let bit = toIndex * bitsPerPixel
        let shift = 8 - bitsPerPixel - bit % 8
        target[toOffset + bit / 8] |= UInt8(value << shift)
    }

    /// The `index`th sample of `bits` bits (1, 2, 4, 8 or 16) in a packed row.
    static func sample(_ row: [UInt8], rowOffset: Int, index: Int, bits: Int) -> Int {
        switch bits {
        case 8: return Int(row[rowOffset + index])
        case 16: return Int(row[rowOffset + 2 * index]) << 8 | Int(row[rowOffset + 2 * index + 1])
        default:
            let bit = index * bits
            return Int(row[rowOffset + bit / 8] >> (8 - bits - bit % 8)) & (1 << bits - 1)
        }
    }

    /// Undoes the per-row filters (PNG §9): `data` is rows of a filter byte and `stride` bytes.
    /// One loop per filter type over raw buffers: this runs over every byte of the image.
    private static func unfilter(_ data: ArraySlice<UInt8>, rows: Int, stride: Int, bytesPerPixel bpp: Int) throws
        -> [UInt8]
    {
        var output = [UInt8](repeating: 0, count: rows * stride)
        try data.withUnsafeBufferPointer { input in
            try output.withUnsafeMutableBufferPointer { out in
                var at = 0
                for row in 0..<rows {
                    let filter = input[at]
                    at += 1
                    let base = row * stride
                    let up = base - stride  // only read when row > 0
                    let lead = min(bpp, stride)
                    switch filter {
                    case 0:
                        for i in 0..<stride { out[base + i] = input[at + i] }
                    case 1:
                        for i in 0..<lead { out[base + i] = input[at + i] }
                        for i in lead..<stride { out[base + i] = input[at + i] &+ out[base + i - bpp] }
                    case 2 where row == 0:
                        for i in 0..<stride { out[base + i] = input[at + i] }
                    case 2:
                        for i in 0..<stride { out[base + i] = input[at + i] &+ out[up + i] }
                    case 3:
                        for i in 0..<stride {
                            let left = i >= bpp ? Int(out[base + i - bpp]) : 0
                            let above = row > 0 ? Int(out[up + i]) : 0
                            out[base + i] = input[at + i] &+ UInt8((left + above) >> 1)
                        }
                    case 4:
                        for i in 0..<stride {
                            let left = i >= bpp ? out[base + i - bpp] : 0
                            let above = row > 0 ? out[up + i] : 0
                            let corner = row > 0 && i >= bpp ? out[up + i - bpp] : 0
                            out[base + i] = input[at + i] &+ paeth(left, above, corner)
                        }
                    default:
                        throw ImageInputError.corrupt(.png, "row \(row) has unknown filter type \(filter)")
                    }
                    at += stride
                }
            }
        }
        return output
    }

    private static func paeth(_ a: UInt8, _ b: UInt8, _ c: UInt8) -> UInt8 {
        let p = Int(a) + Int(b) - Int(c)
        let pa = abs(p - Int(a)), pb = abs(p - Int(b)), pc = abs(p - Int(c))
        if pa <= pb && pa <= pc { return a }
        return pb <= pc ? b : c
    }
}
