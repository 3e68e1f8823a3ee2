/// A JSON (RFC 8259) reader that builds the same tree as the TOML parser: objects become tables,
/// arrays arrays, numbers integers or floats as written (`42` is an integer, `42.0`, `1e3` and `-0.5`
/// are floats), with the line:column of every key and value. So one reader of typed values serves
/// edit scripts written in either format, and a JSON mistake is reported as precisely as a TOML one.
///
///     let table = try JSONReader.parse(bytes)     // throws TOMLError with line:column and a message
///
/// Stricter than many JSON readers, because a script that means something else than it seems to is
/// worse than a refused one: `null` (leave the key out instead), a key written twice, trailing commas,
/// and any top level but an object are errors. Nesting is limited, so deep input is an error, not a
/// crash; the whole input is checked to be UTF-8 (bytes above 0x7F may only appear inside strings).
public enum JSONReader {
    /// The TOML reader's limits: nesting depth (the top-level object counting as 1) and bytes.
    public typealias Limits = TOML.Limits

    public static func parse(_ bytes: [UInt8], limits: Limits = .init()) throws(TOMLError) -> TOMLTable {
        guard bytes.count <= limits.maxBytes else {
            throw TOMLError("the document is \(bytes.count) bytes, more than the limit of \(limits.maxBytes)", at: .start)
        }
        var parser = JSONParser(bytes: bytes, limits: limits)
        return try parser.parseDocument()
    }
}

/// The cursor and the grammar. Lines only end in whitespace between tokens (a JSON string cannot hold
/// a raw line feed), so `skipWhitespace` is the one place that counts them.
struct JSONParser {
    let bytes: [UInt8]
    let limits: JSONReader.Limits
    var pos = 0
    /// The line and column of `pos`, as the TOML parser keeps them.
    var position: SourcePosition

    init(bytes: [UInt8], limits: JSONReader.Limits) {
        self.bytes = bytes
        self.limits = limits
        self.position = SourcePosition(bytes)
    }

    mutating func parseDocument() throws(TOMLError) -> TOMLTable {
        if bytes.starts(with: SourcePosition.byteOrderMark) { pos = 3 }
        skipWhitespace()
        guard peek() == Byte.openBrace else {
            throw error("the document must be a JSON object ({ … }), found \(describe(at: pos))")
        }
        let top = try parseObject(depth: 1)
        skipWhitespace()
        guard pos >= bytes.count else {
            throw error("expected the end of the document after the top-level object, found \(describe(at: pos))")
        }
        return top
    }

    // MARK: Values

    mutating func parseValue(depth: Int) throws(TOMLError) -> TOMLNode {
        let start = location()
        let value: TOMLValue
        switch peek() {
        case Byte.openBrace: value = .table(try parseObject(depth: depth))
        case Byte.openBracket: value = try parseArray(depth: depth)
        case Byte.quote: value = .string(try parseString())
        case Byte.minus, 0x30...0x39: value = try parseNumber()
        case 0x41...0x5A, 0x61...0x7A: value = try parseWord()
        case Byte.apostrophe: throw error("JSON strings take double quotes (\"…\"), not single ones")
        default: throw error("expected a value, found \(describe(at: pos))")
        }
        return TOMLNode(value, at: start)
    }

    /// `true`, `false`, and the words JSON does not have.
    private mutating func parseWord() throws(TOMLError) -> TOMLValue {
        let start = pos
        while pos < bytes.count, Byte.isWordCharacter(bytes[pos]) { pos += 1 }
        let word = String(decoding: bytes[start..<pos], as: UTF8.self)
        switch word {
        case "true": return .boolean(true)
        case "false": return .boolean(false)
        case "null": throw error("null is not allowed; leave the key out instead", atIndex: start)
        default: throw error("invalid value \"\(word)\" (strings need double quotes)", atIndex: start)
        }
    }

    private mutating func parseObject(depth: Int) throws(TOMLError) -> TOMLTable {
        let open = location()
        try checkDepth(depth, at: open)
        pos += 1
        var table = TOMLTable(location: open)
        var firstPlace: [String: SourceLocation] = [:]
        skipWhitespace()
        if peek() == Byte.closeBrace { pos += 1; return table }
        while true {
            guard peek() == Byte.quote else {
                try expectNotEnd(open, "{")
                throw error("expected a key in double quotes, found \(describe(at: pos))")
            }
            let keyLocation = location()
            let key = try parseString()
            if let first = firstPlace[key] {
                throw TOMLError("key \"\(key)\" is already defined at \(first)", at: keyLocation)
            }
            firstPlace[key] = keyLocation
            skipWhitespace()
            guard peek() == Byte.colon else {
                throw error("expected ':' after the key \"\(key)\", found \(describe(at: pos))")
            }
            pos += 1
            skipWhitespace()
            table.entries.append(TOMLEntry(key: key, keyLocation: keyLocation, node: try parseValue(depth: depth + 1)))
            skipWhitespace()
            if try afterItem(closing: Byte.closeBrace, open: open, "{", in: "the object") { return table }
        }
    }

