/// Where a revision's bytes go: memory (`[UInt8]`) or the target file itself (`PDFFileOutput`).
public protocol PDFByteOutput {
    mutating func write(_ bytes: [UInt8]) throws
}

extension Array: PDFByteOutput where Element == UInt8 {
    public mutating func write(_ bytes: [UInt8]) { append(contentsOf: bytes) }
}

/// Writes one revision as it is built: each object goes out the moment it is set, so a batch of
/// pages never sits in memory at once; `finish` writes the cross-reference section in the form of
/// the one it chains to (classic table after a table, uncompressed xref stream after a stream), the
/// trailer, `startxref` and `%%EOF`. Offsets count from the base's `%PDF` header.
public struct PDFUpdateWriter<Output: PDFByteOutput>: PDFObjectSink {
    public private(set) var output: Output
    public let base: PDFRevision.Base
    /// Bytes written so far, header or leading newline included.
    public private(set) var bytesWritten = 0
    public private(set) var nextNumber: Int
    /// The catalog. Kept from the base when appending; must be set for a new file.
    public var root: PDFReference?
    public var info: PDFReference?
    /// Private trailer entries (e.g. /PDFTrapper history); keys the writer owns are ignored.
    public var trailerExtras: PDFDictionary = [:]

    /// File offset of the first byte this writer writes, relative to the header.
    private let start: Int
    /// Where each object was written; a number set twice keeps its last offset.
    private var offsets: [Int: (reference: PDFReference, offset: Int)] = [:]
    private var fingerprint = PDFFingerprint()
    private var buffer: [UInt8] = []

    public init(base: PDFRevision.Base, output: Output) throws {
        self.output = output
        self.base = base
        switch base {
        case .newFile(let version):
            start = 0
            nextNumber = 1
            var header = Array("%PDF-\(version)".utf8)
            // A comment of high bytes marks the file as binary for transfer tools (§7.5.2).
            header.append(contentsOf: [0x0A, 0x25, 0xE2, 0xE3, 0xCF, 0xD3, 0x0A])
            try emit(header)
        case .appending(let tail):
            start = tail.fileLength - tail.headerOffset
            nextNumber = tail.size
            root = tail.root
            info = tail.info
            if !tail.endsWithEOL { try emit([0x0A]) }
        }
    }

    /// A comment line (`%` and `text`), written before any object: e.g. a mark that tells whose
    /// bytes begin at the revision's start. Readers skip comments (§7.2.4).
    public mutating func comment(_ text: String) throws {
        precondition(offsets.isEmpty, "a comment goes before the revision's objects")
        try emit(Array("%\(text)\n".utf8), fingerprinted: false)
    }

    public mutating func reserve() -> PDFReference {
        defer { nextNumber += 1 }
        return PDFReference(nextNumber, 0)
    }

    public mutating func set(_ reference: PDFReference, to object: PDFObject) throws {
        try place(reference)
        buffer.removeAll(keepingCapacity: true)
        PDFRevisionWriter.writeIndirect(reference, object, to: &buffer)
        try emit(buffer)
    }

    /// The same bytes as `set(reference, to: .stream(...))` would write, the data copied from its
    /// file a chunk at a time between the stream's dictionary and its end.
    public mutating func set(_ reference: PDFReference, toStream dictionary: PDFDictionary, copying data: PDFFileRange) throws {
        try place(reference)
        var dictionary = dictionary
        dictionary[.length] = .integer(data.count)
        buffer.removeAll(keepingCapacity: true)
        PDFRevisionWriter.writeObjectStart(reference, to: &buffer)
        dictionary.write(to: &buffer)
        buffer.appendASCII(PDFStream.dataStart)
        try emit(buffer)
        try data.copy { try emit($0) }
        buffer.removeAll(keepingCapacity: true)
        buffer.appendASCII(PDFStream.dataEnd)
        buffer.appendASCII(PDFRevisionWriter.objectEnd)
        try emit(buffer)
    }

    /// Records where the object at `reference` starts: the bytes written next.
    private mutating func place(_ reference: PDFReference) throws {
        guard reference.number <= PDFTail.largestObjectNumber else {
            throw PDFError.damaged(.readingTrailer, offset: 0, "object number \(reference.number) is past \(PDFTail.largestObjectNumber), "
                                   + "the most that PDF readers accept")
        }
        offsets[reference.number] = (reference, start + bytesWritten)
        nextNumber = max(nextNumber, reference.number + 1)
    }

