import TrapperCore

/// A last resort for files qpdf 11.3 cannot reconstruct by itself: its recovery needs a `trailer`
/// keyword, so a file whose only trailer was an xref stream (cut off, or pointed past by a bad
/// `startxref`) or whose trailer dictionary is truncated fails with "unable to find trailer
/// dictionary", and a table entry zeroed for the catalog fails with "unable to find /Root".
///
/// This scan finds every `n g obj` in the bytes (the last one of each number wins, as in an
/// update), lists the members of the object streams among them, finds the catalog, and appends
/// one uncompressed cross-reference stream that says all of that. qpdf then reads the patched
/// bytes without needing its own reconstruction. The original file is not modified.
enum PDFRecoveryScan {
    struct Failure: Error, CustomStringConvertible {
        var message: String
        var description: String { "recovery scan: \(message)" }
    }

    /// `bytes` with a cross-reference stream appended that lists every object found.
    static func patched(_ bytes: [UInt8], decoder: any PDFStreamDecoding = FlateStreamDecoder()) throws -> [UInt8] {
        let header = PDFBasicFilters.find(Array("%PDF-".utf8), in: bytes, from: 0) ?? 0
        var direct = scanObjectHeaders(bytes)
        // Offsets in xref entries count from the header.
        for (number, entry) in direct { direct[number] = (entry.offset - header, entry.generation) }
        guard !direct.isEmpty else { throw Failure(message: "no objects found") }

        // Pass 1: a table of the objects found directly, to read the object streams' members.
        let placeholderRoot = direct.keys.min()!
        var compressed: [Int: (stream: Int, index: Int)] = [:]
        let first = try reader(bytes, header: header, direct: direct, compressed: [:], root: placeholderRoot, decoder: decoder)
        for number in direct.keys.sorted() {
            guard case .stream(let stream)? = try? first.object(number: number),
                stream.dictionary[.type]?.nameValue == "ObjStm",
                let count = stream.dictionary["N"]?.integerValue,
                let data = try? decoder.decode(stream.data, dictionary: stream.dictionary)
            else { continue }
            let numbers = leadingIntegers(data, count: 2 * count)
            for index in 0..<(numbers.count / 2) where direct[numbers[2 * index]] == nil {
                compressed[numbers[2 * index]] = (number, index)
            }
        }

        // Pass 2: everything listed; find the catalog (the last one with a page tree).
        let second = try reader(bytes, header: header, direct: direct, compressed: compressed, root: placeholderRoot, decoder: decoder)
        var root: Int? = nil
        var info: Int? = nil
        for number in Set(direct.keys).union(compressed.keys).sorted() {
            guard let object = try? second.object(number: number), let dictionary = object.dictionaryValue else {
                continue
            }
            if dictionary[.type]?.nameValue == "Catalog", dictionary[.pages]?.referenceValue != nil { root = number }
            if dictionary[.type]?.nameValue == "XRef", let reference = dictionary[.info]?.referenceValue {
                info = reference.number
            }
        }
        guard let root else { throw Failure(message: "no catalog (/Type /Catalog with /Pages) found") }
        return appendXrefStream(to: bytes, header: header, direct: direct, compressed: compressed, root: root, info: info)
    }

    private static func reader(_ bytes: [UInt8], header: Int, direct: [Int: (offset: Int, generation: Int)],
        compressed: [Int: (stream: Int, index: Int)], root: Int, decoder: any PDFStreamDecoding) throws -> PDFTailReader
    {
        let patched = appendXrefStream(to: bytes, header: header, direct: direct, compressed: compressed, root: root, info: nil)
        return try PDFTailReader(source: PDFMemorySource(patched), decoder: decoder)
    }

