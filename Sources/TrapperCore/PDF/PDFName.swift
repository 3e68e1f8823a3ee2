/// A PDF name (§7.3.5), held as its decoded bytes: `/A#20B` is the three bytes `A B`.
public struct PDFName: Sendable, Hashable, ExpressibleByStringLiteral, CustomStringConvertible {
    public var bytes: [UInt8]

    public init(bytes: [UInt8]) { self.bytes = bytes }
    public init(_ string: String) { self.bytes = Array(string.utf8) }
    public init(stringLiteral value: String) { self.init(value) }

    public var string: String { String(decoding: bytes, as: UTF8.self) }
    public var description: String { "/" + string }

    // The names this module itself looks at, spelled once.
    public static let type: PDFName = "Type"
    public static let length: PDFName = "Length"
    public static let filter: PDFName = "Filter"
    public static let size: PDFName = "Size"
    public static let root: PDFName = "Root"
    public static let info: PDFName = "Info"
    public static let id: PDFName = "ID"
    public static let prev: PDFName = "Prev"
    public static let encrypt: PDFName = "Encrypt"
    public static let xrefStm: PDFName = "XRefStm"
    public static let pages: PDFName = "Pages"
    public static let kids: PDFName = "Kids"
    public static let count: PDFName = "Count"
}
