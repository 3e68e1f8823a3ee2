/// Where new objects of a revision go, whether held in memory (`PDFRevision`) or streamed to the
/// target as they come (so a batch of pages never sits in memory at once). Page builders and the PDF
/// importer write through this, never caring which.
public protocol PDFObjectSink {
    /// Takes the next free object number without writing anything yet (for objects that refer to
    /// each other, like a page and its parent).
    mutating func reserve() -> PDFReference
    /// Writes the object under a reserved number, or replaces an object of the base.
    mutating func set(_ reference: PDFReference, to object: PDFObject) throws
    /// Writes a stream whose data is copied from a file as it is written (`dictionary` without
    /// /Length, which is set from `data`).
    mutating func set(_ reference: PDFReference, toStream dictionary: PDFDictionary, copying data: PDFFileRange) throws
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

extension PDFObjectSink {
    /// A sink that holds its objects (a revision in memory) holds this stream's data too; only the
    /// writer that streams to the target (`PDFUpdateWriter`) copies it a chunk at a time.
    public mutating func set(_ reference: PDFReference, toStream dictionary: PDFDictionary, copying data: PDFFileRange) throws {
        try set(reference, to: .stream(PDFStream(dictionary: dictionary, data: data.read())))
    }
}

extension PDFRevision: PDFObjectSink {}
