/// Text set in Helvetica, one of the 14 fonts every PDF reader has (§9.6.2.2), so a text box needs
/// no embedded font: WinAnsiEncoding for the bytes, the font's widths for wrapping.
enum HelveticaText {
    /// Widths in thousandths of the size for WinAnsi codes 32–255 (0: no glyph), from the metrics
    /// of Helvetica (as URW's metric-compatible Nimbus Sans AFM gives them).
    static let widths: [Int] = [
        278, 278, 355, 556, 556, 889, 667, 191, 333, 333, 389, 584, 278, 333, 278, 278,
        556, 556, 556, 556, 556, 556, 556, 556, 556, 556, 278, 278, 584, 584, 584, 556,
        1015, 667, 667, 722, 722, 667, 611, 778, 722, 278, 500, 667, 556, 833, 722, 778,
        667, 778, 722, 667, 611, 722, 667, 944, 667, 667, 611, 278, 278, 278, 469, 556,
        333, 556, 556, 500, 556, 556, 278, 556, 556, 222, 222, 500, 222, 833, 556, 556,
        556, 556, 333, 500, 278, 556, 500, 722, 500, 500, 500, 334, 260, 334, 584, 0,
        556, 0, 222, 556, 333, 1000, 556, 556, 333, 1000, 667, 333, 1000, 0, 611, 0,
        0, 222, 222, 333, 333, 350, 556, 1000, 333, 1000, 500, 333, 944, 0, 500, 667,
        278, 333, 556, 556, 556, 556, 260, 556, 333, 737, 370, 556, 584, 333, 737, 333,
        400, 584, 333, 333, 333, 556, 537, 278, 333, 333, 365, 556, 834, 834, 834, 611,
        667, 667, 667, 667, 667, 667, 1000, 722, 667, 667, 667, 667, 278, 278, 278, 278,
        722, 722, 778, 778, 778, 778, 778, 584, 778, 722, 722, 722, 722, 667, 667, 611,
        556, 556, 556, 556, 556, 556, 889, 500, 556, 556, 556, 556, 278, 278, 278, 278,
        556, 556, 556, 556, 556, 556, 556, 584, 611, 556, 556, 556, 556, 500, 556, 500,
    ]

    /// The characters of codes 128–159, where WinAnsi differs from Latin-1 (nil: no character).
    static let windows1252: [UInt32?] = [
        0x20AC, nil, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021, 0x02C6, 0x2030, 0x0160, 0x2039, 0x0152, nil, 0x017D, nil,
        nil, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013, 0x2014, 0x02DC, 0x2122, 0x0161, 0x203A, 0x0153, nil, 0x017E, 0x0178,
    ]

    /// The font dictionary the appearance names /Helv.
    static let font: PDFDictionary = [
        .type: .name("Font"), "Subtype": .name("Type1"), "BaseFont": .name("Helvetica"),
        "Encoding": .name("WinAnsiEncoding"),
    ]

    /// WinAnsi bytes for the text; a character the encoding lacks becomes '?'.
    static func encode(_ text: String) -> [UInt8] {
        text.unicodeScalars.map { scalar in
            let value = scalar.value
            if (0x20...0x7E).contains(value) || (0xA0...0xFF).contains(value) { return UInt8(value) }
            if let index = windows1252.firstIndex(where: { $0 == value }) { return UInt8(128 + index) }
            return UInt8(ascii: "?")
        }
    }

    /// The width of WinAnsi bytes at `size` points.
    static func width(_ bytes: some Sequence<UInt8>, size: Double) -> Double {
        Double(bytes.reduce(0) { $0 + (Int($1) >= 32 ? widths[Int($1) - 32] : 0) }) * size / 1000
    }

    /// The text broken into lines no wider than `width`: at spaces where it can, inside a word
    /// only when the word alone is wider; a newline in the text always breaks.
    static func wrap(_ text: String, size: Double, width: Double) -> [[UInt8]] {
        var lines: [[UInt8]] = []
        for paragraph in text.split(separator: "\n", omittingEmptySubsequences: false) {
            var line: [UInt8] = []
            for word in encode(String(paragraph)).split(separator: 0x20, omittingEmptySubsequences: false) {
                let candidate = line.isEmpty ? Array(word) : line + [0x20] + word
                if self.width(candidate, size: size) <= width || line.isEmpty && word.isEmpty {
                    line = candidate
                    continue
                }
                if !line.isEmpty { lines.append(line) }
                line = []
                // A word wider than the line goes on in pieces.
                for byte in word {
                    if !line.isEmpty, self.width(line + [byte], size: size) > width {
                        lines.append(line)
                        line = []
                    }
                    line.append(byte)
                }
            }
            lines.append(line)
        }
        return lines
    }
}
