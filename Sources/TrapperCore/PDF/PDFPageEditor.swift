/// The page tree of a target, loaded from its tail, edited in memory, written as part of one
/// revision (an incremental update: the bytes already in the file stay as they are).
///
/// **Indexes** are 0-based and always mean the document as it stands after the edits made so
/// far, as an edit script's page numbers do (script page n is index n - 1). Lists of indexes may
/// come in any order; repeats count once.
///
/// **Cost** follows the edit, not the document: nodes are read only on the way down to a page an
/// edit touches, a node with one page per kid leaves its kids unread (see `PDFPageTreeState`), and
/// `write` rewrites only what changed: touched pages, pages whose parent changed, nodes whose
/// /Kids or /Count changed (so /Count stays right up to the root, whose object number never
/// changes), the catalog and /Info when touched.
///
/// **Inheritance** (§7.7.3.4): /Resources, /MediaBox, /CropBox and /Rotate may come from a page's
/// ancestors. A page that ends up under another parent (moved, or a copy) gets, written into its
/// own dictionary, every inherited value that would differ there, so it looks exactly as before.
///
/// **Deleted pages** only leave the tree; their objects stay in earlier revisions (which is what
/// makes undo a truncation). Links and outline items that point to them are left as they are.
///
/// Every edit checks all it needs before it changes anything: an edit that throws a
/// `PDFPageEditError` leaves the editor as it was.
public struct PDFPageEditor {
    var tree: PDFPageTreeState
    var info: InfoEdit?
    var outline: OutlineEdit?

    public init(reader: PDFTailReader) throws {
        tree = try Self.wrapping(.open) { try PDFPageTreeState(reader: reader) }
    }

    public var pageCount: Int { tree.pageCount }

    /// Whether `write` has anything to write: an edit that changed nothing (an erase that matched
    /// no annotation, a move to where the pages stand) leaves no trace.
    public var hasChanges: Bool {
        info != nil || outline != nil || tree.nodes.contains { $0.changed }
            || tree.pages.contains { $0.parent != nil && ($0.changed || $0.reference == nil || $0.parent != $0.origin || !$0.rewritten.isEmpty) }
    }

    // MARK: Questions

    /// The page's effective /MediaBox, normalized to [x0 y0 x1 y1] with x0 < x1 and y0 < y1, in
    /// default user space; US Letter for a page that has none anywhere, as readers show it.
    public func mediaBox(ofPage index: Int) throws -> [Double] {
        let page = try located(index, .readPage)
        return try Self.wrapping(.readPage, page: index) { try mediaBox(of: page) }
    }

    /// The page's effective /CropBox (the visible area), clipped to the media box as readers
    /// do; the media box when the page has none.
    public func cropBox(ofPage index: Int) throws -> [Double] {
        let page = try located(index, .readPage)
        return try Self.wrapping(.readPage, page: index) { try cropBox(of: page) }
    }

    /// The page's effective /Rotate: 0, 90, 180 or 270 (a value that is not a multiple of 90
    /// counts as 0, as readers take it).
    public func rotation(ofPage index: Int) throws -> Int {
        let page = try located(index, .readPage)
        return try Self.wrapping(.readPage, page: index) { try rotation(of: page) }
    }

    // MARK: Edits

    /// Turns pages clockwise: `degrees` (any multiple of 90, negative too) is added to /Rotate.
    public mutating func rotate(_ indexes: [Int], by degrees: Int) throws {
        guard degrees % 90 == 0 else { throw PDFPageEditError(.rotate, .notARightAngle(degrees: degrees)) }
        makeUnique()
        let pages = try located(indexes, .rotate)
        guard degrees % 360 != 0 else { return }
        let turned = try pages.map { index, page in
            try Self.wrapping(.rotate, page: index) { (page, Self.normalized(try rotation(of: page) + degrees)) }
        }
        for (page, rotation) in turned {
            tree.pages[page].dictionary["Rotate"] = .integer(rotation)
            tree.pages[page].changed = true
        }
    }

    /// Takes pages out of the tree. Refuses to take them all.
    public mutating func delete(_ indexes: [Int]) throws {
        try checkRange(indexes, .delete)
        guard Set(indexes).count < pageCount else {
            throw PDFPageEditError(.delete, .wouldDeleteEveryPage(pageCount: pageCount))
        }
        makeUnique()
        for (_, page) in try located(indexes, .delete) { tree.detach(page) }
    }

