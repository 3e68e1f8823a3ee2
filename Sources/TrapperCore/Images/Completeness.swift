/// Whether a file in the inbox is structurally whole yet, judged from the few bytes that tell: a
/// writer that pauses (an SMB or FTP client that closes and reopens to append, a sync tool writing in
/// pieces) must not have its first half taken. Reads from the end where the format allows; a TIFF's
/// directories and strip tables only; never the whole file.
public enum Completeness {
    public enum Verdict: Sendable, Equatable {
        case complete
        /// Not whole yet, and what is missing ("no end-of-image marker yet").
        case incomplete(String)
    }

    /// How far from the end an end marker may sit (some writers pad after it).
    static let tailLength = 4096

    public static func check(_ source: some PDFByteSource, kind: FileKind) -> Verdict {
        guard source.length > 0 else { return .incomplete("the file is empty") }
        do {
            switch kind {
            case .jpeg: return try jpeg(source)
            case .png: return try png(source)
            case .tiff: return try tiff(source)
            case .pnm: return try pnm(source)
            case .heic, .avif: return try heif(source)
            case .webp: return try webp(source)
            case .pdf: return try pdf(source)
            case .unknown: return .complete  // not ours to wait for: it is refused with its reason
            }
        } catch {
            return .incomplete("cannot be read yet: \(error)")
        }
    }

    static func tail(_ source: some PDFByteSource) throws -> [UInt8] {
        let count = min(tailLength, source.length)
        return try source.read(offset: source.length - count, count: count)
    }

    /// JPEG: an end-of-image marker (FF D9) after the last scan. Entropy-coded data never holds
    /// FF D9, so one near the end is the end.
    static func jpeg(_ source: some PDFByteSource) throws -> Verdict {
        let bytes = try tail(source)
        let found = bytes.indices.dropLast().contains { bytes[$0] == 0xFF && bytes[$0 + 1] == 0xD9 }
        return found ? .complete : .incomplete("no end-of-image marker yet")
    }

    /// PNG: the IEND chunk.
    static func png(_ source: some PDFByteSource) throws -> Verdict {
        let iend: [UInt8] = [0x49, 0x45, 0x4E, 0x44, 0xAE, 0x42, 0x60, 0x82]
        return PDFBytes.findLast(iend, in: try tail(source)) != nil ? .complete : .incomplete("no IEND chunk yet")
    }

    /// PDF: the last `%%EOF` ends the file (whitespace after it at most) and the `startxref` before
    /// it points inside the file.
    static func pdf(_ source: some PDFByteSource) throws -> Verdict {
        let bytes = try tail(source)
        guard let eof = PDFBytes.findLast(Array("%%EOF".utf8), in: bytes) else { return .incomplete("no %%EOF yet") }
        guard bytes[(eof + 5)...].allSatisfy({ PDFBytes.isWhitespace($0) || $0 == 0 }) else {
            return .incomplete("more follows its last %%EOF")
        }
        guard let start = PDFBytes.findLast(Array("startxref".utf8), in: Array(bytes[..<eof])) else {
            return .incomplete("no startxref before its %%EOF")
        }
        let digits = bytes[(start + 9)..<eof].filter { (0x30...0x39).contains($0) }
        guard let offset = Int(String(decoding: digits, as: UTF8.self)), offset < source.length else {
            return .incomplete("its startxref points past the end")
        }
        return .complete
    }

    /// PNM: the bytes its header promises (plain, ASCII forms are taken as they are).
    static func pnm(_ source: some PDFByteSource) throws -> Verdict {
        let head = try source.read(offset: 0, count: min(1024, source.length))
        guard head.count >= 2 else { return .incomplete("the header is not whole yet") }
        let kind = head[1]
        guard [UInt8(ascii: "4"), UInt8(ascii: "5"), UInt8(ascii: "6")].contains(kind) else { return .complete }
        // Magic, width, height (and maxval but for P4), each after whitespace or comments.
        var numbers: [Int] = []
        var index = 2
        let wanted = kind == UInt8(ascii: "4") ? 2 : 3
        while numbers.count < wanted, index < head.count {
            let byte = head[index]
            if byte == UInt8(ascii: "#") {
                while index < head.count, head[index] != 0x0A, head[index] != 0x0D { index += 1 }
            } else if (0x30...0x39).contains(byte) {
                var value = 0
                while index < head.count, (0x30...0x39).contains(head[index]), value < 1 << 40 {
                    value = value * 10 + Int(head[index] - 0x30)
                    index += 1
                }
                numbers.append(value)
                continue
            }
            index += 1
        }
        guard numbers.count == wanted, index < head.count else { return .incomplete("the header is not whole yet") }
        let dataStart = index + 1  // one whitespace byte ends the header
        let (width, height) = (numbers[0], numbers[1])
        let sample = wanted == 3 && numbers[2] > 255 ? 2 : 1
        let row: Int
        switch kind {
        case UInt8(ascii: "4"): row = (width + 7) / 8
        case UInt8(ascii: "5"): row = width * sample
        default: row = width * 3 * sample
        }
        let (size, overflow) = row.multipliedReportingOverflow(by: height)
        guard !overflow else { return .complete }  // absurd: refused with its reason when read
        let missing = dataStart + size - source.length
        return missing <= 0 ? .complete : .incomplete("\(missing) bytes of its pixels still to come")
    }

