/// Splits PDF bytes into tokens. Works on a window of a file: `baseOffset` is the file offset of
/// `bytes[0]`, so every error names the real byte. Never traps on any input.
struct PDFLexer {
    let bytes: [UInt8]
    let baseOffset: Int
    var position: Int
    var step: PDFStep = .lexing

    init(bytes: [UInt8], baseOffset: Int = 0, position: Int = 0) {
        self.bytes = bytes
        self.baseOffset = baseOffset
        self.position = position
    }

    /// File offset of the lexer's position.
    var offset: Int { baseOffset + position }

    var isAtEnd: Bool { position >= bytes.count }

    func error(_ message: String, at position: Int? = nil) -> PDFError {
        .syntax(step, offset: baseOffset + (position ?? self.position), message)
    }

    mutating func skipWhitespaceAndComments() {
        while position < bytes.count {
            let byte = bytes[position]
            if PDFBytes.isWhitespace(byte) {
                position += 1
            } else if byte == UInt8(ascii: "%") {
                while position < bytes.count, bytes[position] != 0x0A, bytes[position] != 0x0D { position += 1 }
            } else {
                return
            }
        }
    }

    /// The next token without consuming it.
    func peek() throws -> PDFToken {
        var copy = self
        return try copy.next()
    }

    mutating func next() throws -> PDFToken {
        skipWhitespaceAndComments()
        guard position < bytes.count else { return .endOfInput }
        let start = position
        let byte = bytes[position]
        switch byte {
        case UInt8(ascii: "["):
            position += 1
            return .arrayStart
        case UInt8(ascii: "]"):
            position += 1
            return .arrayEnd
        case UInt8(ascii: "{"), UInt8(ascii: "}"):
            position += 1
            return .keyword([byte])
        case UInt8(ascii: "<"):
            if position + 1 < bytes.count, bytes[position + 1] == UInt8(ascii: "<") {
                position += 2
                return .dictionaryStart
            }
            return .string(try hexString())
        case UInt8(ascii: ">"):
            if position + 1 < bytes.count, bytes[position + 1] == UInt8(ascii: ">") {
                position += 2
                return .dictionaryEnd
            }
            throw error("unexpected '>'")
        case UInt8(ascii: "("):
            return .string(try literalString())
        case UInt8(ascii: ")"):
            throw error("unexpected ')'")
        case UInt8(ascii: "/"):
            return .name(name())
        default:
            while position < bytes.count, PDFBytes.isRegular(bytes[position]) { position += 1 }
            let word = Array(bytes[start..<position])
            if PDFBytes.isDigit(byte) || byte == UInt8(ascii: "+") || byte == UInt8(ascii: "-")
                || byte == UInt8(ascii: ".")
            {
                return try number(word, at: start)
            }
            return .keyword(word)
        }
    }

    private func number(_ word: [UInt8], at start: Int) throws -> PDFToken {
        let text = String(decoding: word, as: UTF8.self)
        var sawPoint = false
        for (index, byte) in word.enumerated() {
            if byte == UInt8(ascii: ".") {
                if sawPoint { throw error("malformed number '\(text)'", at: start) }
                sawPoint = true
            } else if (byte == UInt8(ascii: "+") || byte == UInt8(ascii: "-")) && index == 0 {
                continue
            } else if !PDFBytes.isDigit(byte) {
                throw error("malformed number '\(text)'", at: start)
            }
        }
        if !sawPoint, let value = Int(text) { return .integer(value) }
        // "4." and "-.5" are valid PDF reals; Double() wants a digit on both sides of the point.
        var normalized = word
        if normalized.first == UInt8(ascii: "+") { normalized.removeFirst() }
        let signLength = normalized.first == UInt8(ascii: "-") ? 1 : 0
        if normalized.count == signLength { throw error("malformed number '\(text)'", at: start) }
        if normalized[signLength] == UInt8(ascii: ".") { normalized.insert(UInt8(ascii: "0"), at: signLength) }
        if normalized.last == UInt8(ascii: ".") { normalized.append(UInt8(ascii: "0")) }
        let normalizedText = String(decoding: normalized, as: UTF8.self)
        guard let value = Double(normalizedText), value.isFinite else {
            throw error("malformed number '\(text)'", at: start)
        }
        return .real(value)
    }