    /// Moves pages, keeping their document order, to stand right before the page now at `index`
    /// (counted before the move; `nil` or `pageCount`: to the end). When that page moves too, they
    /// go before the first page after it that stays.
    public mutating func move(_ indexes: [Int], before index: Int?) throws {
        try checkRange(indexes, .move)
        if let index, !(0...pageCount).contains(index) {
            throw PDFPageEditError(.move, page: index, .outOfRange(pageCount: pageCount))
        }
        let moving = Set(indexes).sorted()
        guard let first = moving.first, let last = moving.last else { return }
        let anchorIndex = ((index ?? pageCount)..<pageCount).first { !moving.contains($0) }
        // Already standing there, in that order: nothing to write.
        if last - first + 1 == moving.count, (anchorIndex ?? pageCount) == last + 1 { return }
        makeUnique()
        let pages = try located(moving, .move).map(\.page)
        // Everything is read before the tree changes: the page they go before, or the last that stays.
        let anchor = try anchorIndex.map { (page: try located($0, .move), after: false) }
            ?? (page: located((0..<pageCount).last { !moving.contains($0) }!, .move), after: true)
        for page in pages { tree.detach(page) }
        let (node, position) = tree.position(of: anchor.page)
        let start = anchor.after ? position + 1 : position
        for (offset, page) in pages.enumerated() { tree.attach(page, to: node, at: start + offset) }
    }

    /// A blank page (no content, no resources) `width` × `height` points, so that it becomes
    /// page `index` (0: at the front; `pageCount`: at the end). A script's "after page n" is `n`.
    public mutating func insertBlank(at index: Int, width: Double, height: Double) throws {
        guard (0...pageCount).contains(index) else {
            throw PDFPageEditError(.insertBlank, page: index, .outOfRange(pageCount: pageCount))
        }
        guard width.isFinite, height.isFinite, (3...14400).contains(width), (3...14400).contains(height) else {
            throw PDFPageEditError(.insertBlank, page: index, .badPageSize(width: width, height: height))
        }
        makeUnique()
        let blank: PDFDictionary = [
            .type: .name("Page"),
            "MediaBox": [0, 0, PDFPageTree.number(width), PDFPageTree.number(height)],
            "Resources": .dictionary([:]),
        ]
        // A document of no pages (a file whose page tree was rebuilt empty) takes it at its root.
        guard pageCount > 0 else { return tree.attach(tree.makePage(blank, origin: nil), to: tree.root, at: 0) }
        // Before the page now at `index`, or after the last one.
        let neighbour = try located(min(index, pageCount - 1), .insertBlank)
        let (node, position) = tree.position(of: neighbour)
        tree.attach(tree.makePage(blank, origin: nil), to: node, at: index < pageCount ? position : position + 1)
    }

    /// Puts a copy of each page right after it: a new page object that shares the original's
    /// content streams and resources (objects are never changed in place, so sharing is safe), with
    /// its own copies of the original's annotations (form-field widgets and popups left out: a
    /// field's widget belongs to one page).
    public mutating func duplicate(_ indexes: [Int]) throws {
        makeUnique()
        let pages = try located(indexes, .duplicate)
        let copies = try pages.map { index, page in
            try Self.wrapping(.duplicate, page: index) { try copy(of: page) }
        }
        for ((_, page), copy) in zip(pages, copies) {
            let (node, position) = tree.position(of: page)
            let made = tree.makePage(copy.dictionary, origin: tree.pages[page].origin, annotations: copy.annotations)
            tree.attach(made, to: node, at: position + 1)
        }
    }

    /// Sets the visible area (/CropBox) of pages to `box`, [x0 y0 x1 y1] in default user space
    /// (corners in any order); it must have an area and lie inside each page's media box.
    public mutating func crop(_ indexes: [Int], to box: [Double]) throws {
        guard box.count == 4, box.allSatisfy(\.isFinite) else { throw PDFPageEditError(.crop, .badBox(box)) }
        let normal = Self.normalized(box)
        guard normal[2] > normal[0], normal[3] > normal[1] else { throw PDFPageEditError(.crop, .emptyBox(box)) }
        makeUnique()
        let pages = try located(indexes, .crop)
        for (index, page) in pages {
            let media = try Self.wrapping(.crop, page: index) { try mediaBox(of: page) }
            let slack = 1e-6 * max(1, media.map(\.magnitude).max() ?? 1)
            guard normal[0] >= media[0] - slack, normal[1] >= media[1] - slack,
                  normal[2] <= media[2] + slack, normal[3] <= media[3] + slack
            else { throw PDFPageEditError(.crop, page: index, .outsideMediaBox(normal, mediaBox: media)) }
        }
        for (_, page) in pages {
            tree.pages[page].dictionary["CropBox"] = .array(normal.map(PDFPageTree.number))
            tree.pages[page].changed = true
        }
    }

