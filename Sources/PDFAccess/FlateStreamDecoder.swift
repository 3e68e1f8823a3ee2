import TrapperCore

/// Undoes a stream's /Filter chain for `PDFTailReader`: /FlateDecode through zlib (`ZlibFlate`), with
/// /DecodeParms PNG (10–15) and TIFF (2) predictors, and the other general-purpose filters PDF
/// writers put before or after it (/LZWDecode, /ASCIIHexDecode, /ASCII85Decode, /RunLengthDecode,
/// an identity /Crypt). Image-only filters (/DCTDecode, /CCITTFaxDecode, /JBIG2Decode, /JPXDecode)
/// and anything else are `PDFError.unsupportedFilter`: xref and object streams never use them.
///
/// Every stage stops at `limit` bytes of output, so a Flate (or LZW, or run-length) bomb costs at
/// most that much memory.
public struct FlateStreamDecoder: PDFStreamDecoding {
    public var flate: any FlateCoding
    public var limit: Int

    public static let defaultLimit = 256 * 1024 * 1024

    public init(flate: any FlateCoding = ZlibFlate(), limit: Int = FlateStreamDecoder.defaultLimit) {
        self.flate = flate
        self.limit = limit
    }

    public func decode(_ data: [UInt8], dictionary: PDFDictionary) throws -> [UInt8] {
        let filters: [PDFName]
        var parameters: [PDFDictionary?]
        switch dictionary[.filter] {
        case nil, .null?:
            return data
        case .name(let name)?:
            filters = [name]
            parameters = [try Self.parameterDictionary(dictionary["DecodeParms"] ?? dictionary["DP"])]
        case .array(let items)?:
            filters = try items.map {
                guard let name = $0.nameValue else {
                    throw PDFError.unsupportedFilter(.decodingStream, offset: 0, "/Filter array holds a non-name")
                }
                return name
            }
            switch dictionary["DecodeParms"] ?? dictionary["DP"] {
            case .array(let items)?: parameters = try items.map(Self.parameterDictionary)
            case let single?: parameters = [try Self.parameterDictionary(single)]
            case nil: parameters = []
            }
        case let other?:
            throw PDFError.unsupportedFilter(.decodingStream, offset: 0, "/Filter is \(Self.kind(other)), not a name")
        }
        parameters += Array(repeating: nil, count: max(0, filters.count - parameters.count))

        var bytes = data
        for (filter, parms) in zip(filters, parameters) {
            switch filter.string {
            case "FlateDecode", "Fl":
                do {
                    bytes = try flate.inflate(bytes, limit: limit)
                } catch let error as FlateError {
                    throw PDFError.damaged(.decodingStream, offset: 0, error.description)
                }
                bytes = try PDFPredictor.undo(bytes, PDFPredictor.Parameters(parms))
            case "LZWDecode", "LZW":
                bytes = try PDFBasicFilters.lzw(bytes, earlyChange: parms?["EarlyChange"]?.integerValue ?? 1, limit: limit)
                bytes = try PDFPredictor.undo(bytes, PDFPredictor.Parameters(parms))
            case "ASCIIHexDecode", "AHx":
                bytes = try PDFBasicFilters.asciiHex(bytes)
            case "ASCII85Decode", "A85":
                bytes = try PDFBasicFilters.ascii85(bytes)
            case "RunLengthDecode", "RL":
                bytes = try PDFBasicFilters.runLength(bytes, limit: limit)
            case "Crypt" where parms?["Name"] == nil || parms?["Name"] == .name("Identity"):
                continue
            default:
                throw PDFError.unsupportedFilter(.decodingStream, offset: 0, filter.description)
            }
        }
        return bytes
    }

    private static func parameterDictionary(_ object: PDFObject?) throws -> PDFDictionary? {
        switch object {
        case nil, .null?: return nil
        case .dictionary(let dictionary)?: return dictionary
        case let other?:
            // An indirect /DecodeParms cannot be resolved here; guessing the defaults would
            // silently decode garbage.
            throw PDFError.unsupportedFilter(.decodingStream, offset: 0, "/DecodeParms is \(kind(other))")
        }
    }

    private static func kind(_ object: PDFObject) -> String {
        switch object {
        case .reference(let reference): return "a reference (\(reference))"
        case .array: return "an array"
        case .dictionary: return "a dictionary"
        default: return "not a dictionary"
        }
    }
}

/// The small general-purpose filters of §7.4, in pure Swift.
enum PDFBasicFilters {
    static func damaged(_ message: String) -> PDFError { PDFError.damaged(.decodingStream, offset: 0, message) }