    /// Makes sure /Size covers numbers reserved but never written.
    mutating func reserveThrough(_ size: Int) { nextNumber = max(nextNumber, size) }

    /// Writes the cross-reference section and trailer. `newID` overrides the second /ID string,
    /// which is otherwise derived from the bytes written.
    public mutating func finish(newID: [UInt8]? = nil) throws {
        var out: [UInt8] = []
        let previous: PDFTail?
        if case .appending(let tail) = base { previous = tail } else { previous = nil }
        var trailer = PDFDictionary()
        if let root { trailer[.root] = .reference(root) }
        if let info { trailer[.info] = .reference(info) }
        let fresh = newID ?? fingerprint.digest()
        trailer[.id] = .array(PDFRevisionWriter.id(previous: previous?.id, fresh: fresh).map { .string($0) })
        if let previous { trailer[.prev] = .integer(previous.startxref) }
        for (key, value) in trailerExtras where !PDFRevisionWriter.reservedTrailerKeys.contains(key) {
            trailer[key] = value
        }

        let xrefOffset = start + bytesWritten
        var entries = offsets.values.sorted { $0.reference.number < $1.reference.number }
        let size = max(nextNumber, previous?.size ?? 0)
        switch previous?.form ?? .table {
        case .table:
            PDFRevisionWriter.writeTable(entries, includeObjectZero: previous == nil, to: &out)
            var full: PDFDictionary = [.size: .integer(size)]
            for (key, value) in trailer { full[key] = value }
            out.append(contentsOf: Array("trailer\n".utf8))
            full.write(to: &out)
            out.append(0x0A)
        case .stream:
            let streamReference = PDFReference(size, 0)
            entries.append((streamReference, xrefOffset))
            let stream = PDFRevisionWriter.xrefStream(entries, size: size + 1, trailer: trailer)
            PDFRevisionWriter.writeIndirect(streamReference, .stream(stream), to: &out)
        }
        out.appendASCII("startxref\n")
        out.appendDecimal(xrefOffset)
        out.appendASCII("\n%%EOF\n")
        try emit(out, fingerprinted: false)
    }

    private mutating func emit(_ bytes: [UInt8], fingerprinted: Bool = true) throws {
        if fingerprinted { fingerprint.update(bytes) }
        try output.write(bytes)
        bytesWritten += bytes.count
    }
}

/// The shared pieces of writing a revision: indirect objects, xref tables and streams, /ID.
enum PDFRevisionWriter {
    /// Trailer keys the writer decides; a caller's extras cannot override them.
    static let reservedTrailerKeys: Set<PDFName> = [
        .size, .prev, .root, .info, .id, .encrypt, .xrefStm, .type, .length, .filter, "DecodeParms", "W", "Index",
    ]

    /// A whole in-memory revision, through the same streaming writer.
    static func write(_ revision: PDFRevision, newID: [UInt8]?) throws -> [UInt8] {
        var writer = try PDFUpdateWriter(base: revision.base, output: [UInt8]())
        for (reference, object) in revision.objects { try writer.set(reference, to: object) }
        writer.reserveThrough(revision.nextNumber)
        writer.root = revision.root
        writer.info = revision.info
        writer.trailerExtras = revision.trailerExtras
        try writer.finish(newID: newID)
        return writer.output
    }

    static func writeIndirect(_ reference: PDFReference, _ object: PDFObject, to out: inout [UInt8]) {
        writeObjectStart(reference, to: &out)
        object.write(to: &out)
        out.appendASCII(objectEnd)
    }

    /// "12 0 obj" and its line end, before an indirect object's value.
    static func writeObjectStart(_ reference: PDFReference, to out: inout [UInt8]) {
        out.appendDecimal(reference.number)
        out.append(0x20)
        out.appendDecimal(reference.generation)
        out.appendASCII(" obj\n")
    }

    static let objectEnd: StaticString = "\nendobj\n"

