/// What the trailer of the revision must change after `PDFPageEditor.write`: the object sink
/// writes objects only, so the caller sets these on its writer (`PDFUpdateWriter.info`,
/// `PDFRevision.info`).
public struct PDFTrailerChanges: Sendable, Equatable {
    /// A new /Info object the trailer must point at; nil when /Info is unchanged or was updated in place.
    public var info: PDFReference?

    public init(info: PDFReference? = nil) { self.info = info }
}

extension PDFPageEditor {
    /// Writes only what the edits changed into the update: touched pages and pages whose parent
    /// changed, page-tree nodes whose /Kids or /Count changed (the root under its own number), new
    /// pages and annotation copies, /Info and the outline (and the catalog when the outline is new).
    /// Nothing is read here: the edits read what they needed.
    ///
    /// ```swift
    /// let changes = try editor.write(into: &writer)
    /// if let info = changes.info { writer.info = info }
    /// ```
    public func write<Sink: PDFObjectSink>(into sink: inout Sink) throws -> PDFTrailerChanges {
        // New pages in the tree get their numbers first: their nodes (and bookmarks) refer to them.
        var newNumbers: [Int: PDFReference] = [:]
        for (page, entry) in tree.pages.enumerated() where entry.reference == nil && entry.parent != nil {
            newNumbers[page] = sink.reserve()
        }
        func reference(_ page: Int) -> PDFReference? { tree.pages[page].reference ?? newNumbers[page] }

        for entry in tree.pages where entry.parent != nil && !entry.rewritten.isEmpty {
            try Self.writeRewritten(entry, into: &sink)
        }
        for (page, entry) in tree.pages.enumerated() {
            guard let parent = entry.parent, let own = reference(page) else { continue }
            guard entry.reference == nil || entry.changed || parent != entry.origin else { continue }
            var dictionary = entry.dictionary
            dictionary["Parent"] = .reference(tree.nodes[parent].reference)
            if parent != entry.origin { keepInherited(&dictionary, from: entry.origin, under: parent) }
            if let annotations = entry.annotations {
                var copies: [PDFObject] = []
                for var annotation in annotations {
                    annotation["P"] = .reference(own)
                    copies.append(.reference(try sink.add(.dictionary(annotation))))
                }
                dictionary["Annots"] = copies.isEmpty ? nil : .array(copies)
            }
            if let picture = entry.picture { try Self.write(picture, into: &dictionary, sink: &sink) }
            try Self.writeMarkup(entry, own: own, into: &dictionary, sink: &sink)
            try sink.set(own, to: .dictionary(dictionary))
        }

        for node in tree.nodes where node.changed && node.attached {
            let kids = node.kids!.map { kid -> PDFObject in
                switch kid {
                case .unread(let page): return .reference(page)
                case .page(let page): return .reference(reference(page)!)
                case .node(let child): return .reference(tree.nodes[child].reference)
                }
            }
            var dictionary = node.dictionary
            if let holder = node.kidsHolder {
                try sink.set(holder, to: .array(kids))
            } else {
                dictionary[.kids] = .array(kids)
            }
            dictionary[.count] = .integer(node.count)
            try sink.set(node.reference, to: .dictionary(dictionary))
        }

        var changes = PDFTrailerChanges()
        if let info {
            if let existing = info.reference {
                try sink.set(existing, to: .dictionary(info.dictionary))
            } else {
                changes.info = try sink.add(.dictionary(info.dictionary))
            }
        }
        if let outline {
            try write(outline, pageReference: { tree.pages[$0].parent == nil ? nil : reference($0) }, into: &sink)
        }
        return changes
    }

    /// A page now under `parent` keeps what it inherited under `origin` (nil: nothing): each
    /// inheritable value that differs between the two goes into the page itself, or, where the
    /// page inherited nothing, the default that absence meant (§7.7.3.3).
    func keepInherited(_ dictionary: inout PDFDictionary, from origin: Int?, under parent: Int) {
        let before = tree.inherited(from: origin)
        let after = tree.inherited(from: parent)
        for key in PDFPageTreeState.inheritable where dictionary[key] == nil && before[key] != after[key] {
            if let value = before[key] {
                dictionary[key] = value
                continue
            }
            switch key {
            case "MediaBox": dictionary[key] = PDFPageTreeState.defaultMediaBox
            case "CropBox":
                dictionary[key] = dictionary["MediaBox"] ?? before["MediaBox"] ?? PDFPageTreeState.defaultMediaBox
            case "Resources": dictionary[key] = .dictionary([:])
            default: dictionary[key] = .integer(0)
            }
        }
    }

    /// New top-level outline items after the last one; the outline dictionary, the old last item
    /// (for its /Next) and, for a new outline, the catalog are rewritten.
    private func write<Sink: PDFObjectSink>(_ outline: OutlineEdit, pageReference: (Int) -> PDFReference?,
                                            into sink: inout Sink) throws {
        let root = outline.reference ?? sink.reserve()
        let items = outline.items.map { _ in sink.reserve() }
        for (position, item) in outline.items.enumerated() {
            var dictionary: PDFDictionary = ["Title": .string(Self.textString(item.title)), "Parent": .reference(root)]
            if let previous = position > 0 ? items[position - 1] : outline.last?.reference {
                dictionary["Prev"] = .reference(previous)
            }
            if position + 1 < items.count { dictionary["Next"] = .reference(items[position + 1]) }
            if let page = pageReference(item.page) { dictionary["Dest"] = [.reference(page), .name("Fit")] }
            try sink.set(items[position], to: .dictionary(dictionary))
        }
        if var last = outline.last, let first = items.first {
            last.dictionary["Next"] = .reference(first)
            try sink.set(last.reference, to: .dictionary(last.dictionary))
        }
        var dictionary = outline.dictionary
        dictionary[.type] = .name("Outlines")
        if outline.last == nil, let first = items.first { dictionary["First"] = .reference(first) }
        if let last = items.last { dictionary["Last"] = .reference(last) }
        // /Count is the number of open items; top-level items are always visible.
        if let count = dictionary[.count]?.integerValue {
            dictionary[.count] = .integer(max(0, count) + items.count)
        } else if outline.last == nil {
            dictionary[.count] = .integer(items.count)
        }
        try sink.set(root, to: .dictionary(dictionary))
        if var catalog = outline.catalog {
            catalog["Outlines"] = .reference(root)
            try sink.set(tree.reader.tail.root, to: .dictionary(catalog))
        }
    }
}
