/// The byte cursor under the TOML parser: where it is (line, column), whitespace, comments, newlines,
/// UTF-8 validation, and how to name a character in an error message.
///
/// The parser works on the raw UTF-8 bytes. The whole input is validated as UTF-8 once, up front, so
/// the rest of the parser can copy byte runs into strings without looking at them again. Columns count
/// Unicode scalars and are computed lazily (only for the locations the result or an error needs),
/// counting forward from the last column asked for on the same line, so a long line stays linear.

enum TOMLByte {
    static let tab: UInt8 = 0x09
    static let lf: UInt8 = 0x0A
    static let cr: UInt8 = 0x0D
    static let space: UInt8 = 0x20
    static let quote: UInt8 = 0x22       // "
    static let hash: UInt8 = 0x23        // #
    static let apostrophe: UInt8 = 0x27  // '
    static let plus: UInt8 = 0x2B
    static let comma: UInt8 = 0x2C
    static let minus: UInt8 = 0x2D
    static let dot: UInt8 = 0x2E
    static let colon: UInt8 = 0x3A
    static let equals: UInt8 = 0x3D
    static let openBracket: UInt8 = 0x5B
    static let backslash: UInt8 = 0x5C
    static let closeBracket: UInt8 = 0x5D
    static let underscore: UInt8 = 0x5F
    static let openBrace: UInt8 = 0x7B
    static let closeBrace: UInt8 = 0x7D
    static let del: UInt8 = 0x7F

    @inline(__always) static func isDigit(_ c: UInt8) -> Bool { c &- 0x30 < 10 }
    @inline(__always) static func isLetter(_ c: UInt8) -> Bool { (c | 0x20) &- 0x61 < 26 }
    @inline(__always) static func isHexDigit(_ c: UInt8) -> Bool { isDigit(c) || (c | 0x20) &- 0x61 < 6 }
    /// A-Z a-z 0-9 _ -
    @inline(__always) static func isBareKey(_ c: UInt8) -> Bool {
        isLetter(c) || isDigit(c) || c == underscore || c == minus
    }
    /// Characters that can continue a number, date, time or keyword token.
    @inline(__always) static func isWord(_ c: UInt8) -> Bool {
        isLetter(c) || isDigit(c) || c == underscore || c == minus || c == plus || c == dot || c == colon
    }
    /// Control characters that TOML forbids inside comments and strings (everything but tab).
    @inline(__always) static func isForbiddenControl(_ c: UInt8) -> Bool {
        (c < 0x20 && c != tab) || c == del
    }
    @inline(__always) static func hexValue(_ c: UInt8) -> UInt32 {
        isDigit(c) ? UInt32(c - 0x30) : UInt32((c | 0x20) - 0x61 + 10)
    }
}

/// One part of a (possibly dotted) key, with where it was written.
struct TOMLKeyPart {
    var name: String
    var location: SourceLocation
}

struct TOMLParser {
    let bytes: [UInt8]
    let limits: TOML.Limits
    /// Byte offset of the next unread byte.
    var pos = 0
    /// The line and column of `pos`.
    var position: SourcePosition

    init(bytes: [UInt8], limits: TOML.Limits) {
        self.bytes = bytes
        self.limits = limits
        self.position = SourcePosition(bytes)
    }

    // MARK: Reading

    @inline(__always) var atEnd: Bool { pos >= bytes.count }

    /// The byte at `pos + offset`, or 0 past the end (callers that care about a real NUL check `atEnd`).
    @inline(__always) func peek(_ offset: Int = 0) -> UInt8 {
        let i = pos + offset
        return i < bytes.count ? bytes[i] : 0
    }

    // MARK: Locations

    /// The location of byte `index` (on the current line, or counted from the start).
    mutating func location(at index: Int) -> SourceLocation { position.location(of: index, in: bytes) }

    mutating func location() -> SourceLocation { location(at: pos) }

    /// An error at the current position.
    mutating func error(_ message: String) -> TOMLError {
        TOMLError(message, at: location())
    }

    /// An error at byte `index` of the current line.
    mutating func error(_ message: String, atIndex index: Int) -> TOMLError {
        TOMLError(message, at: location(at: index))
    }

    /// The location of any byte, counted from the start; for errors found before parsing begins.
    func slowLocation(of index: Int) -> SourceLocation { SourcePosition.location(of: index, countingIn: bytes) }

    var hasBOM: Bool {
        bytes.count >= 3 && bytes[0] == 0xEF && bytes[1] == 0xBB && bytes[2] == 0xBF
    }

    // MARK: UTF-8

    /// Rejects anything that is not well-formed UTF-8 (overlong forms, surrogates, > U+10FFFF).
    func validateUTF8() throws(TOMLError) {
        let n = bytes.count
        var i = 0
        while i < n {
            let b = bytes[i]
            if b < 0x80 { i += 1; continue }
            var length = 0
            var secondLow: UInt8 = 0x80, secondHigh: UInt8 = 0xBF
            switch b {
            case 0xC2...0xDF: length = 2
            case 0xE0: length = 3; secondLow = 0xA0
            case 0xE1...0xEC, 0xEE...0xEF: length = 3
            case 0xED: length = 3; secondHigh = 0x9F
            case 0xF0: length = 4; secondLow = 0x90
            case 0xF1...0xF3: length = 4
            case 0xF4: length = 4; secondHigh = 0x8F
            default: break
            }
            var ok = length > 0 && i + length <= n
            if ok {
                let second = bytes[i + 1]
                ok = second >= secondLow && second <= secondHigh
                var k = 2
                while ok && k < length {
                    ok = bytes[i + k] & 0xC0 == 0x80
                    k += 1
                }
            }
            if !ok {
                throw TOMLError(
                    "invalid UTF-8 byte 0x\(tomlHex(b, digits: 2)); TOML files must be UTF-8",
                    at: slowLocation(of: i))
            }
            i += length
        }
    }

