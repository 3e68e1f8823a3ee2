/// Hanging pages that are already written (image pages, imported pages) into the page tree, for
/// the streaming engine: each page's dictionary is written with its /Parent as it comes, and the
/// root's /Kids and /Count are rewritten once at the end.
extension PDFPageTree {
    /// The page-tree root the new pages hang from, read from the target's catalog.
    public static func root(of reader: PDFTailReader) throws -> (reference: PDFReference, dictionary: PDFDictionary) {
        let catalog = try reader.catalog()
        guard let reference = catalog[.pages]?.referenceValue,
            case .dictionary(let root) = try reader.resolve(reference)
        else {
            throw PDFError.damaged(.readingPageTree, offset: 0, "catalog /Pages is not a reference to a dictionary")
        }
        // A root among its own kids is a loop that readers each resolve their own way: never appended to.
        if case .array(let kids)? = try? reader.resolve(root[.kids] ?? .null), kids.contains(.reference(reference)) {
            throw PDFError.damaged(.readingPageTree, offset: 0, "the page-tree root is among its own /Kids (a loop)")
        }
        return (reference, root)
    }

    /// Rewrites the root of an existing document with `pages` added at the end or the front.
    public static func attach(_ pages: [PDFReference], at position: PDFPagePosition, root: PDFReference,
        dictionary: PDFDictionary, reader: PDFTailReader, into sink: inout some PDFObjectSink) throws
    {
        var node = dictionary
        var kids: [PDFObject]
        var kidsHolder: PDFReference?
        switch node[.kids] {
        case .array(let array)?:
            kids = array
        case .reference(let reference)?:
            guard case .array(let array) = try reader.resolve(reference) else {
                throw PDFError.damaged(.readingPageTree, offset: 0, "page-tree root /Kids is not an array")
            }
            kids = array
            kidsHolder = reference
        default:
            throw PDFError.damaged(.readingPageTree, offset: 0, "page-tree root has no /Kids")
        }
        let declared = try reader.resolve(node[.count] ?? .integer(kids.count)).integerValue
        // One page a kid (a flat tree, however large) is trusted as it is; otherwise the root's
        // kids are read and their pages counted, so a wrong /Count is not carried forward.
        let count = declared == kids.count ? kids.count : try pagesBelow(kids, reader: reader)
        let added = pages.map(PDFObject.reference)
        kids = position == .end ? kids + added : added + kids
        if let kidsHolder {
            try sink.set(kidsHolder, to: .array(kids))
        } else {
            node[.kids] = .array(kids)
        }
        node[.count] = .integer(count + pages.count)
        try sink.set(root, to: .dictionary(node))
    }

    /// Pages under `kids`: 1 for a page, the /Count of a node (a node's own kids are not read).
    static func pagesBelow(_ kids: [PDFObject], reader: PDFTailReader) throws -> Int {
        try kids.reduce(0) { sum, kid in
            guard case .dictionary(let dictionary) = try reader.resolve(kid) else {
                throw PDFError.damaged(.readingPageTree, offset: 0, "a kid of the page-tree root is not a dictionary")
            }
            guard dictionary[.kids] != nil || dictionary[.type] == .name("Pages") else { return sum + 1 }
            guard let count = try reader.resolve(dictionary[.count] ?? .null).integerValue, (0..<Int(Int32.max)).contains(count) else {
                throw PDFError.damaged(.readingPageTree, offset: 0, "a page-tree node under the root has no valid /Count")
            }
            return sum + count
        }
    }

    /// Writes the catalog and page-tree root of a new document whose pages hang from `root`.
    public static func writeNewRoot(_ pages: [PDFReference], root: PDFReference, catalog: PDFReference,
        into sink: inout some PDFObjectSink) throws
    {
        try sink.set(root, to: .dictionary([
            .type: .name("Pages"), .kids: .array(pages.map(PDFObject.reference)), .count: .integer(pages.count),
        ]))
        try sink.set(catalog, to: .dictionary([.type: .name("Catalog"), .pages: .reference(root)]))
    }
}
