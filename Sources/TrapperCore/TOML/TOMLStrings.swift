/// TOML's four string forms: basic "…", literal '…', multi-line basic """…""" and multi-line
/// literal '''…'''. Each function starts with `pos` on the opening quote and leaves it after the
/// closing one.

extension TOMLParser {
    /// A string value or quoted key, dispatching on the quote and on whether it is tripled.
    mutating func parseString(allowMultiline: Bool) throws(TOMLError) -> String {
        let quote = peek()
        let tripled = peek(1) == quote && peek(2) == quote
        if tripled {
            guard allowMultiline else {
                throw error("a multi-line string cannot be used as a key")
            }
            return quote == TOMLByte.quote ? try parseMultilineBasicString() : try parseMultilineLiteralString()
        }
        return quote == TOMLByte.quote ? try parseBasicString() : try parseLiteralString()
    }

    /// `"…"`: escapes, no newlines, no control characters but tab.
    mutating func parseBasicString() throws(TOMLError) -> String {
        let openIndex = pos
        pos += 1
        var out: [UInt8] = []
        var runStart = pos
        while true {
            guard pos < bytes.count else {
                throw error("unterminated string", atIndex: openIndex)
            }
            let c = bytes[pos]
            if c == TOMLByte.quote {
                if out.isEmpty { let s = text(runStart..<pos); pos += 1; return s }
                out.append(contentsOf: bytes[runStart..<pos])
                pos += 1
                return String(decoding: out, as: UTF8.self)
            } else if c == TOMLByte.backslash {
                out.append(contentsOf: bytes[runStart..<pos])
                try parseEscape(into: &out)
                runStart = pos
            } else if c == TOMLByte.lf || c == TOMLByte.cr {
                throw error("unterminated string (a \"…\" string must end on the line it starts)", atIndex: openIndex)
            } else if TOMLByte.isForbiddenControl(c) {
                throw error("\(describe(at: pos)) is not allowed in a string; use an escape")
            } else {
                pos += 1
            }
        }
    }

    /// `'…'`: taken as written, no newlines, no control characters but tab.
    mutating func parseLiteralString() throws(TOMLError) -> String {
        let openIndex = pos
        pos += 1
        let start = pos
        while true {
            guard pos < bytes.count else {
                throw error("unterminated string", atIndex: openIndex)
            }
            let c = bytes[pos]
            if c == TOMLByte.apostrophe {
                let s = text(start..<pos)
                pos += 1
                return s
            } else if c == TOMLByte.lf || c == TOMLByte.cr {
                throw error("unterminated string (a '…' string must end on the line it starts)", atIndex: openIndex)
            } else if TOMLByte.isForbiddenControl(c) {
                throw error("\(describe(at: pos)) is not allowed in a string")
            }
            pos += 1
        }
    }

    /// `"""…"""`: escapes, newlines (CRLF is kept as LF), a newline right after the opening quotes is
    /// dropped, and a backslash at the end of a line swallows the line break and the whitespace after it.
    mutating func parseMultilineBasicString() throws(TOMLError) -> String {
        let openLocation = location()
        pos += 3
        if atNewline { try consumeNewline() }
        var out: [UInt8] = []
        while true {
            guard pos < bytes.count else {
                throw TOMLError("unterminated multi-line string", at: openLocation)
            }
            let c = bytes[pos]
            switch c {
            case TOMLByte.quote:
                if let end = try closingQuotes(TOMLByte.quote, into: &out) { pos = end; return String(decoding: out, as: UTF8.self) }
            case TOMLByte.backslash:
                // A line-ending backslash: `\`, optional spaces/tabs, then a newline.
                var j = pos + 1
                while j < bytes.count && (bytes[j] == TOMLByte.space || bytes[j] == TOMLByte.tab) { j += 1 }
                if j < bytes.count && (bytes[j] == TOMLByte.lf || bytes[j] == TOMLByte.cr) {
                    pos = j
                    while pos < bytes.count {
                        let w = bytes[pos]
                        if w == TOMLByte.space || w == TOMLByte.tab { pos += 1 }
                        else if w == TOMLByte.lf || w == TOMLByte.cr { try consumeNewline() }
                        else { break }
                    }
                } else {
                    try parseEscape(into: &out)
                }
            case TOMLByte.lf, TOMLByte.cr:
                try consumeNewline()
                out.append(TOMLByte.lf)
            default:
                if TOMLByte.isForbiddenControl(c) {
                    throw error("\(describe(at: pos)) is not allowed in a string; use an escape")
                }
                out.append(c)
                pos += 1
            }
        }
    }