    private mutating func parseArray(depth: Int) throws(TOMLError) -> TOMLValue {
        let open = location()
        try checkDepth(depth, at: open)
        pos += 1
        var items: [TOMLNode] = []
        skipWhitespace()
        if peek() == Byte.closeBracket { pos += 1; return .array(items) }
        while true {
            try expectNotEnd(open, "[")
            items.append(try parseValue(depth: depth + 1))
            skipWhitespace()
            if try afterItem(closing: Byte.closeBracket, open: open, "[", in: "the array") { return .array(items) }
        }
    }

    /// After a member or element: true at the closing bracket (consumed); after a comma (consumed),
    /// false with `pos` at the next item. A comma right before the closing bracket is refused.
    private mutating func afterItem(closing: UInt8, open: SourceLocation, _ opener: String,
                                    in container: String) throws(TOMLError) -> Bool {
        switch peek() {
        case closing where pos < bytes.count:
            pos += 1
            return true
        case Byte.comma:
            let comma = pos
            pos += 1
            skipWhitespace()
            if peek() == closing, pos < bytes.count {
                throw error("a trailing comma is not allowed in JSON", atIndex: comma)
            }
            return false
        default:
            try expectNotEnd(open, opener)
            let close = closing == Byte.closeBrace ? "}" : "]"
            throw error("expected ',' or '\(close)' after a value in \(container), found \(describe(at: pos))")
        }
    }

    private mutating func expectNotEnd(_ open: SourceLocation, _ opener: String) throws(TOMLError) {
        if pos >= bytes.count { throw error("the '\(opener)' at \(open) is never closed") }
    }

    private func checkDepth(_ depth: Int, at location: SourceLocation) throws(TOMLError) {
        if depth > limits.maxDepth {
            throw TOMLError("nesting is deeper than the limit of \(limits.maxDepth) objects and arrays", at: location)
        }
    }

    // MARK: Numbers

    /// `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`: an integer when it has neither a
    /// fraction nor an exponent.
    private mutating func parseNumber() throws(TOMLError) -> TOMLValue {
        let start = pos
        var end = pos
        while end < bytes.count, Byte.isNumberCharacter(bytes[end]) { end += 1 }
        let token = String(decoding: bytes[start..<end], as: UTF8.self)
        func fail(_ message: String) -> TOMLError { error(message, atIndex: start) }

        if peek() == Byte.minus { pos += 1 }
        guard Byte.isDigit(peek()) else { throw fail("invalid number \"\(token)\": a '-' must be followed by digits") }
        if peek() == 0x30, Byte.isDigit(peek(1)) { throw fail("leading zeros are not allowed in \"\(token)\"") }
        skipDigits()
        var isFloat = false
        if peek() == Byte.dot {
            isFloat = true
            pos += 1
            guard Byte.isDigit(peek()) else { throw fail("a number needs digits after the '.' in \"\(token)\"") }
            skipDigits()
        }
        if peek() | 0x20 == 0x65 {                               // e or E
            isFloat = true
            pos += 1
            if peek() == Byte.plus || peek() == Byte.minus { pos += 1 }
            guard Byte.isDigit(peek()) else { throw fail("a number needs digits in the exponent of \"\(token)\"") }
            skipDigits()
        }
        guard pos == end else { throw fail("invalid number \"\(token)\"") }
        let text = String(decoding: bytes[start..<pos], as: UTF8.self)
        if isFloat {
            guard let number = Double(text), number.isFinite else { throw fail("the number \(text) is out of range") }
            return .float(number)
        }
        guard let number = Int64(text) else { throw fail("the integer \(text) is out of range") }
        return .integer(number)
    }

    private mutating func skipDigits() {
        while pos < bytes.count, Byte.isDigit(bytes[pos]) { pos += 1 }
    }

    // MARK: Strings

