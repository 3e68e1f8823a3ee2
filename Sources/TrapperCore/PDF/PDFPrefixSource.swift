/// The first `length` bytes of another source: the file as it was before later revisions were
/// appended. Reading a revision's history walks back through such prefixes.
public struct PDFPrefixSource: PDFByteSource {
    public let source: any PDFByteSource
    public let length: Int

    public init(_ source: any PDFByteSource, length: Int) {
        self.source = source
        self.length = min(length, source.length)
    }

    public func read(offset: Int, count: Int) throws -> [UInt8] {
        guard offset < length else { return [] }
        return try source.read(offset: offset, count: min(count, length - offset))
    }
}
