/// Reads a PDF from its tail, only as much as asked: `startxref`, the last cross-reference
/// section and its trailer at open; then, per object asked for, the newest section first,
/// following /Prev (and a hybrid file's /XRefStm) only as far as needed. Objects inside object
/// streams resolve too. Costs do not grow with the page count.
///
/// Not Sendable: it caches what it has read. Make one per job.
public final class PDFTailReader {
    public let tail: PDFTail
    let reader: PDFWindowReader
    let decoder: any PDFStreamDecoding

    /// Sections read so far, newest first; the chain is followed lazily.
    var sections: [Section]
    var nextSectionOffset: Int?
    var visitedSectionOffsets: Set<Int>
    var objectCache: [Int: PDFObject] = [:]
    var objectStreams: [Int: PDFObjectStreamContents] = [:]
    var resolving: Set<Int> = []

    /// How many cross-reference sections have been read: lets tests check that the chain is
    /// followed only as far as needed.
    public var sectionsRead: Int { sections.count }

    enum Section {
        case table(PDFXrefTableSection, hybrid: PDFXrefStreamSection?)
        case stream(PDFXrefStreamSection)

        var trailer: PDFDictionary {
            switch self {
            case .table(let table, _): return table.trailer
            case .stream(let stream): return stream.trailer
            }
        }
    }

    public convenience init(path: String, decoder: any PDFStreamDecoding = PDFNoFilterDecoder()) throws {
        try self.init(source: PDFFileSource(path: path), decoder: decoder)
    }

    public init(source: any PDFByteSource, decoder: any PDFStreamDecoding = PDFNoFilterDecoder()) throws {
        reader = PDFWindowReader(source: source)
        self.decoder = decoder
        let length = source.length

        // Header: `%PDF-x.y` within the first KB; what is before it shifts every offset.
        let head = try reader.read(0, 1024, step: .findingHeader)
        guard let headerOffset = PDFBytes.find(Array("%PDF-".utf8), in: head) else {
            throw PDFError.damaged(.findingHeader, offset: 0, "no %PDF- header in the first 1024 bytes")
        }
        var versionBytes: [UInt8] = []
        var index = headerOffset + 5
        while index < head.count, PDFBytes.isDigit(head[index]) || head[index] == UInt8(ascii: ".") {
            versionBytes.append(head[index])
            index += 1
        }

        // Tail: the last `startxref` before the last `%%EOF`, in the last 2 KB.
        let tailStart = max(0, length - 2048)
        let tailBytes = try reader.read(tailStart, length - tailStart, step: .findingStartxref)
        guard let eof = PDFBytes.findLast(Array("%%EOF".utf8), in: tailBytes) else {
            throw PDFError.damaged(.findingStartxref, offset: length, "no %%EOF at the end of the file")
        }
        guard let keyword = PDFBytes.findLast(Array("startxref".utf8), in: Array(tailBytes[..<eof])) else {
            throw PDFError.damaged(.findingStartxref, offset: tailStart + eof, "no startxref before %%EOF")
        }
        var lexer = PDFLexer(bytes: Array(tailBytes[..<eof]), baseOffset: tailStart, position: keyword + 9)
        lexer.step = .findingStartxref
        guard case .integer(let startxref)? = try? lexer.next(), startxref >= 0, startxref < length else {
            throw PDFError.damaged(.findingStartxref, offset: tailStart + keyword, "startxref is not followed by an offset")
        }

        let firstSection = try Self.readSection(
            at: startxref + headerOffset, headerOffset: headerOffset, reader: reader, decoder: decoder)
        sections = [firstSection.section]
        nextSectionOffset = firstSection.prev.map { $0 &+ headerOffset }
        visitedSectionOffsets = [startxref + headerOffset]

        let trailer = firstSection.section.trailer
        let trailerOffset = startxref + headerOffset
        if trailer[.encrypt] != nil { throw PDFError.encrypted(offset: trailerOffset) }
        guard let root = trailer[.root]?.referenceValue else {
            throw PDFError.damaged(.readingTrailer, offset: trailerOffset, "trailer has no /Root reference")
        }
        guard let size = trailer[.size]?.integerValue, size > 0 else {
            throw PDFError.damaged(.readingTrailer, offset: trailerOffset, "trailer has no valid /Size")
        }
        let lastByte = tailBytes.last ?? 0
        tail = PDFTail(
            fileLength: length, headerOffset: headerOffset, version: String(decoding: versionBytes, as: UTF8.self),
            startxref: startxref, form: firstSection.form, trailer: trailer, size: size, root: root,
            info: trailer[.info]?.referenceValue,
            id: trailer[.id]?.arrayValue?.compactMap(\.stringValue),
            endsWithEOL: lastByte == 0x0A || lastByte == 0x0D)
    }

    /// Reads the section at a file offset: a table (`xref`) or an xref stream object. Offsets
    /// inside it (/Prev, /XRefStm) are relative to the header, hence `headerOffset`.
    static func readSection(
        at offset: Int, headerOffset: Int, reader: PDFWindowReader, decoder: any PDFStreamDecoding
    ) throws -> (section: Section, form: PDFXrefForm, prev: Int?) {
        let notASection = PDFError.damaged(
            .findingStartxref, offset: offset, "startxref does not point at a cross-reference section")
        guard offset >= 0, offset < reader.source.length else { throw notASection }
        let peek = try reader.read(offset, 32, step: .findingStartxref)
        var lexer = PDFLexer(bytes: peek, baseOffset: offset)
        lexer.skipWhitespaceAndComments()
        let start = lexer.offset
        if peek[lexer.position...].starts(with: Array("xref".utf8)) {
            let table = try PDFXrefTableSection(at: start, reader: reader)
            var hybrid: PDFXrefStreamSection? = nil
            if let hybridOffset = table.trailer[.xrefStm]?.integerValue {
                hybrid = try readStreamSection(at: hybridOffset &+ headerOffset, reader: reader, decoder: decoder)
            }
            return (.table(table, hybrid: hybrid), .table, table.trailer[.prev]?.integerValue)
        }
        guard case .integer? = try? lexer.next() else { throw notASection }
        let stream: PDFXrefStreamSection
        do {
            stream = try readStreamSection(at: start, reader: reader, decoder: decoder)
        } catch PDFError.syntax {
            throw notASection
        }
        return (.stream(stream), .stream, stream.trailer[.prev]?.integerValue)
    }

    private static func readStreamSection(at offset: Int, reader: PDFWindowReader, decoder: any PDFStreamDecoding)
        throws -> PDFXrefStreamSection
    {
        // An xref stream's /Length must be direct (nothing can be resolved before the xref is
        // read); if it is not, the loader falls back to searching for `endstream`.
        let loader = PDFObjectLoader(reader: reader, resolveLength: { _ in nil })
        let (_, object) = try loader.loadObject(at: offset, expectedNumber: nil, step: .readingXrefStream)
        guard case .stream(let stream) = object else {
            throw PDFError.damaged(.readingXrefStream, offset: offset, "not a cross-reference stream")
        }
        return try PDFXrefStreamSection(offset: offset, stream: stream, decoder: decoder)
    }
}