    /// Classic table: runs of consecutive numbers become subsections; entries are exactly 20 bytes.
    static func writeTable(_ offsets: [(reference: PDFReference, offset: Int)], includeObjectZero: Bool,
        to out: inout [UInt8])
    {
        var entries = offsets.map { (number: $0.reference.number, generation: $0.reference.generation, offset: $0.offset, inUse: true) }
        if includeObjectZero { entries.append((0, 65535, 0, false)) }
        entries.sort { $0.number < $1.number }
        out.appendASCII("xref\n")
        var index = 0
        while index < entries.count {
            var end = index + 1
            while end < entries.count, entries[end].number == entries[end - 1].number + 1 { end += 1 }
            out.appendDecimal(entries[index].number)
            out.append(0x20)
            out.appendDecimal(end - index)
            out.append(0x0A)
            for entry in entries[index..<end] {
                out.appendPaddedDecimal(entry.offset, width: 10)
                out.append(0x20)
                out.appendPaddedDecimal(entry.generation, width: 5)
                out.appendASCII(entry.inUse ? " n \n" : " f \n")
            }
            index = end
        }
    }

    /// Uncompressed cross-reference stream: /W sized to the largest offset and generation.
    static func xrefStream(_ offsets: [(reference: PDFReference, offset: Int)], size: Int, trailer: PDFDictionary)
        -> PDFStream
    {
        let sorted = offsets.sorted { $0.reference.number < $1.reference.number }
        let maxOffset = sorted.map(\.offset).max() ?? 0
        let maxGeneration = sorted.map(\.reference.generation).max() ?? 0
        let offsetWidth = byteWidth(maxOffset)
        let generationWidth = byteWidth(maxGeneration)
        var index: [PDFObject] = []
        var rows: [UInt8] = []
        rows.reserveCapacity(sorted.count * (1 + offsetWidth + generationWidth))
        var runStart = 0
        for position in sorted.indices {
            let entry = sorted[position]
            rows.append(1)
            rows.appendBigEndian(entry.offset, width: offsetWidth)
            rows.appendBigEndian(entry.reference.generation, width: generationWidth)
            let isRunEnd = position + 1 == sorted.count
                || sorted[position + 1].reference.number != entry.reference.number + 1
            if isRunEnd {
                index.append(.integer(sorted[runStart].reference.number))
                index.append(.integer(position - runStart + 1))
                runStart = position + 1
            }
        }
        var dictionary: PDFDictionary = [
            .type: .name("XRef"), .size: .integer(size), "Index": .array(index),
            "W": [1, .integer(offsetWidth), .integer(generationWidth)],
        ]
        for (key, value) in trailer { dictionary[key] = value }
        return PDFStream(dictionary: dictionary, data: rows)
    }

    static func byteWidth(_ value: Int) -> Int {
        var width = 1
        while width < 8, value >> (8 * width) != 0 { width += 1 }
        return width
    }

    /// /ID keeps the first string (the document's identity) and gets a new second one (this
    /// revision's), derived from the new bytes so equal inputs give equal files.
    static func id(previous: [PDFString]?, fresh: [UInt8]) -> [PDFString] {
        let first = previous?.first?.bytes ?? fresh
        return [PDFString(bytes: first, form: .hex), PDFString(bytes: fresh, form: .hex)]
    }
}

/// A 16-byte content fingerprint for /ID (FNV-1a, two lanes), fed as bytes are written. Not
/// cryptographic, and it needn't be: /ID only has to tell revisions apart, so of a large chunk (an
/// image) only its ends and length are taken, keeping the writer at copy speed.
struct PDFFingerprint {
    private var first: UInt64 = 0xcbf2_9ce4_8422_2325
    private var second: UInt64 = 0x6c62_272e_07bb_0142
    private var count: UInt64 = 0

    mutating func update(_ bytes: [UInt8]) {
        let sample = bytes.count <= 1024 ? bytes[...] : bytes.prefix(512) + bytes.suffix(512)
        for byte in sample {
            first = (first ^ UInt64(byte)) &* 0x0000_0100_0000_01B3
            second = (second ^ UInt64(byte)) &* 0x0000_0100_0000_01B3 ^ (second >> 29)
        }
        count &+= UInt64(bytes.count)
    }

    func digest() -> [UInt8] {
        var out: [UInt8] = []
        for lane in [first, second ^ count] {
            for shift in stride(from: 56, through: 0, by: -8) { out.append(UInt8(truncatingIfNeeded: lane >> shift)) }
        }
        return out
    }
}
