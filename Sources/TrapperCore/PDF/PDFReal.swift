/// Writing reals the way PDF wants them (§7.3.3): plain decimal, no exponent, no trailing zeros,
/// the fewest digits that read back as the same Double. `1e-7` becomes `0.0000001`, `-3.0`
/// becomes `-3`, NaN and infinities (which PDF cannot hold) become `0`.
enum PDFReal {
    static func write(_ value: Double, to buffer: inout [UInt8]) {
        buffer.append(contentsOf: digits(value))
    }

    /// Decimals written at most: finer than any reader's precision (a millionth of a point), and
    /// strict readers (pypdf, Ghostscript) refuse the 300-digit forms a tiny value would give.
    static let decimals = 6

    static func digits(_ value: Double) -> [UInt8] {
        let scale = 1_000_000.0
        // Rounded to 6 decimals where that is exact enough to matter (beyond 2^53 / 10^6 a Double
        // has no decimals left to round).
        let value = value.magnitude < 9e9 ? (value * scale).rounded() / scale : value
        guard value.isFinite, value != 0 else { return [UInt8(ascii: "0")] }
        // Swift's description is the shortest round-trip form, sometimes with an exponent:
        // "0.5", "3.0", "1e-07", "1.5e+20". Split it into sign, digits and a decimal exponent.
        let text = Array(value.magnitude.description.utf8)
        var mantissa: [UInt8] = []
        var pointPosition: Int? = nil
        var exponent = 0
        var index = 0
        while index < text.count {
            let byte = text[index]
            if byte == UInt8(ascii: ".") {
                pointPosition = mantissa.count
            } else if byte == UInt8(ascii: "e") || byte == UInt8(ascii: "E") {
                exponent = Int(String(decoding: text[(index + 1)...], as: UTF8.self)) ?? 0
                break
            } else {
                mantissa.append(byte)
            }
            index += 1
        }
        // value = 0.mantissa * 10^(point + exponent)
        var point = (pointPosition ?? mantissa.count) + exponent
        while let first = mantissa.first, first == UInt8(ascii: "0"), mantissa.count > 1 {
            mantissa.removeFirst()
            point -= 1
        }
        while let last = mantissa.last, last == UInt8(ascii: "0"), mantissa.count > 1 {
            mantissa.removeLast()
        }
        var out: [UInt8] = value < 0 ? [UInt8(ascii: "-")] : []
        if point <= 0 {
            out.append(UInt8(ascii: "0"))
            out.append(UInt8(ascii: "."))
            out.append(contentsOf: repeatElement(UInt8(ascii: "0"), count: -point))
            out.append(contentsOf: mantissa)
        } else if point >= mantissa.count {
            out.append(contentsOf: mantissa)
            out.append(contentsOf: repeatElement(UInt8(ascii: "0"), count: point - mantissa.count))
        } else {
            out.append(contentsOf: mantissa[..<point])
            out.append(UInt8(ascii: "."))
            out.append(contentsOf: mantissa[point...])
        }
        return out
    }
}
