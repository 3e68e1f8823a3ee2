/// Turns a `PDFRevision` into bytes: objects, then a cross-reference section in the form of the
/// one it chains to (classic table after a table, uncompressed xref stream after a stream), then
/// the trailer, `startxref` and `%%EOF`. Offsets count from the base's `%PDF` header.
enum PDFRevisionWriter {
    /// Trailer keys the writer decides; a caller's extras cannot override them.
    static let reservedTrailerKeys: Set<PDFName> = [
        .size, .prev, .root, .info, .id, .encrypt, .xrefStm, .type, .length, .filter, "DecodeParms", "W", "Index",
    ]

    static func write(_ revision: PDFRevision, newID: [UInt8]?) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(4096 + revision.objects.count * 128)
        let start: Int  // file offset of out[0], relative to the header
        let form: PDFXrefForm
        let previous: PDFTail?
        switch revision.base {
        case .newFile(let version):
            start = 0
            form = .table
            previous = nil
            out.appendASCII("%PDF-")
            out.appendText(version)
            // A comment of high bytes marks the file as binary for transfer tools (§7.5.2).
            out.append(contentsOf: [0x0A, 0x25, 0xE2, 0xE3, 0xCF, 0xD3, 0x0A])
        case .appending(let tail):
            start = tail.fileLength - tail.headerOffset
            form = tail.form
            previous = tail
            if !tail.endsWithEOL { out.append(0x0A) }
        }

        var offsets: [(reference: PDFReference, offset: Int)] = []
        offsets.reserveCapacity(revision.objects.count + 1)
        for (reference, object) in revision.objects {
            offsets.append((reference, start + out.count))
            writeIndirect(reference, object, to: &out)
        }

        var trailer = PDFDictionary()
        if let root = revision.root { trailer[.root] = .reference(root) }
        if let info = revision.info { trailer[.info] = .reference(info) }
        trailer[.id] = .array(id(previous: previous?.id, content: out, newID: newID).map { .string($0) })
        if let previous { trailer[.prev] = .integer(previous.startxref) }
        for (key, value) in revision.trailerExtras where !reservedTrailerKeys.contains(key) {
            trailer[key] = value
        }

        let xrefOffset = start + out.count
        switch form {
        case .table:
            let size = max(revision.nextNumber, previous?.size ?? 0)
            writeTable(offsets, includeObjectZero: previous == nil, to: &out)
            var full: PDFDictionary = [.size: .integer(size)]
            for (key, value) in trailer { full[key] = value }
            out.appendASCII("trailer\n")
            full.write(to: &out)
            out.append(0x0A)
        case .stream:
            let streamReference = PDFReference(max(revision.nextNumber, previous?.size ?? 0), 0)
            offsets.append((streamReference, xrefOffset))
            let stream = xrefStream(offsets, size: streamReference.number + 1, trailer: trailer)
            writeIndirect(streamReference, .stream(stream), to: &out)
        }
        out.appendASCII("startxref\n")
        out.appendDecimal(xrefOffset)
        out.appendASCII("\n%%EOF\n")
        return out
    }

    static func writeIndirect(_ reference: PDFReference, _ object: PDFObject, to out: inout [UInt8]) {
        out.appendDecimal(reference.number)
        out.append(0x20)
        out.appendDecimal(reference.generation)
        out.appendASCII(" obj\n")
        object.write(to: &out)
        out.appendASCII("\nendobj\n")
    }

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
    static func id(previous: [PDFString]?, content: [UInt8], newID: [UInt8]?) -> [PDFString] {
        let fresh = newID ?? PDFFingerprint.digest(content)
        let first = previous?.first?.bytes ?? fresh
        return [PDFString(bytes: first, form: .hex), PDFString(bytes: fresh, form: .hex)]
    }
}

/// A 16-byte content fingerprint for /ID (FNV-1a, two lanes). Not cryptographic, and it needn't
/// be: /ID only has to tell revisions apart.
enum PDFFingerprint {
    static func digest(_ bytes: [UInt8]) -> [UInt8] {
        var first: UInt64 = 0xcbf2_9ce4_8422_2325
        var second: UInt64 = 0x6c62_272e_07bb_0142
        for byte in bytes {
            first = (first ^ UInt64(byte)) &* 0x0000_0100_0000_01B3
            second = (second ^ UInt64(byte)) &* 0x0000_0100_0000_01B3 ^ (second >> 29)
        }
        second ^= UInt64(bytes.count)
        var out: [UInt8] = []
        for lane in [first, second] {
            for shift in stride(from: 56, through: 0, by: -8) { out.append(UInt8(truncatingIfNeeded: lane >> shift)) }
        }
        return out
    }
}