    /// `"…"` with `pos` on the opening quote; leaves it after the closing one.
    mutating func parseString() throws(TOMLError) -> String {
        let open = pos
        pos += 1
        var out: [UInt8] = []
        var runStart = pos
        while true {
            guard pos < bytes.count else { throw error("unterminated string", atIndex: open) }
            let c = bytes[pos]
            switch c {
            case Byte.quote:
                out.append(contentsOf: bytes[runStart..<pos])
                pos += 1
                return String(decoding: out, as: UTF8.self)
            case Byte.backslash:
                out.append(contentsOf: bytes[runStart..<pos])
                try parseEscape(into: &out)
                runStart = pos
            case Byte.lf, Byte.cr:
                throw error("unterminated string (a JSON string ends on the line it starts; write \\n for a line break)",
                            atIndex: open)
            case 0..<0x20:
                throw error("\(describe(at: pos)) is not allowed in a string; use an escape")
            case 0..<0x80:
                pos += 1
            default:
                guard let length = Byte.utf8Length(bytes, at: pos) else {
                    throw error("invalid UTF-8 byte 0x\(Byte.hex(UInt32(c), digits: 2)); JSON must be UTF-8")
                }
                pos += length
            }
        }
    }

    /// `\"` `\\` `\/` `\b` `\f` `\n` `\r` `\t` and `\uXXXX`, a pair of them for a character beyond
    /// U+FFFF (a high surrogate and then a low one).
    private mutating func parseEscape(into out: inout [UInt8]) throws(TOMLError) {
        let start = pos
        pos += 1
        let simple: UInt8?
        switch peek() {
        case Byte.quote: simple = Byte.quote
        case Byte.backslash: simple = Byte.backslash
        case 0x2F: simple = 0x2F                 // /
        case 0x62: simple = 0x08                 // b
        case 0x66: simple = 0x0C                 // f
        case 0x6E: simple = Byte.lf              // n
        case 0x72: simple = Byte.cr              // r
        case 0x74: simple = 0x09                 // t
        case 0x75: simple = nil                  // u
        default:
            let escapes = #"\" \\ \/ \b \f \n \r \t and \uXXXX"#
            throw error("'\\' followed by \(describe(at: pos)) is not an escape; JSON has \(escapes)", atIndex: start)
        }
        if let simple {
            out.append(simple)
            pos += 1
            return
        }
        pos += 1
        var scalar = try hex4(escapeAt: start)
        if (0xDC00...0xDFFF).contains(scalar) {
            let message = "\\u\(Byte.hex(scalar, digits: 4)) is the second half of a surrogate pair, with no first half before it"
            throw error(message, atIndex: start)
        }
        if (0xD800...0xDBFF).contains(scalar) {
            let unpaired = "\\u\(Byte.hex(scalar, digits: 4)) is the first half of a surrogate pair; a \\uDC00-\\uDFFF must follow"
            guard peek() == Byte.backslash, peek(1) == 0x75 else { throw error(unpaired, atIndex: start) }
            let lowStart = pos
            pos += 2
            let low = try hex4(escapeAt: lowStart)
            guard (0xDC00...0xDFFF).contains(low) else { throw error(unpaired, atIndex: start) }
            scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
        }
        out.append(contentsOf: Array(String(Character(Unicode.Scalar(scalar)!)).utf8))
    }

    private mutating func hex4(escapeAt start: Int) throws(TOMLError) -> UInt32 {
        var value: UInt32 = 0
        for _ in 0..<4 {
            let c = peek()
            guard pos < bytes.count, Byte.isHexDigit(c) else {
                throw error("\\u needs four hexadecimal digits", atIndex: start)
            }
            value = value << 4 | Byte.hexValue(c)
            pos += 1
        }
        return value
    }

    // MARK: Cursor and locations

    @inline(__always) func peek(_ offset: Int = 0) -> UInt8 {
        let i = pos + offset
        return i < bytes.count ? bytes[i] : 0
    }

    /// Space, tab, carriage return, line feed: JSON's whole idea of whitespace.
    mutating func skipWhitespace() {
        while pos < bytes.count {
            switch bytes[pos] {
            case Byte.space, 0x09, Byte.cr: pos += 1
            case Byte.lf:
                pos += 1
                position.newLine(startingAt: pos)
            default: return
            }
        }
    }

    mutating func location(at index: Int) -> SourceLocation { position.location(of: index, in: bytes) }

    mutating func location() -> SourceLocation { location(at: pos) }

    mutating func error(_ message: String) -> TOMLError { TOMLError(message, at: location()) }

