/// A TOML 1.0.0 parser that works on UTF-8 bytes and keeps the location of every key and value.
///
///     let table = try TOML.parse(text)          // throws TOMLError with line:column and a message
///
/// The parser is split by topic: this file has the document loop, keys, headers, arrays and inline
/// tables; TOMLScanner.swift the cursor and locations; TOMLStrings.swift, TOMLNumbers.swift and
/// TOMLDateTimeParsing.swift the scalar values; TOMLTableBuilder.swift the rules about defining tables.
public enum TOML {
    public struct Limits: Sendable {
        /// How deeply tables and arrays may nest, counting every level however it was written
        /// (header parts, dotted keys, arrays, inline tables). Deeper input is an error, not a crash.
        public var maxDepth: Int
        /// Larger input is rejected before parsing.
        public var maxBytes: Int

        public init(maxDepth: Int = 64, maxBytes: Int = 1 << 20) {
            self.maxDepth = maxDepth
            self.maxBytes = maxBytes
        }
    }

    public static func parse(_ bytes: [UInt8], limits: Limits = .init()) throws(TOMLError) -> TOMLTable {
        guard bytes.count <= limits.maxBytes else {
            throw TOMLError("the document is \(bytes.count) bytes, more than the limit of \(limits.maxBytes)", at: .start)
        }
        var parser = TOMLParser(bytes: bytes, limits: limits)
        return try parser.parseDocument()
    }

    public static func parse(_ text: String, limits: Limits = .init()) throws(TOMLError) -> TOMLTable {
        guard text.utf8.count <= limits.maxBytes else {
            throw TOMLError("the document is \(text.utf8.count) bytes, more than the limit of \(limits.maxBytes)", at: .start)
        }
        return try parse(Array(text.utf8), limits: limits)
    }
}

extension TOMLParser {
    // MARK: Document

    mutating func parseDocument() throws(TOMLError) -> TOMLTable {
        try validateUTF8()
        if hasBOM { pos = 3 }
        let root = TableBox(origin: .root, location: .start, level: 0)
        var current = root
        while true {
            skipWhitespace()
            guard pos < bytes.count else { break }
            let what: String
            switch bytes[pos] {
            case TOMLByte.hash:
                try skipComment()
                what = "comment"
            case TOMLByte.lf, TOMLByte.cr:
                try consumeNewline()
                continue
            case TOMLByte.openBracket:
                current = try parseHeader(root: root)
                what = "table header"
            default:
                try parseKeyValue(into: current)
                what = "value"
            }
            skipWhitespace()
            if peek() == TOMLByte.hash { try skipComment() }
            guard pos < bytes.count else { break }
            guard atNewline else {
                throw error("expected the end of the line after the \(what), found \(describe(at: pos))")
            }
            try consumeNewline()
        }
        return root.freeze()
    }

    // MARK: Keys

    /// A simple or dotted key; `pos` is at its first character and ends after it (and after any
    /// whitespace that follows it).
    mutating func parseKey() throws(TOMLError) -> [TOMLKeyPart] {
        var parts: [TOMLKeyPart] = []
        while true {
            let partLocation = location()
            let c = peek()
            let name: String
            if c == TOMLByte.quote || c == TOMLByte.apostrophe {
                name = try parseString(allowMultiline: false)
            } else if TOMLByte.isBareKey(c) && pos < bytes.count {
                let start = pos
                while pos < bytes.count && TOMLByte.isBareKey(bytes[pos]) { pos += 1 }
                name = text(start..<pos)
            } else if parts.isEmpty {
                throw error("expected a key, found \(describe(at: pos))")
            } else {
                throw error("expected a key after '.' in \"\(tomlDisplayKey(parts)).\", found \(describe(at: pos))")
            }
            parts.append(TOMLKeyPart(name: name, location: partLocation))
            skipWhitespace()
            guard peek() == TOMLByte.dot else { return parts }
            pos += 1
            skipWhitespace()
        }
    }

    /// `key = value` into `table` (the current header's table, or an inline table being read).
    mutating func parseKeyValue(into table: TableBox) throws(TOMLError) {
        let parts = try parseKey()
        guard peek() == TOMLByte.equals else {
            throw error("expected '=' after key \"\(tomlDisplayKey(parts))\", found \(describe(at: pos))")
        }
        pos += 1
        skipWhitespace()
        let target = try tableForKeyValue(parts, in: table)
        let node = try parseValue(level: target.level + 1)
        let last = parts[parts.count - 1]
        target.append(last.name, at: last.location, .value(node))
    }

    // MARK: Headers

    /// `[a.b]` or `[[a.b]]`: returns the table that the following keys go into.
    mutating func parseHeader(root: TableBox) throws(TOMLError) -> TableBox {
        let open = location()
        pos += 1
        let isArray = peek() == TOMLByte.openBracket
        if isArray { pos += 1 }
        skipWhitespace()
        let parts = try parseKey()
        guard peek() == TOMLByte.closeBracket else {
            throw error("expected ']' to close the table header \"\(tomlDisplayKey(parts))\", found \(describe(at: pos))")
        }
        pos += 1
        if isArray {
            guard peek() == TOMLByte.closeBracket else {
                throw error("expected ']]' to close the array of tables header \"\(tomlDisplayKey(parts))\", found \(describe(at: pos - 1)) alone")
            }
            pos += 1
            return try appendArrayTable(parts, root: root, open: open)
        }
        return try defineTable(parts, root: root, open: open)
    }