    /// WebP: the RIFF header's size (the bytes after its first eight), padded to even.
    static func webp(_ source: some PDFByteSource) throws -> Verdict {
        let header = try source.read(offset: 0, count: min(12, source.length))
        guard header.count == 12 else { return .incomplete("the header is not whole yet") }
        let size = header[4..<8].reversed().reduce(0) { $0 << 8 | Int($1) }
        let missing = 8 + size + (size & 1) - source.length
        // A writer may leave out the last pad byte.
        return missing <= (size & 1) ? .complete : .incomplete("\(missing) bytes of its RIFF data still to come")
    }

    /// HEIF and AVIF: the top-level boxes (ISO/IEC 14496-12) follow each other to the end of the
    /// file, and the `meta` box (what the images are) and an `mdat` (their data) are among them. A
    /// box whose size is 0 runs to the end of the file, which can tell nothing more.
    static func heif(_ source: some PDFByteSource) throws -> Verdict {
        var offset = 0
        var seen: Set<String> = []
        var boxes = 0
        while offset < source.length, boxes < 100_000 {
            boxes += 1
            guard offset + 8 <= source.length else { return .incomplete("a box header is cut off") }
            let header = try source.read(offset: offset, count: min(16, source.length - offset))
            let type = String(decoding: header[4..<8], as: UTF8.self)
            var size = header[0..<4].reduce(0) { $0 << 8 | Int($1) }
            if size == 1 {
                guard header.count == 16 else { return .incomplete("a box header is cut off") }
                size = header[8..<16].reduce(0) { $0 &<< 8 | Int($1) }
            }
            seen.insert(type)
            if size == 0 { break }
            guard size >= 8, size <= source.length - offset else {
                return size < 8 ? .complete : .incomplete("its \(type) box runs past the end")  // nonsense: refused when read
            }
            offset += size
        }
        guard seen.contains("meta") else { return .incomplete("no meta box yet") }
        guard seen.contains("mdat") else { return .incomplete("no mdat box yet") }
        return .complete
    }

    /// TIFF: every directory, and every strip or tile each names, lies inside the file.
    static func tiff(_ source: some PDFByteSource) throws -> Verdict {
        let header = try source.read(offset: 0, count: min(8, source.length))
        guard header.count == 8 else { return .incomplete("the header is not whole yet") }
        let bigEndian = header[0] == 0x4D
        func number(_ bytes: [UInt8]) -> Int {
            (bigEndian ? bytes : bytes.reversed()).reduce(0) { $0 << 8 | Int($1) }
        }
        let sizes = [1: 1, 3: 2, 4: 4, 16: 8]
        var offset = number(Array(header[4..<8]))
        var seen: Set<Int> = []
        while offset != 0, seen.insert(offset).inserted, seen.count <= 10_000 {
            guard offset + 2 <= source.length else { return .incomplete("a directory lies past the end") }
            let count = number(try source.read(offset: offset, count: 2))
            guard offset + 2 + count * 12 + 4 <= source.length else { return .incomplete("a directory runs past the end") }
            let entries = try source.read(offset: offset + 2, count: count * 12 + 4)
            var values: [Int: [Int]] = [:]
            for index in 0..<count {
                let entry = Array(entries[(index * 12)..<(index * 12 + 12)])
                let tag = number(Array(entry[0..<2])), type = number(Array(entry[2..<4])), items = number(Array(entry[4..<8]))
                guard [273, 279, 324, 325].contains(tag), let size = sizes[type], items > 0, items < 1 << 24 else { continue }
                let total = size * items
                let raw = total <= 4 ? Array(entry[8..<(8 + total)]) : try {
                    let at = number(Array(entry[8..<12]))
                    guard at + total <= source.length else { throw Pending() }
                    return try source.read(offset: at, count: total)
                }()
                values[tag] = stride(from: 0, to: total, by: size).map { number(Array(raw[$0..<($0 + size)])) }
            }
            for (offsets, counts) in [(273, 279), (324, 325)] {
                guard let starts = values[offsets], let lengths = values[counts] else { continue }
                if zip(starts, lengths).contains(where: { $0 + $1 > source.length }) {
                    return .incomplete("its image data runs past the end")
                }
            }
            offset = number(Array(entries[(count * 12)..<(count * 12 + 4)]))
        }
        return .complete
    }

    /// A table that lies past the end: the file is still being written.
    struct Pending: Error, CustomStringConvertible {
        var description: String { "a tag's values lie past the end" }
    }
}