    /// Every `n g obj` that starts a line (or follows whitespace), with its file offset.
    static func scanObjectHeaders(_ bytes: [UInt8]) -> [Int: (offset: Int, generation: Int)] {
        var found: [Int: (offset: Int, generation: Int)] = [:]
        let obj = Array("obj".utf8)
        var position = 0
        while let at = PDFBasicFilters.find(obj, in: bytes, from: position) {
            position = at + 3
            // After `obj`: a delimiter or whitespace, not `objx`.
            if at + 3 < bytes.count, !isDelimiterOrSpace(bytes[at + 3]) { continue }
            // Before: whitespace, generation digits, whitespace, number digits, then whitespace/start.
            var index = at - 1
            func skipSpaces() -> Bool {
                let start = index
                while index >= 0, PDFBasicFilters.isWhitespace(bytes[index]) { index -= 1 }
                return index < start
            }
            func digits() -> Int? {
                var value = 0
                var scale = 1
                let start = index
                while index >= 0, (0x30...0x39).contains(bytes[index]), start - index < 10 {
                    value += Int(bytes[index] - 0x30) * scale
                    scale *= 10
                    index -= 1
                }
                return index < start ? value : nil
            }
            guard skipSpaces(), let generation = digits(), skipSpaces(), let number = digits(), number > 0,
                index < 0 || isDelimiterOrSpace(bytes[index]), generation < 65535
            else { continue }
            found[number] = (index + 1, generation)
        }
        return found
    }

    private static func isDelimiterOrSpace(_ byte: UInt8) -> Bool {
        PDFBasicFilters.isWhitespace(byte) || Array("()<>[]{}/%".utf8).contains(byte)
    }

    /// The first `count` non-negative integers of an object stream's header.
    private static func leadingIntegers(_ data: [UInt8], count: Int) -> [Int] {
        var numbers: [Int] = []
        var current: Int? = nil
        for byte in data {
            if (0x30...0x39).contains(byte) {
                current = (current ?? 0) * 10 + Int(byte - 0x30)
                if current! > 1 << 40 { return numbers }
            } else if PDFBasicFilters.isWhitespace(byte) {
                if let value = current { numbers.append(value) }
                current = nil
                if numbers.count == count { return numbers }
            } else {
                break
            }
        }
        if let value = current, numbers.count < count { numbers.append(value) }
        return numbers
    }

    private static func appendXrefStream(to bytes: [UInt8], header: Int, direct: [Int: (offset: Int, generation: Int)],
        compressed: [Int: (stream: Int, index: Int)], root: Int, info: Int?) -> [UInt8]
    {
        let highest = max(direct.keys.max() ?? 0, compressed.keys.max() ?? 0)
        let streamNumber = highest + 1
        let size = streamNumber + 1
        var out = bytes
        out += Array("\n".utf8)
        let offset = out.count - header
        var rows: [UInt8] = []
        rows.reserveCapacity(size * 7)
        func row(_ type: UInt8, _ second: Int, _ third: Int) {
            rows.append(type)
            for shift in stride(from: 24, through: 0, by: -8) { rows.append(UInt8(truncatingIfNeeded: second >> shift)) }
            rows.append(UInt8(truncatingIfNeeded: third >> 8))
            rows.append(UInt8(truncatingIfNeeded: third))
        }
        for number in 0..<size {
            if number == streamNumber {
                row(1, offset, 0)
            } else if let entry = direct[number] {
                row(1, entry.offset, entry.generation)
            } else if let entry = compressed[number] {
                row(2, entry.stream, entry.index)
            } else {
                row(0, 0, number == 0 ? 65535 : 0)
            }
        }
        var dictionary = "<< /Type /XRef /Size \(size) /W [1 4 2] /Root \(root) \(direct[root]?.generation ?? 0) R"
        if let info { dictionary += " /Info \(info) \(direct[info]?.generation ?? 0) R" }
        dictionary += " /Length \(rows.count) >>"
        out += Array("\(streamNumber) 0 obj\n\(dictionary)\nstream\n".utf8)
        out += rows
        out += Array("\nendstream\nendobj\nstartxref\n\(offset)\n%%EOF\n".utf8)
        return out
    }
}

extension PDFBasicFilters {
    /// The first occurrence of `needle` in `bytes` at or after `from`.
    static func find(_ needle: [UInt8], in bytes: [UInt8], from: Int) -> Int? {
        guard !needle.isEmpty, bytes.count >= needle.count, from <= bytes.count - needle.count else { return nil }
        let first = needle[0]
        var index = from
        let last = bytes.count - needle.count
        while index <= last {
            if bytes[index] == first, bytes[index..<(index + needle.count)].elementsEqual(needle) { return index }
            index += 1
        }
        return nil
    }
}
