/// One lexical token of PDF syntax (§7.2, §7.3).
enum PDFToken: Equatable, Sendable {
    case integer(Int)
    case real(Double)
    case name(PDFName)
    case string(PDFString)
    case arrayStart, arrayEnd, dictionaryStart, dictionaryEnd
    /// A bare word: true, false, null, R, obj, endobj, stream, xref, trailer, or anything else.
    case keyword([UInt8])
    case endOfInput

    func isKeyword(_ word: StaticString) -> Bool {
        guard case .keyword(let bytes) = self else { return false }
        return word.withUTF8Buffer { Array($0) == bytes }
    }
}
