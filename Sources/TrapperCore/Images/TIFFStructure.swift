/// The tag directories (IFDs) of a classic TIFF structure, as found in TIFF files and in JPEG's
/// EXIF segment. Reads only what it is asked for; every offset is checked against the data.
struct TIFFStructure {
    let data: ArraySlice<UInt8>
    let bigEndian: Bool
    let firstIFD: Int
    let format: ImageFormat

    /// `data` starts with "II*\0" or "MM\0*". Offsets inside are relative to its start.
    init(_ data: ArraySlice<UInt8>, format: ImageFormat) throws {
        self.data = data
        self.format = format
        guard data.count >= 8 else { throw ImageInputError.truncated(format, "cut off inside the TIFF header") }
        let b = data.startIndex
        switch (data[b], data[b + 1]) {
        case (0x49, 0x49): bigEndian = false
        case (0x4D, 0x4D): bigEndian = true
        default: throw ImageInputError.corrupt(format, "no TIFF byte-order mark")
        }
        let magic = Self.read16(data, b + 2, bigEndian)
        if magic == 43 { throw ImageInputError.unsupported(format, "BigTIFF files are not read") }
        guard magic == 42 else { throw ImageInputError.corrupt(format, "TIFF magic number is \(magic), not 42") }
        firstIFD = Int(Self.read32(data, b + 4, bigEndian))
    }

    struct Entry {
        var type: Int
        var count: Int
        /// Where the values are, relative to the structure's start.
        var valueOffset: Int
    }

    /// One directory: its entries by tag, and where the next one is (0 at the end).
    struct Directory {
        var entries: [Int: Entry]
        var next: Int
    }

    /// The directory at `offset`.
    func directory(at offset: Int) throws -> Directory {
        guard offset >= 8, offset + 2 <= data.count else {
            throw ImageInputError.truncated(format, "directory at offset \(offset) is past the end of the data")
        }
        let count = Int(u16(offset))
        guard offset + 2 + count * 12 + 4 <= data.count else {
            throw ImageInputError.truncated(format, "directory at offset \(offset) runs past the end of the data")
        }
        var entries: [Int: Entry] = [:]
        for index in 0..<count {
            let at = offset + 2 + index * 12
            let tag = Int(u16(at))
            let type = Int(u16(at + 2))
            let valueCount = Int(u32(at + 4))
            guard let size = Self.typeSize[type] else { continue }  // unknown types are skipped, as TIFF says
            let (total, overflow) = valueCount.multipliedReportingOverflow(by: size)
            guard !overflow else { throw ImageInputError.corrupt(format, "tag \(tag) claims \(valueCount) values") }
            let valueOffset = total <= 4 ? at + 8 : Int(u32(at + 8))
            guard valueOffset + total <= data.count else {
                throw ImageInputError.truncated(format, "tag \(tag) points past the end of the data")
            }
            entries[tag] = Entry(type: type, count: valueCount, valueOffset: valueOffset)
        }
        return Directory(entries: entries, next: Int(u32(offset + 2 + count * 12)))
    }

    /// Every directory in the chain from the first, stopping at a loop; at most `limit` of them.
    func allDirectories(limit: Int = 10_000) throws -> [Directory] {
        var directories: [Directory] = []
        var seen: Set<Int> = []
        var offset = firstIFD
        while offset != 0, seen.insert(offset).inserted, directories.count < limit {
            let directory = try self.directory(at: offset)
            directories.append(directory)
            offset = directory.next
        }
        return directories
    }

    /// The integer values of `tag` (BYTE, SHORT, LONG and their signed forms), or nil.
    func integers(_ tag: Int, in directory: Directory) -> [Int]? {
        guard let entry = directory.entries[tag] else { return nil }
        let at = entry.valueOffset
        switch entry.type {
        case 1, 7: return (0..<entry.count).map { Int(data[data.startIndex + at + $0]) }
        case 6: return (0..<entry.count).map { Int(Int8(bitPattern: data[data.startIndex + at + $0])) }
        case 3: return (0..<entry.count).map { Int(u16(at + 2 * $0)) }
        case 8: return (0..<entry.count).map { Int(Int16(bitPattern: u16(at + 2 * $0))) }
        case 4: return (0..<entry.count).map { Int(u32(at + 4 * $0)) }
        case 9: return (0..<entry.count).map { Int(Int32(bitPattern: u32(at + 4 * $0))) }
        default: return nil
        }
    }

    func integer(_ tag: Int, in directory: Directory) -> Int? { integers(tag, in: directory)?.first }

    /// The first value of a RATIONAL (or integer) tag as a Double.
    func number(_ tag: Int, in directory: Directory) -> Double? {
        guard let entry = directory.entries[tag], entry.count >= 1 else { return nil }
        switch entry.type {
        case 5:
            let denominator = u32(entry.valueOffset + 4)
            return denominator == 0 ? nil : Double(u32(entry.valueOffset)) / Double(denominator)
        case 10:
            let denominator = Int32(bitPattern: u32(entry.valueOffset + 4))
            return denominator == 0 ? nil : Double(Int32(bitPattern: u32(entry.valueOffset))) / Double(denominator)
        default:
            return integer(tag, in: directory).map(Double.init)
        }
    }

    /// X/YResolution with ResolutionUnit (1 none, 2 inch, 3 centimetre; inch when absent).
    func resolution(in directory: Directory) -> ImageResolution? {
        guard let x = number(282, in: directory), let y = number(283, in: directory) else { return nil }
        let unit: ImageResolution.Unit
        switch integer(296, in: directory) ?? 2 {
        case 1: unit = .none
        case 3: unit = .centimetre
        default: unit = .inch
        }
        return ImageResolution.stated(x: x, y: y, unit: unit)
    }

    private func u16(_ offset: Int) -> UInt16 { Self.read16(data, data.startIndex + offset, bigEndian) }
    private func u32(_ offset: Int) -> UInt32 { Self.read32(data, data.startIndex + offset, bigEndian) }

    static func read16(_ data: ArraySlice<UInt8>, _ at: Int, _ bigEndian: Bool) -> UInt16 {
        let a = UInt16(data[at]), b = UInt16(data[at + 1])
        return bigEndian ? a << 8 | b : b << 8 | a
    }

    static func read32(_ data: ArraySlice<UInt8>, _ at: Int, _ bigEndian: Bool) -> UInt32 {
        let a = UInt32(read16(data, at, bigEndian)), b = UInt32(read16(data, at + 2, bigEndian))
        return bigEndian ? a << 16 | b : b << 16 | a
    }

    /// Bytes per value of each TIFF 6.0 field type.
    static let typeSize: [Int: Int] = [1: 1, 2: 1, 3: 2, 4: 4, 5: 8, 6: 1, 7: 1, 8: 2, 9: 4, 10: 8, 11: 4, 12: 8, 13: 4]
}
