/// Parses PDF objects from a window of bytes (§7.3, §7.3.10). Streams stop at the data: the
/// parser reports where the data starts, and the caller (who can reach the rest of the file and
/// resolve an indirect /Length) reads it.
struct PDFObjectParser {
    /// Deeper nesting than this is refused: no real file needs it, and garbage must not overflow
    /// the stack.
    static let maxDepth = 256

    var lexer: PDFLexer

    init(bytes: [UInt8], baseOffset: Int = 0, position: Int = 0, step: PDFStep = .parsingObject) {
        lexer = PDFLexer(bytes: bytes, baseOffset: baseOffset, position: position)
        lexer.step = step
    }

    /// `n g obj` then a value, then `endobj`, or a stream dictionary then `stream`.
    enum IndirectBody: Equatable {
        case object(PDFObject)
        /// The stream's dictionary and the file offset of its first data byte.
        case stream(PDFDictionary, dataOffset: Int)
    }

    /// Parses `n g obj ...` at the current position.
    mutating func parseIndirectObject() throws -> (PDFReference, IndirectBody) {
        let start = lexer.offset
        guard case .integer(let number) = try lexer.next(), number >= 0,
            case .integer(let generation) = try lexer.next(), generation >= 0,
            try lexer.next().isKeyword("obj")
        else {
            throw PDFError.syntax(lexer.step, offset: start, "expected 'n g obj'")
        }
        let reference = PDFReference(number, generation)
        let value = try parseObject()
        let afterValue = lexer.offset
        let token = try lexer.next()
        if token.isKeyword("endobj") { return (reference, .object(value)) }
        if token.isKeyword("stream") {
            guard case .dictionary(let dictionary) = value else {
                throw PDFError.syntax(lexer.step, offset: afterValue, "'stream' after a non-dictionary")
            }
            // The keyword is followed by CRLF or LF (a lone CR is tolerated), then the data.
            var position = lexer.position
            if position < lexer.bytes.count, lexer.bytes[position] == 0x0D { position += 1 }
            if position < lexer.bytes.count, lexer.bytes[position] == 0x0A { position += 1 }
            if position >= lexer.bytes.count {
                throw PDFError.syntax(lexer.step, offset: lexer.baseOffset + position, "unexpected end after 'stream'")
            }
            return (reference, .stream(dictionary, dataOffset: lexer.baseOffset + position))
        }
        if token == .endOfInput {
            throw PDFError.syntax(lexer.step, offset: afterValue, "unexpected end of data, expected 'endobj'")
        }
        // Missing endobj is common enough in the wild to tolerate when the value itself is whole.
        return (reference, .object(value))
    }

    mutating func parseObject() throws -> PDFObject {
        try parseObject(depth: 0)
    }

    private mutating func parseObject(depth: Int) throws -> PDFObject {
        let start = lexer.offset
        guard depth < Self.maxDepth else { throw PDFError.tooDeep(lexer.step, offset: start) }
        let token = try lexer.next()
        switch token {
        case .integer(let value):
            if let reference = try referenceAfter(value) { return .reference(reference) }
            return .integer(value)
        case .real(let value): return .real(value)
        case .name(let name): return .name(name)
        case .string(let string): return .string(string)
        case .arrayStart:
            var items: [PDFObject] = []
            while true {
                lexer.skipWhitespaceAndComments()
                if lexer.isAtEnd { throw lexer.error("unterminated array") }
                if lexer.bytes[lexer.position] == UInt8(ascii: "]") {
                    lexer.position += 1
                    return .array(items)
                }
                items.append(try parseObject(depth: depth + 1))
            }
        case .dictionaryStart:
            var dictionary = PDFDictionary()
            while true {
                let keyOffset = lexer.offset
                let key = try lexer.next()
                switch key {
                case .dictionaryEnd:
                    return .dictionary(dictionary)
                case .name(let name):
                    let value = try parseObject(depth: depth + 1)
                    dictionary[name] = value
                case .endOfInput:
                    throw lexer.error("unterminated dictionary")
                default:
                    throw PDFError.syntax(lexer.step, offset: keyOffset, "expected a name as dictionary key")
                }
            }
        case .keyword(let word):
            switch word {
            case Array("true".utf8): return .bool(true)
            case Array("false".utf8): return .bool(false)
            case Array("null".utf8): return .null
            default:
                throw PDFError.syntax(
                    lexer.step, offset: start, "unexpected '\(String(decoding: word.prefix(32), as: UTF8.self))'")
            }
        case .arrayEnd: throw PDFError.syntax(lexer.step, offset: start, "unexpected ']'")
        case .dictionaryEnd: throw PDFError.syntax(lexer.step, offset: start, "unexpected '>>'")
        case .endOfInput: throw PDFError.syntax(lexer.step, offset: start, "unexpected end of data")
        }
    }

    /// After an integer: `g R` makes it a reference. Looks ahead without consuming otherwise.
    private mutating func referenceAfter(_ number: Int) throws -> PDFReference? {
        var lookahead = lexer
        guard number >= 0, case .integer(let generation)? = try? lookahead.next(), generation >= 0,
            (try? lookahead.next())?.isKeyword("R") == true
        else { return nil }
        lexer = lookahead
        return PDFReference(number, generation)
    }
}