    private mutating func name() -> PDFName {
        position += 1  // the slash
        var out: [UInt8] = []
        while position < bytes.count, PDFBytes.isRegular(bytes[position]) {
            let byte = bytes[position]
            if byte == UInt8(ascii: "#"), position + 2 < bytes.count,
                let high = PDFBytes.hexValue(bytes[position + 1]), let low = PDFBytes.hexValue(bytes[position + 2])
            {
                out.append(high << 4 | low)
                position += 3
            } else {
                // A '#' not followed by two hex digits is kept as it is (PDF 1.1 style).
                out.append(byte)
                position += 1
            }
        }
        return PDFName(bytes: out)
    }

    private mutating func hexString() throws -> PDFString {
        position += 1
        var out: [UInt8] = []
        var high: UInt8? = nil
        while true {
            guard position < bytes.count else { throw error("unterminated hex string", at: bytes.count) }
            let byte = bytes[position]
            position += 1
            if byte == UInt8(ascii: ">") { break }
            if PDFBytes.isWhitespace(byte) { continue }
            guard let digit = PDFBytes.hexValue(byte) else {
                throw error("invalid byte 0x\(String(byte, radix: 16)) in hex string", at: position - 1)
            }
            if let pending = high {
                out.append(pending << 4 | digit)
                high = nil
            } else {
                high = digit
            }
        }
        if let pending = high { out.append(pending << 4) }  // odd count: final digit is followed by 0
        return PDFString(bytes: out, form: .hex)
    }

    private mutating func literalString() throws -> PDFString {
        position += 1
        var out: [UInt8] = []
        var depth = 1
        while true {
            guard position < bytes.count else { throw error("unterminated string", at: bytes.count) }
            let byte = bytes[position]
            position += 1
            switch byte {
            case UInt8(ascii: "("):
                depth += 1
                out.append(byte)
            case UInt8(ascii: ")"):
                depth -= 1
                if depth == 0 { return PDFString(bytes: out, form: .literal) }
                out.append(byte)
            case 0x0D:
                // An unescaped end of line, whatever its form, stands for one LF (§7.3.4.2).
                if position < bytes.count, bytes[position] == 0x0A { position += 1 }
                out.append(0x0A)
            case UInt8(ascii: "\\"):
                try escape(into: &out)
            default:
                out.append(byte)
            }
        }
    }

    private mutating func escape(into out: inout [UInt8]) throws {
        guard position < bytes.count else { throw error("unterminated string", at: bytes.count) }
        let byte = bytes[position]
        position += 1
        switch byte {
        case UInt8(ascii: "n"): out.append(0x0A)
        case UInt8(ascii: "r"): out.append(0x0D)
        case UInt8(ascii: "t"): out.append(0x09)
        case UInt8(ascii: "b"): out.append(0x08)
        case UInt8(ascii: "f"): out.append(0x0C)
        case 0x0D:  // backslash + EOL: the line continues, nothing is added
            if position < bytes.count, bytes[position] == 0x0A { position += 1 }
        case 0x0A:
            break
        case UInt8(ascii: "0")...UInt8(ascii: "7"):
            var value = Int(byte - 0x30)
            var digits = 1
            while digits < 3, position < bytes.count, bytes[position] >= 0x30, bytes[position] <= 0x37 {
                value = value * 8 + Int(bytes[position] - 0x30)
                position += 1
                digits += 1
            }
            out.append(UInt8(truncatingIfNeeded: value))  // \400 and up: high bit ignored
        default:
            // \( \) \\ and any unknown escape: the byte itself, backslash dropped.
            out.append(byte)
        }
    }
}
