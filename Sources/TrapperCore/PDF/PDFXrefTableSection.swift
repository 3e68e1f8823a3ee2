/// A classic cross-reference table (§7.5.4), read lazily: only the subsection headers are read
/// when the section is opened (the entries are skipped by arithmetic, each being a fixed-width
/// line), and one entry is read when it is asked for. So opening costs the same for 10 objects as
/// for 100,000.
struct PDFXrefTableSection: Sendable {
    struct Subsection: Sendable {
        let first: Int
        let count: Int
        /// File offset of the first entry, and the width of each (20 per spec; 19 and 21 seen).
        let entriesOffset: Int
        let entryWidth: Int
    }

    let offset: Int
    let subsections: [Subsection]
    let trailer: PDFDictionary
    let reader: PDFWindowReader

    /// Reads the table at file offset `offset` (which must start with `xref`) and its trailer.
    init(at offset: Int, reader: PDFWindowReader) throws {
        self.offset = offset
        self.reader = reader
        let step = PDFStep.readingXrefTable
        var position = offset
        var header = try reader.read(position, 64, step: step)
        var lexer = PDFLexer(bytes: header, baseOffset: position)
        lexer.step = step
        guard try lexer.next().isKeyword("xref") else {
            throw PDFError.damaged(step, offset: offset, "expected 'xref'")
        }
        position = lexer.offset
        var subsections: [Subsection] = []
        while true {
            header = try reader.read(position, 128, step: step)
            lexer = PDFLexer(bytes: header, baseOffset: position)
            lexer.step = step
            let token = try lexer.next()
            if token.isKeyword("trailer") {
                position = lexer.offset
                break
            }
            // Bounds keep the arithmetic below from overflowing on garbage.
            guard case .integer(let first) = token, (0..<(1 << 40)).contains(first),
                case .integer(let count) = try lexer.next(), count >= 0, count <= reader.source.length / 19
            else {
                throw PDFError.damaged(step, offset: position, "expected a subsection header or 'trailer'")
            }
            // The header's line ends; entries start at the next non-blank byte.
            lexer.skipWhitespaceAndComments()
            let entriesOffset = lexer.offset
            var width = 20
            if count > 0 {
                let line = try reader.read(entriesOffset, 24, step: step)
                guard line.count >= 19 else {
                    throw PDFError.damaged(step, offset: entriesOffset, "truncated xref entry")
                }
                var end = 18
                while end < line.count, PDFBytes.isWhitespace(line[end]) { end += 1 }
                // A lone entry may be followed by extra blank lines before `trailer`.
                width = count == 1 ? min(end, 21) : end
                guard (19...21).contains(width) else {
                    throw PDFError.damaged(step, offset: entriesOffset, "xref entry is not 20 bytes wide")
                }
            }
            subsections.append(Subsection(first: first, count: count, entriesOffset: entriesOffset, entryWidth: width))
            position = entriesOffset + count * width
            guard position < reader.source.length else {
                throw PDFError.damaged(step, offset: entriesOffset, "xref subsection runs past the end of the file")
            }
        }
        self.subsections = subsections
        let trailerStart = position
        let trailerObject = try reader.parse(at: trailerStart, step: .readingTrailer) { try $0.parseObject() }
        guard case .dictionary(let trailer) = trailerObject else {
            throw PDFError.damaged(.readingTrailer, offset: trailerStart, "trailer is not a dictionary")
        }
        self.trailer = trailer
    }

    /// The entry for `number`, or nil if this section says nothing about it. A later subsection
    /// wins over an earlier one, as readers do.
    func entry(for number: Int) throws -> PDFXrefEntry? {
        for subsection in subsections.reversed()
        where number >= subsection.first && number < subsection.first + subsection.count {
            let entryOffset = subsection.entriesOffset + (number - subsection.first) * subsection.entryWidth
            let line = try reader.read(entryOffset, 18, step: .readingXrefTable)
            return try Self.parseEntry(line, at: entryOffset)
        }
        return nil
    }

    /// `oooooooooo ggggg n`: 10-digit offset, 5-digit generation, `n` or `f`.
    static func parseEntry(_ line: [UInt8], at offset: Int) throws -> PDFXrefEntry {
        func damaged() -> PDFError { .damaged(.readingXrefTable, offset: offset, "malformed xref entry") }
        guard line.count == 18, line[10] == 0x20, line[16] == 0x20 else { throw damaged() }
        var first = 0
        for byte in line[0..<10] {
            guard PDFBytes.isDigit(byte) else { throw damaged() }
            first = first * 10 + Int(byte - 0x30)
        }
        var generation = 0
        for byte in line[11..<16] {
            guard PDFBytes.isDigit(byte) else { throw damaged() }
            generation = generation * 10 + Int(byte - 0x30)
        }
        switch line[17] {
        case UInt8(ascii: "n"): return .inFile(offset: first, generation: generation)
        case UInt8(ascii: "f"): return .free(nextFree: first, generation: generation)
        default: throw damaged()
        }
    }
}