    // MARK: Helpers

    /// Copy-on-write: a copied editor never sees the other's edits.
    mutating func makeUnique() {
        if !isKnownUniquelyReferenced(&tree) { tree = tree.copy() }
    }

    func checkRange(_ indexes: [Int], _ operation: PDFPageEditError.Operation) throws {
        if let bad = indexes.first(where: { !(0..<pageCount).contains($0) }) {
            throw PDFPageEditError(operation, page: bad, .outOfRange(pageCount: pageCount))
        }
    }

    /// The page at `index`, read (with the nodes above it) if it was not yet.
    func located(_ index: Int, _ operation: PDFPageEditError.Operation) throws -> Int {
        try checkRange([index], operation)
        return try Self.wrapping(operation, page: index) { try tree.locate(index).page }
    }

    /// The pages at `indexes`, each once, in document order.
    func located(_ indexes: [Int], _ operation: PDFPageEditError.Operation) throws -> [(index: Int, page: Int)] {
        try checkRange(indexes, operation)
        return try Set(indexes).sorted().map { ($0, try located($0, operation)) }
    }

    /// Runs `body`, naming `operation` and `page` in what it throws.
    static func wrapping<T>(_ operation: PDFPageEditError.Operation, page: Int? = nil, _ body: () throws -> T)
        throws -> T
    {
        do {
            return try body()
        } catch let error as PDFError {
            throw PDFPageEditError(operation, page: page, .unreadable(error))
        } catch var error as PDFPageEditError {
            error.operation = operation
            error.page = error.page ?? page
            throw error
        }
    }

    func mediaBox(of page: Int) throws -> [Double] {
        try box(tree.effective("MediaBox", of: page)) ?? box(PDFPageTreeState.defaultMediaBox)!
    }

    func cropBox(of page: Int) throws -> [Double] {
        let media = try mediaBox(of: page)
        guard let crop = try box(tree.effective("CropBox", of: page)) else { return media }
        let clipped = [max(crop[0], media[0]), max(crop[1], media[1]), min(crop[2], media[2]), min(crop[3], media[3])]
        return clipped[2] > clipped[0] && clipped[3] > clipped[1] ? clipped : media
    }

    func rotation(of page: Int) throws -> Int {
        guard let value = try tree.effective("Rotate", of: page).map(tree.reader.resolve) else { return 0 }
        return Self.normalized(value.integerValue ?? 0)
    }

    /// A rectangle as four numbers, lower-left first; nil when absent or not a rectangle.
    func box(_ object: PDFObject?) throws -> [Double]? {
        guard let object, let items = try tree.reader.resolve(object).arrayValue, items.count == 4 else { return nil }
        let numbers = try items.compactMap { try tree.reader.resolve($0).numberValue }
        return numbers.count == 4 && numbers.allSatisfy(\.isFinite) ? Self.normalized(numbers) : nil
    }

    static func normalized(_ box: [Double]) -> [Double] {
        [min(box[0], box[2]), min(box[1], box[3]), max(box[0], box[2]), max(box[1], box[3])]
    }

    static func normalized(_ rotation: Int) -> Int {
        rotation % 90 == 0 ? (rotation % 360 + 360) % 360 : 0
    }

    /// What a copy of a page holds: the original's own entries minus those tying it to one place
    /// in the document's structure (/StructParents, article beads), and its annotations to copy.
    func copy(of page: Int) throws -> (dictionary: PDFDictionary, annotations: [PDFDictionary]?) {
        var dictionary = tree.pages[page].dictionary
        dictionary["StructParents"] = nil
        dictionary["B"] = nil
        guard let annots = dictionary["Annots"] else { return (dictionary, nil) }
        let annotations = try (tree.reader.resolve(annots).arrayValue ?? []).compactMap { item -> PDFDictionary? in
            guard var annotation = try tree.reader.resolve(item).dictionaryValue else { return nil }
            let subtype = annotation["Subtype"]?.nameValue
            guard subtype != "Widget", subtype != "Popup" else { return nil }
            annotation["Popup"] = nil
            return annotation
        }
        return (dictionary, annotations)
    }
}
