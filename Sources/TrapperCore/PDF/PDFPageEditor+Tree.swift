/// The target's page tree as far as edits have needed it (§7.7.3), and the surgery on it.
///
/// Nodes (/Pages) are read when a page below them is asked for, never before. A node whose /Count
/// equals its number of /Kids is taken to hold one page per kid, so its kids stay bare references
/// (no object is read, no page record made) until an edit touches one; only a node whose /Count
/// says otherwise has its kids read, to learn which are nodes and how many pages each holds. A
/// 5,000-page flat tree thus costs one node read, and a deep one the kids of each node on the way
/// down, whatever the page count.
///
/// Trusting /Count that way is wrong for one legal shape only: an empty /Pages node beside a node
/// of several pages under one parent (no producer we know writes it). A touched kid that turns out
/// to be such a node is refused (`unsupportedPageTree`); one that no edit touches would shift the
/// numbering of the pages after it unnoticed. A one-page node there is fine and is read as a node.
///
/// A class, so that answering a question (which may read and remember more of the tree) needs no
/// `mutating`; `PDFPageEditor` copies it before its first change when it is shared.
final class PDFPageTreeState {
    enum Kid: Equatable {
        /// A page no edit has touched: just its reference, from a node of one page per kid.
        case unread(PDFReference)
        case page(Int)
        case node(Int)
    }

    struct Node {
        let reference: PDFReference
        /// As read; rewritten with new /Kids and /Count when `changed`.
        let dictionary: PDFDictionary
        /// The array object when /Kids is an indirect reference (written there, not in the node).
        let kidsHolder: PDFReference?
        /// The parent as read. Nodes never move, so this is also the chain their pages inherit from.
        let parent: Int?
        let rawKids: [PDFReference]
        /// nil until the node is first searched.
        var kids: [Kid]?
        var count: Int
        /// Every kid holds exactly one page, so page i is kid i.
        var allSingle = false
        var changed = false
        /// False once emptied by deletes and cut from its parent.
        var attached = true
    }

    struct Page {
        /// nil for a page this editor makes: its number is reserved when written.
        let reference: PDFReference?
        /// The page's own entries.
        var dictionary: PDFDictionary
        /// The node it hangs from now; nil once deleted.
        var parent: Int?
        /// The node whose inherited values it showed when read (§7.7.3.4): what it must keep
        /// showing wherever it goes. nil: it inherits nothing (a blank page).
        let origin: Int?
        var changed: Bool
        /// For a duplicate: its own copies of the original's annotations (widgets and popups left out).
        var annotations: [PDFDictionary]?
        /// Annotations this revision adds, after those it has.
        var added: [AnnotationDraft] = []
        /// Annotations this revision rewrites under their own numbers (`change`), by those numbers.
        var rewritten: [PDFReference: AnnotationDraft] = [:]
        /// Forms this revision draws into the page's content (flattened signatures).
        var overlay: PDFPageEditor.Overlay?
        /// The picture this revision shows in place of the page's content (`reframe`).
        var picture: ImagePage?
    }

    static let inheritable: [PDFName] = ["MediaBox", "CropBox", "Resources", "Rotate"]
    /// US Letter: what readers show for a page with no /MediaBox anywhere (it is required).
    static let defaultMediaBox: PDFObject = [0, 0, 612, 792]
    static let maxDepth = 256

    let reader: PDFTailReader
    private(set) var nodes: [Node] = []
    var pages: [Page] = []
    private var nodeByNumber: [Int: Int] = [:]
    let root = 0

    init(reader: PDFTailReader) throws {
        self.reader = reader
        let (reference, dictionary) = try PDFPageTree.root(of: reader)
        _ = try addNode(reference, dictionary, parent: nil)
        // The root's kids are learnt at once (free for a flat tree), so that a wrong root /Count is
        // recounted before any edit reckons with the page count.
        try classify(root)
    }

    private init(copying other: PDFPageTreeState) {
        reader = other.reader
        nodes = other.nodes
        pages = other.pages
        nodeByNumber = other.nodeByNumber
    }

    func copy() -> PDFPageTreeState { PDFPageTreeState(copying: self) }

    var pageCount: Int { nodes[root].count }

    // MARK: Reading

    static func damaged(_ message: String) -> PDFError { PDFError.damaged(.readingPageTree, offset: 0, message) }