    mutating func error(_ message: String, atIndex index: Int) -> TOMLError { TOMLError(message, at: location(at: index)) }

    /// How a person would name the character at `index`: `'x'`, `end of file`, `control character U+0001`.
    func describe(at index: Int) -> String {
        guard index < bytes.count else { return "end of file" }
        switch bytes[index] {
        case Byte.lf: return "end of line"
        case Byte.cr: return "carriage return"
        case 0x09: return "tab"
        case let c where c < 0x20 || c == 0x7F: return "control character U+\(Byte.hex(UInt32(c), digits: 4))"
        case let c where c >= 0x80 && Byte.utf8Length(bytes, at: index) == nil:
            return "invalid UTF-8 byte 0x\(Byte.hex(UInt32(c), digits: 2))"
        default: break
        }
        let scalar = Byte.scalar(bytes, at: index)
        if scalar.value < 0x80 { return "'\(Character(scalar))'" }
        if scalar.properties.isWhitespace || [.format, .control].contains(scalar.properties.generalCategory) {
            return "U+\(Byte.hex(scalar.value, digits: 4))"
        }
        return "'\(Character(scalar))' (U+\(Byte.hex(scalar.value, digits: 4)))"
    }
}

/// Bytes JSON's grammar names, and UTF-8 checks for what may stand inside strings.
private enum Byte {
    static let lf: UInt8 = 0x0A, cr: UInt8 = 0x0D, space: UInt8 = 0x20
    static let quote: UInt8 = 0x22, apostrophe: UInt8 = 0x27, plus: UInt8 = 0x2B, comma: UInt8 = 0x2C
    static let minus: UInt8 = 0x2D, dot: UInt8 = 0x2E, colon: UInt8 = 0x3A, backslash: UInt8 = 0x5C
    static let openBracket: UInt8 = 0x5B, closeBracket: UInt8 = 0x5D, openBrace: UInt8 = 0x7B, closeBrace: UInt8 = 0x7D

    static func isDigit(_ c: UInt8) -> Bool { c &- 0x30 < 10 }
    static func isHexDigit(_ c: UInt8) -> Bool { isDigit(c) || (c | 0x20) &- 0x61 < 6 }
    static func hexValue(_ c: UInt8) -> UInt32 { isDigit(c) ? UInt32(c - 0x30) : UInt32((c | 0x20) - 0x61 + 10) }
    /// What a mistyped word or number runs on with, so a message can quote all of it.
    static func isWordCharacter(_ c: UInt8) -> Bool { (c | 0x20) &- 0x61 < 26 || isDigit(c) || c == 0x5F }
    static func isNumberCharacter(_ c: UInt8) -> Bool { isWordCharacter(c) || c == minus || c == plus || c == dot }

    static func hex(_ value: UInt32, digits: Int) -> String {
        let text = String(value, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, digits - text.count)) + text
    }

    /// The length of the well-formed UTF-8 sequence at `index` (no overlong forms, no surrogates,
    /// nothing past U+10FFFF), or nil.
    static func utf8Length(_ bytes: [UInt8], at index: Int) -> Int? {
        let lead = bytes[index]
        var (length, low, high): (Int, UInt8, UInt8) = (0, 0x80, 0xBF)
        switch lead {
        case 0..<0x80: return 1
        case 0xC2...0xDF: length = 2
        case 0xE0: (length, low) = (3, 0xA0)
        case 0xE1...0xEC, 0xEE...0xEF: length = 3
        case 0xED: (length, high) = (3, 0x9F)
        case 0xF0: (length, low) = (4, 0x90)
        case 0xF1...0xF3: length = 4
        case 0xF4: (length, high) = (4, 0x8F)
        default: return nil
        }
        guard index + length <= bytes.count, (low...high).contains(bytes[index + 1]) else { return nil }
        for k in 2..<length where bytes[index + k] & 0xC0 != 0x80 { return nil }
        return length
    }

    /// The scalar at `index`, which `utf8Length` has accepted.
    static func scalar(_ bytes: [UInt8], at index: Int) -> Unicode.Scalar {
        let length = utf8Length(bytes, at: index) ?? 1
        guard length > 1 else { return Unicode.Scalar(bytes[index]) }
        var value = UInt32(bytes[index]) & (0xFF >> (length + 1))
        for k in 1..<length { value = value << 6 | UInt32(bytes[index + k] & 0x3F) }
        return Unicode.Scalar(value) ?? "\u{FFFD}"
    }
}
