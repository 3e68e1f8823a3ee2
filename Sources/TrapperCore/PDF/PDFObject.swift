/// A PDF value (ISO 32000-1 §7.3). Values are plain data: they compare, hash, cross actors, and
/// serialize themselves (`PDFObject+Serialization.swift`).
public indirect enum PDFObject: Sendable, Hashable {
    case null
    case bool(Bool)
    case integer(Int)
    case real(Double)
    case string(PDFString)
    case name(PDFName)
    case array([PDFObject])
    case dictionary(PDFDictionary)
    case reference(PDFReference)
    /// Only ever the direct value of an indirect object; never inside an array or dictionary.
    case stream(PDFStream)
}

extension PDFObject {
    public var integerValue: Int? {
        switch self {
        case .integer(let value): return value
        case .real(let value) where value == value.rounded() && abs(value) < 1e15: return Int(value)
        default: return nil
        }
    }

    /// Integers and reals alike: PDF lets either stand where a number is expected.
    public var numberValue: Double? {
        switch self {
        case .integer(let value): return Double(value)
        case .real(let value): return value
        default: return nil
        }
    }

    public var boolValue: Bool? {
        if case .bool(let value) = self { return value }
        return nil
    }

    public var nameValue: PDFName? {
        if case .name(let name) = self { return name }
        return nil
    }

    public var referenceValue: PDFReference? {
        if case .reference(let reference) = self { return reference }
        return nil
    }

    public var arrayValue: [PDFObject]? {
        if case .array(let array) = self { return array }
        return nil
    }

    /// The dictionary of a dictionary, or of a stream.
    public var dictionaryValue: PDFDictionary? {
        switch self {
        case .dictionary(let dictionary): return dictionary
        case .stream(let stream): return stream.dictionary
        default: return nil
        }
    }

    public var streamValue: PDFStream? {
        if case .stream(let stream) = self { return stream }
        return nil
    }

    public var stringValue: PDFString? {
        if case .string(let string) = self { return string }
        return nil
    }
}

extension PDFObject: ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral, ExpressibleByBooleanLiteral,
    ExpressibleByArrayLiteral, ExpressibleByNilLiteral
{
    public init(integerLiteral value: Int) { self = .integer(value) }
    public init(floatLiteral value: Double) { self = .real(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(arrayLiteral elements: PDFObject...) { self = .array(elements) }
    public init(nilLiteral: ()) { self = .null }
}