    static func isNode(_ dictionary: PDFDictionary) -> Bool {
        dictionary[.kids] != nil || dictionary[.type] == .name("Pages")
    }

    /// A node's kids and /Count, read without touching any kid.
    private func shape(of reference: PDFReference, _ dictionary: PDFDictionary)
        throws -> (kids: [PDFReference], holder: PDFReference?, count: Int)
    {
        var holder: PDFReference?
        var items: [PDFObject]
        switch dictionary[.kids] {
        case .array(let array)?: items = array
        case .reference(let reference)?:
            guard case .array(let array) = try reader.resolve(reference) else {
                throw Self.damaged("/Kids of page-tree node \(reference) is not an array")
            }
            (items, holder) = (array, reference)
        default: throw Self.damaged("page-tree node \(reference) has no /Kids")
        }
        let kids = try items.map { item -> PDFReference in
            guard let kid = item.referenceValue else {
                throw Self.damaged("page-tree node \(reference) has a direct kid")
            }
            return kid
        }
        guard let count = try reader.resolve(dictionary[.count] ?? .null).integerValue, count >= 0 else {
            throw Self.damaged("page-tree node \(reference) has no valid /Count")
        }
        return (kids, holder, count)
    }

    private func addNode(_ reference: PDFReference, _ dictionary: PDFDictionary, parent: Int?) throws -> Int {
        guard nodeByNumber[reference.number] == nil else {
            throw Self.damaged("page-tree node \(reference) appears twice (the tree loops or shares a node)")
        }
        var depth = 0
        var up = parent
        while let node = up { depth += 1; up = nodes[node].parent }
        guard depth < Self.maxDepth else { throw Self.damaged("page tree deeper than \(Self.maxDepth) levels") }
        let (kids, holder, count) = try shape(of: reference, dictionary)
        nodes.append(Node(reference: reference, dictionary: dictionary, kidsHolder: holder, parent: parent,
                          rawKids: kids, count: count))
        nodeByNumber[reference.number] = nodes.count - 1
        return nodes.count - 1
    }

    private func addPage(_ page: Page) -> Int {
        pages.append(page)
        return pages.count - 1
    }

    /// Learns what the kids of `node` are: for free when its /Count says one page per kid,
    /// otherwise by reading every kid.
    private func classify(_ node: Int) throws {
        guard nodes[node].kids == nil else { return }
        let raw = nodes[node].rawKids
        if nodes[node].count == raw.count {
            nodes[node].kids = raw.map(Kid.unread)
            nodes[node].allSingle = true
            return
        }
        var kids: [Kid] = []
        var sum = 0
        for reference in raw {
            guard case .dictionary(let dictionary) = try reader.resolve(reference) else {
                throw Self.damaged("kid \(reference) of page-tree node \(nodes[node].reference) is not a dictionary")
            }
            if Self.isNode(dictionary) {
                let kid = try addNode(reference, dictionary, parent: node)
                kids.append(.node(kid))
                sum += nodes[kid].count
            } else {
                kids.append(.page(addPage(Page(reference: reference, dictionary: dictionary, parent: node,
                                               origin: node, changed: false))))
                sum += 1
            }
        }
        // A wrong /Count (another writer's) is recounted here, and the nodes above follow, so the
        // rewritten nodes say what they hold.
        if sum != nodes[node].count { adjustCounts(from: node, by: sum - nodes[node].count) }
        nodes[node].kids = kids
        nodes[node].allSingle = kids.allSatisfy { pagesIn($0) == 1 }
    }

    private func pagesIn(_ kid: Kid) -> Int {
        switch kid {
        case .unread, .page: return 1
        case .node(let node): return nodes[node].count
        }
    }

    /// Reads the untouched kid at `position` of `node` (one taken as one page per kid) and makes
    /// it a page record; a one-page /Pages node there becomes a node kid instead.
    private func touch(_ reference: PDFReference, at position: Int, of node: Int) throws -> Kid {
        guard case .dictionary(let dictionary) = try reader.resolve(reference) else {
            throw Self.damaged("page \(reference) is not a dictionary")
        }
        let kid: Kid
        if Self.isNode(dictionary) {
            let (_, _, count) = try shape(of: reference, dictionary)
            guard count == 1 else {
                throw PDFPageEditError(.readPage, .unsupportedPageTree(
                    "page-tree node \(nodes[node].reference) has as many /Kids as pages, yet kid \(reference) "
                        + "is a node of \(count) pages (an empty node must be beside it)"))
            }
            kid = .node(try addNode(reference, dictionary, parent: node))
        } else {
            kid = .page(addPage(Page(reference: reference, dictionary: dictionary, parent: node, origin: node,
                                     changed: false)))
        }
        nodes[node].kids![position] = kid
        return kid
    }