    static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 || byte == 0x0C || byte == 0x00
    }

    /// /ASCIIHexDecode: pairs of hex digits up to `>`; whitespace ignored; an odd last digit is
    /// followed by an implied 0.
    static func asciiHex(_ data: [UInt8]) throws -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(data.count / 2)
        var high: UInt8? = nil
        for byte in data {
            if byte == UInt8(ascii: ">") { break }
            if isWhitespace(byte) { continue }
            let value: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): value = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): value = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): value = byte - UInt8(ascii: "A") + 10
            default: throw damaged("ASCIIHexDecode: byte \(byte) is not a hex digit")
            }
            if let h = high {
                out.append(h << 4 | value)
                high = nil
            } else {
                high = value
            }
        }
        if let h = high { out.append(h << 4) }
        return out
    }

    /// /ASCII85Decode: groups of five `!`…`u` digits, `z` for four zeros, up to `~>`.
    static func ascii85(_ data: [UInt8]) throws -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(data.count * 4 / 5)
        var group: [UInt32] = []
        func flush(_ digits: [UInt32]) throws {
            var padded = digits
            while padded.count < 5 { padded.append(84) }
            var value: UInt64 = 0
            for digit in padded { value = value * 85 + UInt64(digit) }
            guard value <= UInt64(UInt32.max) else { throw damaged("ASCII85Decode: group out of range") }
            let bytes = [UInt8(value >> 24 & 0xFF), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
            out.append(contentsOf: bytes[..<(digits.count - 1)])
        }
        var index = 0
        // An optional `<~` prefix (PostScript style) is tolerated.
        if data.starts(with: [UInt8(ascii: "<"), UInt8(ascii: "~")]) { index = 2 }
        while index < data.count {
            let byte = data[index]
            index += 1
            if byte == UInt8(ascii: "~") { break }
            if isWhitespace(byte) { continue }
            if byte == UInt8(ascii: "z") && group.isEmpty {
                out.append(contentsOf: [0, 0, 0, 0])
                continue
            }
            guard byte >= UInt8(ascii: "!"), byte <= UInt8(ascii: "u") else {
                throw damaged("ASCII85Decode: byte \(byte) is not a base-85 digit")
            }
            group.append(UInt32(byte - UInt8(ascii: "!")))
            if group.count == 5 {
                try flush(group)
                group = []
            }
        }
        if group.count == 1 { throw damaged("ASCII85Decode: a final group of one digit") }
        if group.count > 1 { try flush(group) }
        return out
    }

    /// /RunLengthDecode: length byte n, then n+1 literal bytes (n < 128) or one byte repeated
    /// 257-n times (n > 128); 128 ends the data.
    static func runLength(_ data: [UInt8], limit: Int) throws -> [UInt8] {
        var out: [UInt8] = []
        var index = 0
        while index < data.count {
            let length = Int(data[index])
            index += 1
            if length == 128 { break }
            if length < 128 {
                let end = min(data.count, index + length + 1)
                out.append(contentsOf: data[index..<end])
                index = end
            } else {
                guard index < data.count else { break }
                out.append(contentsOf: repeatElement(data[index], count: 257 - length))
                index += 1
            }
            guard out.count <= limit else { throw damaged("RunLengthDecode: data expands past \(limit) bytes") }
        }
        return out
    }

    /// /LZWDecode (§7.4.4.2): 9- to 12-bit codes, 256 clears the table, 257 ends the data;
    /// with /EarlyChange 1 (the default) code widths grow one code early.
    static func lzw(_ data: [UInt8], earlyChange: Int, limit: Int) throws -> [UInt8] {
        var table: [[UInt8]] = (0..<256).map { [UInt8($0)] } + [[], []]
        var out: [UInt8] = []
        var width = 9
        var previous: [UInt8]? = nil
        var bitBuffer: UInt32 = 0
        var bitCount = 0
        var index = 0
        let early = earlyChange == 0 ? 0 : 1
        while true {
            while bitCount < width {
                guard index < data.count else { return out }
                bitBuffer = bitBuffer << 8 | UInt32(data[index])
                index += 1
                bitCount += 8
            }
            let code = Int(bitBuffer >> UInt32(bitCount - width)) & ((1 << width) - 1)
            bitCount -= width
            bitBuffer &= (1 << UInt32(bitCount)) &- 1
            if code == 256 {
                table.removeSubrange(258...)
                width = 9
                previous = nil
                continue
            }
            if code == 257 { return out }
            let entry: [UInt8]
            if code < table.count {
                entry = table[code]
                if let previous, table.count < 4096 { table.append(previous + [entry[0]]) }
            } else if code == table.count, let previous {
                entry = previous + [previous[0]]
                table.append(entry)
            } else {
                throw damaged("LZWDecode: code \(code) not in the table")
            }
            out.append(contentsOf: entry)
            guard out.count <= limit else { throw damaged("LZWDecode: data expands past \(limit) bytes") }
            previous = entry
            if table.count + early >= 1 << width, width < 12 { width += 1 }
        }
    }
}