    // MARK: Values

    /// Any value; `level` is how deeply it would nest if it is an array or inline table.
    mutating func parseValue(level: Int) throws(TOMLError) -> TOMLNode {
        let start = location()
        let c = peek()
        let value: TOMLValue
        switch c {
        case TOMLByte.quote, TOMLByte.apostrophe:
            value = .string(try parseString(allowMultiline: true))
        case TOMLByte.openBracket:
            value = try parseArray(level: level)
        case TOMLByte.openBrace:
            value = try parseInlineTable(level: level)
        case 0x74, 0x66:                                  // t, f
            value = try parseBoolean()
        case _ where TOMLByte.isDigit(c):
            if atDate { value = try parseDateTime() }
            else if atTime { value = try parseLocalTime() }
            else { value = try parseNumber() }
        case TOMLByte.plus, TOMLByte.minus, 0x69, 0x6E:          // + - i(nf) n(an)
            value = try parseNumber()
        default:
            if pos >= bytes.count || atNewline || c == TOMLByte.hash {
                throw error("expected a value, found \(describe(at: pos))")
            }
            if TOMLByte.isWord(c) {
                let tokenStart = pos
                var end = pos
                while end < bytes.count && TOMLByte.isWord(bytes[end]) { end += 1 }
                throw error("invalid value \"\(text(tokenStart..<end))\" (strings need quotes)")
            }
            throw error("expected a value, found \(describe(at: pos))")
        }
        return TOMLNode(value, at: start)
    }

    private mutating func parseBoolean() throws(TOMLError) -> TOMLValue {
        let start = pos
        while pos < bytes.count && TOMLByte.isWord(bytes[pos]) { pos += 1 }
        let word = bytes[start..<pos]
        if word.elementsEqual("true".utf8) { return .boolean(true) }
        if word.elementsEqual("false".utf8) { return .boolean(false) }
        throw error("invalid value \"\(text(start..<pos))\" (booleans are true and false; strings need quotes)",
                    atIndex: start)
    }

    /// `[ v, v, … ]`: values of any types, newlines and comments allowed, one trailing comma allowed.
    private mutating func parseArray(level: Int) throws(TOMLError) -> TOMLValue {
        let open = location()
        try checkDepth(level, at: open)
        pos += 1
        var items: [TOMLNode] = []
        while true {
            try skipWhitespaceCommentsAndNewlines()
            if peek() == TOMLByte.closeBracket && pos < bytes.count { pos += 1; break }
            if pos >= bytes.count {
                throw error("unterminated array: the '[' at \(open) is never closed")
            }
            items.append(try parseValue(level: level + 1))
            try skipWhitespaceCommentsAndNewlines()
            let c = peek()
            if c == TOMLByte.comma && pos < bytes.count { pos += 1; continue }
            if c == TOMLByte.closeBracket && pos < bytes.count { pos += 1; break }
            if pos >= bytes.count {
                throw error("unterminated array: the '[' at \(open) is never closed")
            }
            throw error("expected ',' or ']' after an array element, found \(describe(at: pos))")
        }
        return .array(items)
    }

    /// `{ k = v, … }` on one line, no trailing comma; closed once written.
    private mutating func parseInlineTable(level: Int) throws(TOMLError) -> TOMLValue {
        let open = location()
        try checkDepth(level, at: open)
        pos += 1
        let table = TableBox(origin: .root, location: open, level: level)
        skipWhitespace()
        if peek() == TOMLByte.closeBrace && pos < bytes.count {
            pos += 1
            return .table(table.freeze())
        }
        while true {
            try expectInlineContent(open)
            try parseKeyValue(into: table)
            skipWhitespace()
            let c = peek()
            if c == TOMLByte.comma && pos < bytes.count {
                let comma = pos
                pos += 1
                skipWhitespace()
                if peek() == TOMLByte.closeBrace && pos < bytes.count {
                    throw error("a trailing comma is not allowed in an inline table (TOML 1.0)", atIndex: comma)
                }
                continue
            }
            if c == TOMLByte.closeBrace && pos < bytes.count {
                pos += 1
                return .table(table.freeze())
            }
            try expectInlineContent(open)
            throw error("expected ',' or '}' in the inline table, found \(describe(at: pos))")
        }
    }

    /// Inside `{ … }`: the line must not end (or hold a comment) before the `}`.
    private mutating func expectInlineContent(_ open: SourceLocation) throws(TOMLError) {
        if pos >= bytes.count {
            throw error("unterminated inline table: the '{' at \(open) is never closed")
        }
        if atNewline || peek() == TOMLByte.hash {
            throw error("an inline table must stay on one line: the '{' at \(open) is not closed before \(peek() == TOMLByte.hash ? "a comment" : "the end of the line")")
        }
    }
}