    // MARK: Whitespace, comments, newlines

    /// Skips spaces and tabs.
    @inline(__always) mutating func skipWhitespace() {
        while pos < bytes.count {
            let c = bytes[pos]
            guard c == TOMLByte.space || c == TOMLByte.tab else { return }
            pos += 1
        }
    }

    @inline(__always) var atNewline: Bool {
        let c = peek()
        return c == TOMLByte.lf || c == TOMLByte.cr
    }

    /// Consumes `\n` or `\r\n` at `pos`; a carriage return alone is an error.
    mutating func consumeNewline() throws(TOMLError) {
        if peek() == TOMLByte.cr {
            guard peek(1) == TOMLByte.lf else {
                throw error("carriage return must be followed by a line feed")
            }
            pos += 1
        }
        pos += 1
        position.newLine(startingAt: pos)
    }

    /// Skips a `#` comment up to (not including) the end of the line.
    mutating func skipComment() throws(TOMLError) {
        pos += 1
        while pos < bytes.count {
            let c = bytes[pos]
            if c == TOMLByte.lf || c == TOMLByte.cr { return }
            if TOMLByte.isForbiddenControl(c) {
                throw error("\(describe(at: pos)) is not allowed in a comment")
            }
            pos += 1
        }
    }

    /// Skips whitespace, comments and newlines (inside arrays).
    mutating func skipWhitespaceCommentsAndNewlines() throws(TOMLError) {
        while pos < bytes.count {
            switch bytes[pos] {
            case TOMLByte.space, TOMLByte.tab: pos += 1
            case TOMLByte.lf, TOMLByte.cr: try consumeNewline()
            case TOMLByte.hash: try skipComment()
            default: return
            }
        }
    }

    // MARK: Describing characters

    /// How a person would name the character at `index`: `'x'`, `end of line`, `control character U+0001`.
    func describe(at index: Int) -> String {
        guard index < bytes.count else { return "end of file" }
        let b = bytes[index]
        switch b {
        case TOMLByte.lf: return "end of line"
        case TOMLByte.cr: return index + 1 < bytes.count && bytes[index + 1] == TOMLByte.lf ? "end of line" : "carriage return"
        case TOMLByte.tab: return "tab"
        case TOMLByte.apostrophe: return "\"'\""
        default: break
        }
        if b < 0x20 || b == TOMLByte.del { return "control character U+\(tomlHex(b, digits: 4))" }
        if b < 0x80 { return "'\(Character(Unicode.Scalar(b)))'" }
        let scalar = decodeScalar(at: index)
        if scalar.properties.isWhitespace || scalar.properties.generalCategory == .format
            || scalar.properties.generalCategory == .control {
            return "U+\(tomlHex(scalar.value, digits: 4))"
        }
        return "'\(Character(scalar))' (U+\(tomlHex(scalar.value, digits: 4)))"
    }

    /// Decodes the (already validated) UTF-8 scalar starting at `index`.
    func decodeScalar(at index: Int) -> Unicode.Scalar {
        let b = bytes[index]
        var value: UInt32
        var length: Int
        switch b {
        case 0..<0x80: return Unicode.Scalar(b)
        case 0xC0..<0xE0: value = UInt32(b & 0x1F); length = 2
        case 0xE0..<0xF0: value = UInt32(b & 0x0F); length = 3
        default: value = UInt32(b & 0x07); length = 4
        }
        for k in 1..<length where index + k < bytes.count {
            value = value << 6 | UInt32(bytes[index + k] & 0x3F)
        }
        return Unicode.Scalar(value) ?? "\u{FFFD}"
    }

    /// The text of bytes `range` (already validated UTF-8).
    func text(_ range: Range<Int>) -> String {
        String(decoding: bytes[range], as: UTF8.self)
    }
}

func tomlHex<T: BinaryInteger>(_ value: T, digits: Int) -> String {
    let s = String(value, radix: 16, uppercase: true)
    return s.count >= digits ? s : String(repeating: "0", count: digits - s.count) + s
}

/// A key as the user wrote it, for messages: bare parts as they are, others in single quotes.
func tomlDisplayKey<S: Sequence>(_ parts: S) -> String where S.Element == TOMLKeyPart {
    var out = ""
    for part in parts {
        if !out.isEmpty { out += "." }
        let bare = !part.name.isEmpty && part.name.utf8.allSatisfy(TOMLByte.isBareKey)
        if bare {
            out += part.name
        } else {
            // 'literal' unless the key holds an apostrophe, then "basic" with \" for quotes.
            let useDouble = part.name.unicodeScalars.contains("'")
            var escaped = ""
            for scalar in part.name.unicodeScalars {
                if scalar.value < 0x20 || scalar.value == 0x7F {
                    escaped += "\\u" + tomlHex(scalar.value, digits: 4)
                } else if useDouble && (scalar == "\"" || scalar == "\\") {
                    escaped += "\\"
                    escaped.unicodeScalars.append(scalar)
                } else {
                    escaped.unicodeScalars.append(scalar)
                }
            }
            out += useDouble ? "\"" + escaped + "\"" : "'" + escaped + "'"
        }
    }
    return out
}
