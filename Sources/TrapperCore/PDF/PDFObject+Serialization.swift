/// Serialization of values, byte for byte per §7.3. Every value writes itself into a caller's
/// buffer; delimiters are added only where the grammar needs them.
extension PDFObject {
    public var serialized: [UInt8] {
        var buffer: [UInt8] = []
        buffer.reserveCapacity(64)
        write(to: &buffer)
        return buffer
    }

    public func write(to buffer: inout [UInt8]) {
        switch self {
        case .null: buffer.appendASCII("null")
        case .bool(let value): value ? buffer.appendASCII("true") : buffer.appendASCII("false")
        case .integer(let value): buffer.appendDecimal(value)
        case .real(let value): PDFReal.write(value, to: &buffer)
        case .string(let string): string.write(to: &buffer)
        case .name(let name): name.write(to: &buffer)
        case .reference(let reference): reference.write(to: &buffer)
        case .dictionary(let dictionary): dictionary.write(to: &buffer)
        case .stream(let stream): stream.write(to: &buffer)
        case .array(let items):
            buffer.append(UInt8(ascii: "["))
            for (index, item) in items.enumerated() {
                if index > 0 { buffer.append(0x20) }
                item.write(to: &buffer)
            }
            buffer.append(UInt8(ascii: "]"))
        }
    }
}

extension PDFName {
    /// `/` then the bytes; anything outside `!`...`~`, delimiters and `#` as `#xx` (§7.3.5).
    public func write(to buffer: inout [UInt8]) {
        buffer.append(UInt8(ascii: "/"))
        for byte in bytes {
            if byte < 0x21 || byte > 0x7E || byte == UInt8(ascii: "#") || PDFBytes.isDelimiter(byte) {
                buffer.append(UInt8(ascii: "#"))
                buffer.append(PDFBytes.hexDigits[Int(byte >> 4)])
                buffer.append(PDFBytes.hexDigits[Int(byte & 0x0F)])
            } else {
                buffer.append(byte)
            }
        }
    }
}

extension PDFString {
    /// Literal form escapes `\`, both parentheses and control bytes, so it never depends on
    /// balance and survives any end-of-line conversion; bytes >= 0x80 are written as they are.
    public func write(to buffer: inout [UInt8]) {
        switch form {
        case .hex:
            buffer.append(UInt8(ascii: "<"))
            for byte in bytes {
                buffer.append(PDFBytes.hexDigits[Int(byte >> 4)])
                buffer.append(PDFBytes.hexDigits[Int(byte & 0x0F)])
            }
            buffer.append(UInt8(ascii: ">"))
        case .literal:
            buffer.append(UInt8(ascii: "("))
            for byte in bytes {
                switch byte {
                case UInt8(ascii: "("), UInt8(ascii: ")"), UInt8(ascii: "\\"):
                    buffer.append(UInt8(ascii: "\\"))
                    buffer.append(byte)
                case 0x0A: buffer.appendASCII("\\n")
                case 0x0D: buffer.appendASCII("\\r")
                case 0x09: buffer.appendASCII("\\t")
                case 0x08: buffer.appendASCII("\\b")
                case 0x0C: buffer.appendASCII("\\f")
                case 0x00..<0x20, 0x7F:
                    buffer.append(UInt8(ascii: "\\"))
                    buffer.append(0x30 + (byte >> 6))
                    buffer.append(0x30 + ((byte >> 3) & 7))
                    buffer.append(0x30 + (byte & 7))
                default:
                    buffer.append(byte)
                }
            }
            buffer.append(UInt8(ascii: ")"))
        }
    }
}

extension PDFReference {
    public func write(to buffer: inout [UInt8]) {
        buffer.appendDecimal(number)
        buffer.append(0x20)
        buffer.appendDecimal(generation)
        buffer.appendASCII(" R")
    }
}

extension PDFDictionary {
    public func write(to buffer: inout [UInt8]) {
        buffer.appendASCII("<<")
        for (key, value) in self {
            key.write(to: &buffer)
            buffer.append(0x20)
            value.write(to: &buffer)
        }
        buffer.appendASCII(">>")
    }
}

extension PDFStream {
    /// Dictionary (with /Length set from the data), `stream` EOL, data, EOL `endstream`.
    public func write(to buffer: inout [UInt8]) {
        var dictionary = dictionary
        dictionary[.length] = .integer(data.count)
        dictionary.write(to: &buffer)
        buffer.appendASCII(Self.dataStart)
        buffer.append(contentsOf: data)
        buffer.appendASCII(Self.dataEnd)
    }

    /// What comes between a stream's dictionary and its data, and after its data; spelled once for
    /// the writer that copies a stream's data from a file (`PDFUpdateWriter.set(_:toStream:copying:)`).
    static let dataStart: StaticString = "\nstream\n"
    static let dataEnd: StaticString = "\nendstream"
}
