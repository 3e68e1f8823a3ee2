/// Where new objects of a revision go, whether held in memory (`PDFRevision`) or streamed to the
/// target as they come (so a batch of pages never sits in memory at once). Page builders and the PDF
/// importer write through this, never caring which.
public protocol PDFObjectSink {
    /// Takes the next free object number without writing anything yet (for objects that refer to
    /// each other, like a page and its parent).
    mutating func reserve() -> PDFReference
    /// Writes the object under a reserved number, or replaces an object of the base.
    mutating func set(_ reference: PDFReference, to object: PDFObject) throws
}

extension PDFObjectSink {
    /// Writes a new object under the next free number.
    @discardableResult
    public mutating func add(_ object: PDFObject) throws -> PDFReference {
        let reference = reserve()
        try set(reference, to: object)
        return reference
    }
}

extension PDFRevision: PDFObjectSink {}