    /// The page at `index` (in range), its node and its position among the node's kids; reads
    /// the nodes on the way down and the page itself.
    func locate(_ index: Int) throws -> (node: Int, position: Int, page: Int) {
        var node = root
        var remaining = index
        while true {
            try classify(node)
            // No local copy of the kids: `touch` changes one in place, which must not copy them all.
            let count = nodes[node].kids!.count
            var position = 0
            if nodes[node].allSingle {
                position = remaining
                remaining = 0
            } else {
                while position < count, remaining >= pagesIn(nodes[node].kids![position]) {
                    remaining -= pagesIn(nodes[node].kids![position])
                    position += 1
                }
            }
            guard position < count else {
                throw Self.damaged("page-tree node \(nodes[node].reference) holds fewer pages than its /Count")
            }
            var kid = nodes[node].kids![position]
            if case .unread(let reference) = kid { kid = try touch(reference, at: position, of: node) }
            switch kid {
            case .node(let child): node = child
            case .page(let page): return (node, position, page)
            case .unread: preconditionFailure("touched above")
            }
        }
    }

    /// The index of the page held under `reference`, reading nodes (never untouched pages) on the way.
    func index(of reference: PDFReference) throws -> Int? {
        var offset = 0
        func search(_ node: Int) throws -> Int? {
            try classify(node)
            for kid in nodes[node].kids! {
                switch kid {
                case .unread(let page):
                    if page == reference { return offset }
                    offset += 1
                case .page(let page):
                    if pages[page].reference == reference { return offset }
                    offset += 1
                case .node(let child):
                    if let found = try search(child) { return found }
                }
            }
            return nil
        }
        return try search(root)
    }

    func position(of page: Int) -> (node: Int, position: Int) {
        let node = pages[page].parent!
        return (node, nodes[node].kids!.firstIndex(of: .page(page))!)
    }

    /// The values a page hanging from `node` inherits (only the inheritable keys).
    func inherited(from node: Int?) -> PDFDictionary {
        var values = PDFDictionary()
        var current = node
        while let node = current {
            for key in Self.inheritable where values[key] == nil {
                if let value = nodes[node].dictionary[key] { values[key] = value }
            }
            current = nodes[node].parent
        }
        return values
    }

    /// What the page shows for an inheritable `key`: its own value, or what it inherited where it was read.
    func effective(_ key: PDFName, of page: Int) -> PDFObject? {
        pages[page].dictionary[key] ?? inherited(from: pages[page].origin)[key]
    }

    // MARK: Surgery (never fails: everything is read before)

    func detach(_ page: Int) {
        let (node, position) = position(of: page)
        nodes[node].kids!.remove(at: position)
        pages[page].parent = nil
        adjustCounts(from: node, by: -1)
        // An emptied node leaves its parent: some readers stumble on empty nodes.
        var emptied = node
        while nodes[emptied].kids!.isEmpty, let parent = nodes[emptied].parent {
            nodes[parent].kids!.removeAll { $0 == .node(emptied) }
            nodes[parent].changed = true
            nodes[emptied].attached = false
            emptied = parent
        }
    }

    func attach(_ page: Int, to node: Int, at position: Int) {
        nodes[node].kids!.insert(.page(page), at: position)
        pages[page].parent = node
        adjustCounts(from: node, by: 1)
    }

    /// A new page, not yet in the tree.
    func makePage(_ dictionary: PDFDictionary, origin: Int?, annotations: [PDFDictionary]? = nil) -> Int {
        addPage(Page(reference: nil, dictionary: dictionary, parent: nil, origin: origin, changed: true,
                     annotations: annotations))
    }

    /// /Count changes all the way up; above `node`, a kid no longer holds exactly one page.
    private func adjustCounts(from node: Int, by delta: Int) {
        var current: Int? = node
        while let this = current {
            nodes[this].count += delta
            nodes[this].changed = true
            if this != node { nodes[this].allSingle = false }
            current = nodes[this].parent
        }
    }
}
