/// Byte-level helpers shared by the lexer and the writers. Output is built in a `[UInt8]` directly:
/// no `String` per token, no per-byte concatenation.
enum PDFBytes {
    static func isWhitespace(_ byte: UInt8) -> Bool {
        // NUL, HT, LF, FF, CR, SP (§7.2.2 Table 1)
        byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 || byte == 0x0C || byte == 0x00
    }

    static func isDelimiter(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "("), UInt8(ascii: ")"), UInt8(ascii: "<"), UInt8(ascii: ">"),
            UInt8(ascii: "["), UInt8(ascii: "]"), UInt8(ascii: "{"), UInt8(ascii: "}"),
            UInt8(ascii: "/"), UInt8(ascii: "%"):
            return true
        default:
            return false
        }
    }

    static func isRegular(_ byte: UInt8) -> Bool { !isWhitespace(byte) && !isDelimiter(byte) }

    static func isDigit(_ byte: UInt8) -> Bool { byte >= 0x30 && byte <= 0x39 }

    static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case 0x30...0x39: return byte - 0x30
        case 0x41...0x46: return byte - 0x41 + 10
        case 0x61...0x66: return byte - 0x61 + 10
        default: return nil
        }
    }

    static let hexDigits: [UInt8] = Array("0123456789ABCDEF".utf8)

    /// Index of the first occurrence of `needle` in `haystack[from...]`, or nil.
    static func find(_ needle: [UInt8], in haystack: [UInt8], from: Int = 0) -> Int? {
        guard !needle.isEmpty, haystack.count >= needle.count, from <= haystack.count - needle.count else {
            return nil
        }
        let first = needle[0]
        var index = max(0, from)
        let last = haystack.count - needle.count
        while index <= last {
            if haystack[index] == first {
                var matched = true
                for offset in 1..<needle.count where haystack[index + offset] != needle[offset] {
                    matched = false
                    break
                }
                if matched { return index }
            }
            index += 1
        }
        return nil
    }

    /// Index of the last occurrence of `needle` in `haystack`, or nil.
    static func findLast(_ needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard !needle.isEmpty, haystack.count >= needle.count else { return nil }
        var index = haystack.count - needle.count
        while index >= 0 {
            if haystack[index] == needle[0], Array(haystack[index..<index + needle.count]) == needle {
                return index
            }
            index -= 1
        }
        return nil
    }
}

extension Array where Element == UInt8 {
    mutating func appendASCII(_ text: StaticString) {
        text.withUTF8Buffer { append(contentsOf: $0) }
    }

    mutating func appendText(_ text: String) {
        append(contentsOf: text.utf8)
    }

    /// Decimal digits of `value`, no allocation of a String.
    mutating func appendDecimal(_ value: Int) {
        if value < 0 {
            append(UInt8(ascii: "-"))
            if value == Int.min {
                appendText(String(value).dropFirst().description)
                return
            }
            appendDecimal(-value)
            return
        }
        if value < 10 {
            append(0x30 + UInt8(value))
            return
        }
        // Digits come out least significant first: append them, then reverse that stretch in place.
        let start = count
        var rest = value
        while rest > 0 {
            append(0x30 + UInt8(rest % 10))
            rest /= 10
        }
        var low = start
        var high = count - 1
        while low < high {
            swapAt(low, high)
            low += 1
            high -= 1
        }
    }

    /// `value` in exactly `width` digits, zero-padded on the left (xref table fields).
    mutating func appendPaddedDecimal(_ value: Int, width: Int) {
        var divisor = 1
        for _ in 1..<width { divisor *= 10 }
        var rest = value
        for _ in 0..<width {
            append(0x30 + UInt8((rest / divisor) % 10))
            rest %= divisor
            divisor /= 10
        }
    }

    /// Big-endian, `width` bytes (xref stream fields).
    mutating func appendBigEndian(_ value: Int, width: Int) {
        for shift in stride(from: (width - 1) * 8, through: 0, by: -8) {
            append(UInt8(truncatingIfNeeded: value >> shift))
        }
    }
}
