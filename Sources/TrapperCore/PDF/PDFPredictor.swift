/// Undoing the predictors of /FlateDecode and /LZWDecode (§7.4.4.4, Table 8): PNG (10–15, each row
/// prefixed by its own filter type byte) and TIFF 2 (horizontal differencing). Pure byte work, so it
/// lives here; the filters themselves come from an adapter.
public enum PDFPredictor {
    /// The /DecodeParms values the predictor needs, with the spec's defaults.
    public struct Parameters: Sendable, Equatable {
        public var predictor: Int
        public var colors: Int
        public var bitsPerComponent: Int
        public var columns: Int

        public init(predictor: Int = 1, colors: Int = 1, bitsPerComponent: Int = 8, columns: Int = 1) {
            self.predictor = predictor
            self.colors = colors
            self.bitsPerComponent = bitsPerComponent
            self.columns = columns
        }

        /// Reads /Predictor, /Colors, /BitsPerComponent, /Columns from a /DecodeParms dictionary.
        public init(_ parameters: PDFDictionary?) {
            self.init(
                predictor: parameters?["Predictor"]?.integerValue ?? 1,
                colors: parameters?["Colors"]?.integerValue ?? 1,
                bitsPerComponent: parameters?["BitsPerComponent"]?.integerValue ?? 8,
                columns: parameters?["Columns"]?.integerValue ?? 1)
        }

        /// Bytes per row of samples (without a PNG row's filter byte).
        var rowBytes: Int { (colors * bitsPerComponent * columns + 7) / 8 }
        /// Bytes per whole pixel, at least 1: the distance PNG's Sub/Average/Paeth look back.
        var pixelBytes: Int { max(1, (colors * bitsPerComponent + 7) / 8) }
    }

    /// `data` with the predictor undone. Predictor 1 (none) returns `data` unchanged. A short last
    /// row is decoded as far as it goes, as readers do.
    public static func undo(_ data: [UInt8], _ parameters: Parameters) throws -> [UInt8] {
        let p = parameters
        if p.predictor == 1 { return data }
        guard (1...64).contains(p.colors), [1, 2, 4, 8, 16].contains(p.bitsPerComponent),
            (1..<(1 << 24)).contains(p.columns)
        else {
            throw PDFError.damaged(.decodingStream, offset: 0,
                "bad predictor parameters: /Colors \(p.colors) /BitsPerComponent \(p.bitsPerComponent) /Columns \(p.columns)")
        }
        switch p.predictor {
        case 2: return undoTIFF(data, p)
        case 10...15: return try undoPNG(data, p)
        default:
            throw PDFError.unsupportedFilter(.decodingStream, offset: 0, "/Predictor \(p.predictor)")
        }
    }

    static func undoPNG(_ data: [UInt8], _ p: Parameters) throws -> [UInt8] {
        let rowBytes = p.rowBytes
        let bpp = p.pixelBytes
        var out: [UInt8] = []
        out.reserveCapacity(data.count)
        var previous = [UInt8](repeating: 0, count: rowBytes)
        var row = [UInt8](repeating: 0, count: rowBytes)
        var position = 0
        while position < data.count {
            let type = data[position]
            let available = min(rowBytes, data.count - position - 1)
            position += 1
            for i in 0..<available {
                let raw = data[position + i]
                let left: UInt8 = i >= bpp ? row[i - bpp] : 0
                let up = previous[i]
                let upLeft: UInt8 = i >= bpp ? previous[i - bpp] : 0
                switch type {
                case 0: row[i] = raw
                case 1: row[i] = raw &+ left
                case 2: row[i] = raw &+ up
                case 3: row[i] = raw &+ UInt8((Int(left) + Int(up)) / 2)
                case 4: row[i] = raw &+ paeth(left, up, upLeft)
                default:
                    throw PDFError.damaged(.decodingStream, offset: 0, "PNG predictor: bad row filter type \(type)")
                }
            }
            out.append(contentsOf: row[..<available])
            position += available
            swap(&previous, &row)
        }
        return out
    }

    private static func paeth(_ a: UInt8, _ b: UInt8, _ c: UInt8) -> UInt8 {
        let p = Int(a) + Int(b) - Int(c)
        let pa = abs(p - Int(a))
        let pb = abs(p - Int(b))
        let pc = abs(p - Int(c))
        if pa <= pb && pa <= pc { return a }
        if pb <= pc { return b }
        return c
    }

    /// TIFF predictor 2: each sample is stored as the difference to the same component of the
    /// pixel to its left, modulo 2^bits, row by row.
    static func undoTIFF(_ data: [UInt8], _ p: Parameters) -> [UInt8] {
        var out = data
        let rowBytes = p.rowBytes
        guard rowBytes > 0 else { return out }
        let bits = p.bitsPerComponent
        var rowStart = 0
        while rowStart < out.count {
            let rowEnd = min(rowStart + rowBytes, out.count)
            switch bits {
            case 8:
                if rowEnd - rowStart > p.colors {
                    for i in (rowStart + p.colors)..<rowEnd { out[i] = out[i] &+ out[i - p.colors] }
                }
            case 16:
                let step = 2 * p.colors
                var i = rowStart + step
                while i + 1 < rowEnd {
                    let sum = (UInt16(out[i]) << 8 | UInt16(out[i + 1])) &+ (UInt16(out[i - step]) << 8 | UInt16(out[i - step + 1]))
                    out[i] = UInt8(sum >> 8)
                    out[i + 1] = UInt8(sum & 0xFF)
                    i += 2
                }
            default:  // 1, 2, 4 bits: samples packed big-endian within bytes
                let mask = (1 << bits) - 1
                let samples = min(p.colors * p.columns, (rowEnd - rowStart) * 8 / bits)
                func sample(_ index: Int) -> Int {
                    let bit = index * bits
                    let byte = out[rowStart + bit / 8]
                    return Int(byte) >> (8 - bits - bit % 8) & mask
                }
                func setSample(_ index: Int, _ value: Int) {
                    let bit = index * bits
                    let shift = 8 - bits - bit % 8
                    let at = rowStart + bit / 8
                    out[at] = UInt8((Int(out[at]) & ~(mask << shift) | (value & mask) << shift) & 0xFF)
                }
                if samples > p.colors {
                    for index in p.colors..<samples {
                        setSample(index, sample(index) + sample(index - p.colors))
                    }
                }
            }
            rowStart += rowBytes
        }
        return out
    }
}
