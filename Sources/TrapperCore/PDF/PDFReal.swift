/// Writing reals the way PDF wants them (§7.3.3): plain decimal, no exponent, no trailing zeros,
/// the fewest digits that read back as the same Double. `1e-7` becomes `0.0000001`, `-3.0`
/// becomes `-3`, NaN and infinities (which PDF cannot hold) become `0`.
enum PDFReal {
    static func write(_ value: Double, to buffer: inout [UInt8]) {
        if !writeFixedPoint(value, to: &buffer) { buffer.append(contentsOf: digits(value)) }
    }

    /// Decimals written at most: finer than any reader's precision (a millionth of a point), and
    /// strict readers (pypdf, Ghostscript) refuse the 300-digit forms a tiny value would give.
    static let decimals = 6

    static func digits(_ value: Double) -> [UInt8] {
        var fixed: [UInt8] = []
        if writeFixedPoint(value, to: &fixed) { return fixed }
        return shortestDigits(value)
    }

    /// Any finite value: the shortest round-trip text of it rounded to 6 decimals, without an exponent.
    static func shortestDigits(_ value: Double) -> [UInt8] {
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

    /// The same digits for the numbers a page holds (below 10^7 in magnitude), by integer
    /// arithmetic, appended to `buffer` at once; false (nothing appended) for larger ones. A
    /// million-point ink drawing writes millions of numbers, and the general way (the shortest
    /// round-trip text, taken apart) cost a third of such a save. Below 10^7 a Double is exact to far
    /// less than 10^-6, so the value rounded to 6 decimals, trailing zeros dropped, is the shortest
    /// text that reads back as that rounded value: what the general way writes.
    static func writeFixedPoint(_ value: Double, to buffer: inout [UInt8]) -> Bool {
        guard value.magnitude < 1e7 else { return false }
        var millionths = Int64((value.magnitude * 1_000_000).rounded())
        guard millionths != 0 else {
            buffer.append(UInt8(ascii: "0"))
            return true
        }
        var decimals = 6
        while decimals > 0, millionths % 10 == 0 {
            millionths /= 10
            decimals -= 1
        }
        // The power of ten of the first digit written; at least one digit before the point (0.5, not .5).
        var divisor: Int64 = 1, count = 1
        while divisor <= millionths / 10 || count <= decimals {
            divisor *= 10
            count += 1
        }
        if value < 0 { buffer.append(UInt8(ascii: "-")) }
        // Plain loops, no stride or lookup table: this runs for every number of a drawing, in debug builds too.
        var position = count - 1
        while position >= 0 {
            if position == decimals - 1 { buffer.append(UInt8(ascii: ".")) }
            buffer.append(UInt8(ascii: "0") + UInt8((millionths / divisor) % 10))
            divisor /= 10
            position -= 1
        }
        return true
    }
}
