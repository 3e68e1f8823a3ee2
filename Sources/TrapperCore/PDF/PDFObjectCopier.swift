/// Copies objects of one PDF (read through its tail reader) into a revision of another, under
/// fresh numbers, each source object once however often it is reached. Streams go across as
/// stored, their filters and bytes untouched.
///
/// Pages are where a graph must stop: a reference to a page that is not being copied (a link's
/// destination, an outline item) becomes null, and a reference to one that is becomes the copy.
/// Page-tree nodes and the structure tree are never followed (/Parent, /StructParent are the
/// caller's to set or leave out).
public struct PDFObjectCopier {
    let reader: PDFTailReader
    /// Source page object → its copy's reference.
    var pages: [PDFReference: PDFReference]
    private var copied: [PDFReference: PDFReference] = [:]

    public init(reader: PDFTailReader, pages: [PDFReference: PDFReference] = [:]) {
        self.reader = reader
        self.pages = pages
    }

    /// `object` with every reference in it replaced by the reference of its copy.
    public mutating func copy<Sink: PDFObjectSink>(_ object: PDFObject, into sink: inout Sink) throws -> PDFObject {
        switch object {
        case .reference(let reference): return try copy(reference, into: &sink)
        case .array(let items): return .array(try items.map { try copy($0, into: &sink) })
        case .dictionary(let dictionary): return .dictionary(try copy(dictionary, into: &sink))
        case .stream(var stream):
            stream.dictionary = try copy(stream.dictionary, into: &sink)
            return .stream(stream)
        default: return object
        }
    }

    public mutating func copy<Sink: PDFObjectSink>(_ dictionary: PDFDictionary, into sink: inout Sink) throws -> PDFDictionary {
        var result = PDFDictionary()
        for (key, value) in dictionary where key != "Parent" && key != "StructParent" && key != "StructParents" {
            result[key] = try copy(value, into: &sink)
        }
        return result
    }

    private mutating func copy<Sink: PDFObjectSink>(_ reference: PDFReference, into sink: inout Sink) throws -> PDFObject {
        if let page = pages[reference] { return .reference(page) }
        if let done = copied[reference] { return .reference(done) }
        let object = try reader.resolve(reference)
        if let type = object.dictionaryValue?[.type]?.nameValue, type == "Page" || type == "Pages" { return .null }
        // Numbered before its contents are copied, so a cycle back to it finds the copy.
        let made = sink.reserve()
        copied[reference] = made
        try sink.set(made, to: try copy(object, into: &sink))
        return .reference(made)
    }
}
