/// Adding pages by rewriting only the page-tree root (§7.7.3): new page objects hang directly
/// off the root, whose /Kids and /Count change; no existing page is touched, so the cost does not
/// grow with the page count. (A root with very many /Kids is rewritten whole each time; a later
/// version could hang new pages under a fresh intermediate node instead.)
public enum PDFPageTree {
    /// Adds `pages` to the document `reader` reads, into `revision`; returns the new pages'
    /// references in document order.
    @discardableResult
    public static func addPages(
        _ pages: [PDFNewPage], at position: PDFPagePosition, reader: PDFTailReader, to revision: inout PDFRevision
    ) throws -> [PDFReference] {
        let (rootReference, root) = try Self.root(of: reader)
        let added = pages.map { addPage($0, parent: rootReference, root: root, to: &revision) }
        try attach(added, at: position, root: rootReference, dictionary: root, reader: reader, into: &revision)
        return added
    }

    /// A brand-new document holding `pages`: catalog, page-tree root, pages, written from scratch
    /// by the same writer as every update.
    public static func newDocument(_ pages: [PDFNewPage], version: String = "1.7", info: PDFDictionary? = nil)
        -> PDFRevision
    {
        var revision = PDFRevision(newFileVersion: version)
        let catalog = revision.reserve()
        let rootReference = revision.reserve()
        let root: PDFDictionary = [.type: .name("Pages"), .kids: [], .count: 0]
        let added = pages.map { addPage($0, parent: rootReference, root: root, to: &revision) }
        revision.set(catalog, to: .dictionary([.type: .name("Catalog"), .pages: .reference(rootReference)]))
        revision.set(
            rootReference,
            to: .dictionary([
                .type: .name("Pages"), .kids: .array(added.map(PDFObject.reference)), .count: .integer(added.count),
            ]))
        revision.root = catalog
        if let info { revision.info = revision.add(.dictionary(info)) }
        return revision
    }

    /// A page with its own /MediaBox and /Resources (and /CropBox, /Rotate when the root has
    /// them), so nothing is inherited from the root by accident (§7.7.3.4).
    private static func addPage(_ page: PDFNewPage, parent: PDFReference, root: PDFDictionary,
        to revision: inout PDFRevision) -> PDFReference
    {
        let contents = revision.add(.stream(page.contents))
        let mediaBox = PDFObject.array(page.mediaBox.map(number))
        var dictionary: PDFDictionary = [
            .type: .name("Page"), "Parent": .reference(parent), "MediaBox": mediaBox,
            "Resources": .dictionary(page.resources), "Contents": .reference(contents),
        ]
        if root["CropBox"] != nil { dictionary["CropBox"] = mediaBox }
        if page.rotate != 0 || root["Rotate"] != nil { dictionary["Rotate"] = .integer(page.rotate) }
        return revision.add(.dictionary(dictionary))
    }

    /// Whole numbers as integers (`612`, not `612.0`): smaller, and what every writer does.
    static func number(_ value: Double) -> PDFObject {
        if value == value.rounded(), abs(value) < 1e15 { return .integer(Int(value)) }
        return .real(value)
    }
}