    /// `'''…'''`: taken as written, newlines allowed (CRLF kept as LF), first newline dropped.
    mutating func parseMultilineLiteralString() throws(TOMLError) -> String {
        let openLocation = location()
        pos += 3
        if atNewline { try consumeNewline() }
        var out: [UInt8] = []
        while true {
            guard pos < bytes.count else {
                throw TOMLError("unterminated multi-line string", at: openLocation)
            }
            let c = bytes[pos]
            switch c {
            case TOMLByte.apostrophe:
                if let end = try closingQuotes(TOMLByte.apostrophe, into: &out) { pos = end; return String(decoding: out, as: UTF8.self) }
            case TOMLByte.lf, TOMLByte.cr:
                try consumeNewline()
                out.append(TOMLByte.lf)
            default:
                if TOMLByte.isForbiddenControl(c) {
                    throw error("\(describe(at: pos)) is not allowed in a string")
                }
                out.append(c)
                pos += 1
            }
        }
    }

    /// At a run of `quote`s inside a multi-line string: one or two are content; three to five close
    /// the string (the extra one or two being content); six or more are an error. Returns the index
    /// after the string if it closes, else appends the quotes and returns nil.
    private mutating func closingQuotes(_ quote: UInt8, into out: inout [UInt8]) throws(TOMLError) -> Int? {
        var run = 0
        while pos + run < bytes.count && bytes[pos + run] == quote { run += 1 }
        if run < 3 {
            out.append(contentsOf: repeatElement(quote, count: run))
            pos += run
            return nil
        }
        if run > 5 {
            throw error("too many quotes: at most two may come right before the closing \(quote == TOMLByte.quote ? "\"\"\"" : "'''")",
                        atIndex: pos + 5)
        }
        out.append(contentsOf: repeatElement(quote, count: run - 3))
        return pos + run
    }

    /// At a backslash in a basic string: appends the escaped character's UTF-8.
    mutating func parseEscape(into out: inout [UInt8]) throws(TOMLError) {
        let backslashIndex = pos
        pos += 1
        let c = peek()
        switch c {
        case 0x62: out.append(0x08); pos += 1   // \b
        case 0x74: out.append(0x09); pos += 1   // \t
        case 0x6E: out.append(0x0A); pos += 1   // \n
        case 0x66: out.append(0x0C); pos += 1   // \f
        case 0x72: out.append(0x0D); pos += 1   // \r
        case TOMLByte.quote, TOMLByte.backslash: out.append(c); pos += 1
        case 0x75, 0x55:                        // \uXXXX, \UXXXXXXXX
            let digits = c == 0x75 ? 4 : 8
            var value: UInt32 = 0
            var k = 0
            while k < digits && TOMLByte.isHexDigit(peek(1 + k)) {
                value = value << 4 | TOMLByte.hexValue(peek(1 + k))
                k += 1
            }
            let written = text(backslashIndex..<(pos + 1 + k))
            guard k == digits else {
                throw error("invalid escape '\(written)' in string: \\\(Character(Unicode.Scalar(c))) needs \(digits) hex digits",
                            atIndex: backslashIndex)
            }
            guard let scalar = Unicode.Scalar(value) else {
                throw error("escape '\(written)' is not a Unicode scalar value (surrogates and values above 10FFFF are not allowed)",
                            atIndex: backslashIndex)
            }
            UTF8.encode(scalar) { out.append($0) }
            pos += 1 + digits
        default:
            let what: String
            if pos >= bytes.count || c == TOMLByte.lf || c == TOMLByte.cr {
                what = "a backslash at the end of a line is only allowed in a multi-line \"\"\" string"
                throw error(what, atIndex: backslashIndex)
            } else if c < 0x20 || c == TOMLByte.del || c == TOMLByte.space {
                what = "invalid escape: a backslash followed by \(c == TOMLByte.space ? "a space" : describe(at: pos))"
            } else {
                let scalar = decodeScalar(at: pos)
                what = "invalid escape '\\\(Character(scalar))' in string"
            }
            throw error(what, atIndex: backslashIndex)
        }
    }
}
