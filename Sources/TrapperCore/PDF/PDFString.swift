/// A PDF string (§7.3.4): arbitrary bytes, plus the form it is written in. The form is a
/// presentation choice only; two strings with equal bytes are equal.
public struct PDFString: Sendable, Hashable, CustomStringConvertible {
    public enum Form: Sendable { case literal, hex }

    public var bytes: [UInt8]
    public var form: Form

    public init(bytes: [UInt8], form: Form = .literal) {
        self.bytes = bytes
        self.form = form
    }

    public init(_ text: String, form: Form = .literal) {
        self.init(bytes: Array(text.utf8), form: form)
    }

    public static func == (lhs: PDFString, rhs: PDFString) -> Bool { lhs.bytes == rhs.bytes }
    public func hash(into hasher: inout Hasher) { hasher.combine(bytes) }

    public var description: String { String(decoding: bytes, as: UTF8.self) }
}
