/// Annotations: adding those PDFTrapper draws, drawing forms into a page's content (a flattened
/// signature), listing and erasing. Like every edit, each reads what it needs first and changes
/// nothing when it throws; `write` then adds the new objects to the revision.
extension PDFPageEditor {
    /// One annotation as `pdftrapper annotations` lists it and `erase` matches it.
    public struct AnnotationSummary: Sendable, Equatable {
        /// 0-based.
        public var page: Int
        /// /NM when it has one, else `pP-N` (page P, the Nth entry of its /Annots).
        public var id: String
        public var subtype: String
        /// In user space.
        public var rect: Rect?
        public var author: String?
        public var contents: String?
        /// How it is drawn, where it says (/C, /BS /W, /CA), and its points in user space: each
        /// stroke of an ink annotation (/InkList), a line's two ends (/L), a polygon's corners; read only when
        /// `annotations(ofPage:drawing:)` is asked for them (a preview of a change).
        public var color: RGBColor?
        public var width: Double?
        public var opacity: Double?
        public var strokes: [[Point]]?

        public var madeByPDFTrapper: Bool { id.hasPrefix(AnnotationBuilder.idPrefix) }
        /// Widgets belong to form fields, popups to the annotation they open from.
        public var isWidget: Bool { subtype == "Widget" }
    }

    /// What flattening changes in one page: its resources made its own, and the forms to draw over its content.
    struct Overlay {
        var resources: PDFDictionary
        var xobjects: PDFDictionary
        /// The page's content streams as they were.
        var contents: [PDFObject]
        var forms: [(name: PDFName, form: AppearanceForm)] = []
    }

    /// The object the page at `index` is held under; nil for a page this editor made.
    public func reference(ofPage index: Int) throws -> PDFReference? {
        tree.pages[try located(index, .readPage)].reference
    }

    /// Where the page held under `reference` stands; nil when it is not in the tree.
    public func index(ofPage reference: PDFReference) throws -> Int? {
        try Self.wrapping(.readPage) { try tree.index(of: reference) }
    }

    /// Adds annotations to the page at `index`, after the ones it has.
    public mutating func annotate(_ index: Int, _ drafts: [AnnotationDraft]) throws {
        makeUnique()
        let page = try located(index, .annotate)
        let existing = try Self.wrapping(.annotate, page: index) { try annotationObjects(of: page) }
        if tree.pages[page].annotations == nil { tree.pages[page].dictionary["Annots"] = existing.isEmpty ? nil : .array(existing) }
        tree.pages[page].added += drafts
        tree.pages[page].changed = true
    }

    /// Draws `form` into the content of the page at `index`, over what is there: the page's
    /// content is wrapped in q/Q so nothing it leaves set changes the form, and its resources
    /// become its own dictionary (a shared one is never changed).
    /// The form's name in the page's resources starts with `prefix` (and a number).
    public mutating func flatten(_ index: Int, _ form: AppearanceForm, prefix: String = "PTForm") throws {
        makeUnique()
        let page = try located(index, .flatten)
        guard tree.pages[page].picture == nil else { throw PDFPageEditError(.flatten, page: index, .reframedAndFlattened) }
        var overlay = try tree.pages[page].overlay ?? Self.wrapping(.flatten, page: index) { try readOverlay(page) }
        var number = 0
        while overlay.xobjects[PDFName("\(prefix)\(number)")] != nil || overlay.forms.contains(where: { $0.name.string == "\(prefix)\(number)" }) {
            number += 1
        }
        overlay.forms.append((PDFName("\(prefix)\(number)"), form))
        tree.pages[page].overlay = overlay
        tree.pages[page].changed = true
    }

    /// Whether the page draws (or this revision makes it draw) a form whose name starts with `prefix`.
    public func drawsForm(named prefix: String, onPage index: Int) throws -> Bool {
        let page = try located(index, .readPage)
        if tree.pages[page].overlay?.forms.contains(where: { $0.name.string.hasPrefix(prefix) }) == true { return true }
        return try Self.wrapping(.readPage, page: index) {
            let resources = try tree.effective("Resources", of: page).map(tree.reader.resolve)?.dictionaryValue
            let xobjects = try resources?["XObject"].map(tree.reader.resolve)?.dictionaryValue
            return xobjects?.keys.contains { $0.string.hasPrefix(prefix) } ?? false
        }
    }

    /// The page's annotations: those it has (after this revision's erasures) and those this revision adds.
    /// With `drawing`, how each is drawn too (colour, width, opacity, points): what a preview needs.
    public func annotations(ofPage index: Int, drawing: Bool = false) throws -> [AnnotationSummary] {
        let page = try located(index, .listAnnotations)
        return try Self.wrapping(.listAnnotations, page: index) {
            let existing = try summaries(of: page, index: index, drawing: drawing).map(\.summary)
            let added = tree.pages[page].added.map { draft in
                summary(draft.dictionary, page: index, id: draft.id, drawing: drawing)
            }
            return existing + added
        }
    }

    /// Removes the annotations on `indexes` that `matches` takes (widgets never; an annotation's
    /// popup goes with it); returns how many. `ids`, when given, must each name one.
    @discardableResult
    public mutating func erase(_ indexes: [Int], ids: [String]? = nil, where matches: (AnnotationSummary) -> Bool) throws -> Int {
        makeUnique()
        let pages = try located(indexes, .erase)
        var plans: [(page: Int, keep: [PDFObject]?, keepCopies: [PDFDictionary]?, keepAdded: [AnnotationDraft])] = []
        var seen: Set<String> = []
        var removed = 0
        for (index, page) in pages {
            let found = try Self.wrapping(.erase, page: index) { try summaries(of: page, index: index) }
            func wanted(_ summary: AnnotationSummary) -> Bool {
                guard matches(summary) else { return false }
                seen.insert(summary.id)
                return !summary.isWidget
            }
            for item in found where item.summary.isWidget && ids?.contains(item.summary.id) == true {
                throw PDFPageEditError(.erase, page: index, .formFieldWidget(item.summary.id))
            }
            let gone = found.filter { wanted($0.summary) }
            let goneObjects = Set(gone.compactMap(\.reference))
            let popups = Set(gone.compactMap(\.popup))
            let keep = found.filter { item in
                guard !gone.contains(where: { $0.summary.id == item.summary.id }) else { return false }
                guard let reference = item.reference else { return true }
                return !popups.contains(reference) && !(item.parent.map(goneObjects.contains) ?? false)
            }
            let added = tree.pages[page].added.filter { !wanted(summary($0.dictionary, page: index, id: $0.id)) }
            removed += found.count - keep.count + tree.pages[page].added.count - added.count
            if tree.pages[page].annotations != nil {
                plans.append((page, nil, keep.compactMap(\.copy), added))
            } else {
                plans.append((page, keep.compactMap { $0.reference.map(PDFObject.reference) }, nil, added))
            }
        }
        if let missing = ids?.first(where: { !seen.contains($0) }) {
            throw PDFPageEditError(.erase, .noSuchAnnotation(missing))
        }
        for plan in plans {
            let before = tree.pages[plan.page]
            if let copies = plan.keepCopies { tree.pages[plan.page].annotations = copies }
            if let keep = plan.keep { tree.pages[plan.page].dictionary["Annots"] = keep.isEmpty ? nil : .array(keep) }
            tree.pages[plan.page].added = plan.keepAdded
            let same = before.dictionary == tree.pages[plan.page].dictionary && before.added.count == plan.keepAdded.count
                && before.annotations?.count == tree.pages[plan.page].annotations?.count
            if !same { tree.pages[plan.page].changed = true }
        }
        return removed
    }

    /// The page at `index` as it is in the file, as a form XObject: its content streams, decoded
    /// and joined, over its media box, with its resources. What a loupe magnifies.
    public func contentForm(ofPage index: Int) throws -> PDFStream {
        let page = try located(index, .annotate)
        return try Self.wrapping(.annotate, page: index) {
            let reader = tree.reader
            var streams: [PDFObject] = []
            switch tree.pages[page].dictionary["Contents"] {
            case nil: break
            case .reference(let reference)?:
                if case .array(let items) = try reader.resolve(.reference(reference)) { streams = items } else { streams = [.reference(reference)] }
            case .array(let items)?: streams = items
            case let other?: streams = [other]
            }
            var data: [UInt8] = []
            for item in streams {
                guard let stream = try reader.resolve(item).streamValue else { continue }
                data += try reader.decoder.decode(stream.data, dictionary: stream.dictionary)
                data.append(0x0A)
            }
            var dictionary: PDFDictionary = [.type: .name("XObject"), "Subtype": .name("Form"), "FormType": 1,
                                             "BBox": .array(try mediaBox(ofPage: index).map(PDFPageTree.number))]
            if let resources = tree.effective("Resources", of: page) { dictionary["Resources"] = resources }
            return PDFStream(dictionary: dictionary, data: data)
        }
    }

    /// What `change` hands its rewrite: the annotation's dictionary as it stands (this revision's
    /// rewrite of it, if any), how to resolve its values, and its stored appearance for a stamp.
    public struct ChangeSource {
        public var dictionary: PDFDictionary
        public var stamp: AnnotationRewrite.StampAppearance?
        public let resolve: (PDFObject) throws -> PDFObject
    }

    /// Rewrites the annotation `id` on the page at `index` in place: the object keeps its number
    /// (the page and its /Annots stay as they are), so it keeps its place and its id; with
    /// `copy`, the rewrite is added after the page's annotations instead, the original kept.
    public mutating func change(_ index: Int, id: String, copy: Bool, _ rewrite: (ChangeSource) throws -> AnnotationDraft) throws {
        makeUnique()
        let page = try located(index, .change)
        let reader = tree.reader
        let resolve: (PDFObject) throws -> PDFObject = { try reader.resolve($0) }
        if let position = tree.pages[page].added.firstIndex(where: { $0.id == id }) {
            let draft = try rewrite(ChangeSource(dictionary: tree.pages[page].added[position].dictionary, stamp: .pending, resolve: resolve))
            if copy { tree.pages[page].added.append(draft) } else { tree.pages[page].added[position] = draft }
            tree.pages[page].changed = true
            return
        }
        guard tree.pages[page].annotations == nil else {
            throw PDFPageEditError(.change, page: index, .cannotChange(id, why: "is on a page copied in this script; change it in a script of its own"))
        }
        let found = try Self.wrapping(.change, page: index) { try summaries(of: page, index: index) }
        guard let item = found.first(where: { $0.summary.id == id }) else { throw PDFPageEditError(.change, page: index, .noSuchAnnotation(id)) }
        guard !item.summary.isWidget, item.summary.subtype != "Popup" else {
            throw PDFPageEditError(.change, page: index, .cannotChange(id, why: "belongs to a form field or another annotation"))
        }
        guard let reference = item.reference else {
            throw PDFPageEditError(.change, page: index, .cannotChange(id, why: "is written inside the page's /Annots, not as an object of its own"))
        }
        let source: ChangeSource = try Self.wrapping(.change, page: index) {
            if let pending = tree.pages[page].rewritten[reference] {
                return ChangeSource(dictionary: pending.dictionary, stamp: .pending, resolve: resolve)
            }
            let dictionary = try reader.resolve(.reference(reference)).dictionaryValue ?? [:]
            return ChangeSource(dictionary: dictionary, stamp: try storedAppearance(dictionary), resolve: resolve)
        }
        let draft = try rewrite(source)
        if copy {
            try annotate(index, [draft])
        } else {
            tree.pages[page].rewritten[reference] = draft
        }
    }

    /// The normal appearance stream an annotation is drawn with (the one /AS picks when there
    /// are several), with its box and matrix; nil when it has none.
    private func storedAppearance(_ dictionary: PDFDictionary) throws -> AnnotationRewrite.StampAppearance? {
        guard let appearances = try dictionary["AP"].map(tree.reader.resolve)?.dictionaryValue, var normal = appearances["N"] else { return nil }
        if case .dictionary(let states) = try tree.reader.resolve(normal), let state = try dictionary["AS"].map(tree.reader.resolve)?.nameValue {
            guard let chosen = states[state] else { return nil }
            normal = chosen
        }
        guard let reference = normal.referenceValue, let stream = try tree.reader.resolve(normal).streamValue,
              let bbox = try stream.dictionary["BBox"].map(tree.reader.resolve).flatMap(AnnotationRewrite.Reader.numbers).flatMap(Rect.init)
        else { return nil }
        let matrix = try stream.dictionary["Matrix"].map(tree.reader.resolve).flatMap(AnnotationRewrite.Reader.numbers) ?? [1, 0, 0, 1, 0, 0]
        return .stored(reference, bbox: bbox, matrix: matrix.count == 6 ? matrix : [1, 0, 0, 1, 0, 0])
    }

    // MARK: Reading

    /// One entry of a page's annotations, as read: the reference it is held under (nil for a
    /// duplicate's copy, which is written new), its /Popup and /Parent, and what is listed of it.
    struct ReadAnnotation {
        var reference: PDFReference?
        var copy: PDFDictionary?
        var popup: PDFReference?
        var parent: PDFReference?
        var summary: AnnotationSummary
    }

    /// The entries of the page's /Annots, resolved where it is an indirect array.
    func annotationObjects(of page: Int) throws -> [PDFObject] {
        guard let annots = tree.pages[page].dictionary["Annots"] else { return [] }
        return try tree.reader.resolve(annots).arrayValue ?? []
    }

    func summaries(of page: Int, index: Int, drawing: Bool = false) throws -> [ReadAnnotation] {
        if let copies = tree.pages[page].annotations {
            return copies.enumerated().map { position, dictionary in
                ReadAnnotation(reference: nil, copy: dictionary, popup: nil, parent: nil,
                               summary: summary(dictionary, page: index, id: id(dictionary, page: index, position: position), drawing: drawing))
            }
        }
        return try annotationObjects(of: page).enumerated().compactMap { position, item in
            guard let dictionary = try tree.reader.resolve(item).dictionaryValue else { return nil }
            return ReadAnnotation(reference: item.referenceValue, copy: nil, popup: dictionary["Popup"]?.referenceValue,
                                  parent: dictionary["Parent"]?.referenceValue,
                                  summary: summary(dictionary, page: index, id: id(dictionary, page: index, position: position), drawing: drawing))
        }
    }

    private func id(_ dictionary: PDFDictionary, page: Int, position: Int) -> String {
        if let value = dictionary["NM"], let name = (try? tree.reader.resolve(value))?.stringValue, !name.bytes.isEmpty {
            return Self.text(name)
        }
        return "p\(page + 1)-\(position + 1)"
    }

    func summary(_ dictionary: PDFDictionary, page: Int, id: String, drawing: Bool = false) -> AnnotationSummary {
        let resolve = { (key: PDFName) -> PDFObject? in
            guard let value = dictionary[key] else { return nil }
            return try? tree.reader.resolve(value)
        }
        let rect = resolve("Rect")?.arrayValue.flatMap { items -> Rect? in
            Rect(items.compactMap { (try? tree.reader.resolve($0))?.numberValue })
        }
        var summary = AnnotationSummary(page: page, id: id, subtype: resolve("Subtype")?.nameValue?.string ?? "?", rect: rect,
                                        author: resolve("T")?.stringValue.map(Self.text),
                                        contents: resolve("Contents")?.stringValue.map(Self.text))
        guard drawing else { return summary }
        let read = AnnotationRewrite.Reader(dictionary: dictionary, resolve: { try tree.reader.resolve($0) })
        summary.color = read.color("C")
        summary.width = read.borderWidth()
        summary.opacity = read.number("CA")
        func points(_ numbers: [Double]) -> [Point] {
            stride(from: 0, to: numbers.count - 1, by: 2).map { Point(numbers[$0], numbers[$0 + 1]) }
        }
        switch summary.subtype {
        case "Ink":
            summary.strokes = read.array("InkList")?.compactMap { (try? tree.reader.resolve($0)).flatMap(AnnotationRewrite.Reader.numbers) }
                .map(points)
        case "Line":
            summary.strokes = read.numbers("L").map { [points($0)] }
        case "Polygon":
            summary.strokes = read.numbers("Vertices").map { [points($0)] }
        default: break
        }
        return summary
    }

    /// A text string's characters: UTF-16BE behind its byte order mark, else PDFDocEncoding read as Latin-1.
    static func text(_ string: PDFString) -> String {
        let bytes = string.bytes
        if bytes.count >= 2, bytes[0] == 0xFE, bytes[1] == 0xFF {
            let units = stride(from: 2, to: bytes.count - 1, by: 2).map { UInt16(bytes[$0]) << 8 | UInt16(bytes[$0 + 1]) }
            return String(decoding: units, as: UTF16.self)
        }
        if bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF {
            return String(decoding: bytes.dropFirst(3), as: UTF8.self)
        }
        return String(String.UnicodeScalarView(bytes.map { Unicode.Scalar($0) }))
    }

    private func readOverlay(_ page: Int) throws -> Overlay {
        let reader = tree.reader
        let resources = try tree.effective("Resources", of: page).map(reader.resolve)?.dictionaryValue ?? [:]
        let xobjects = try resources["XObject"].map(reader.resolve)?.dictionaryValue ?? [:]
        let contents: [PDFObject]
        switch tree.pages[page].dictionary["Contents"] {
        case nil: contents = []
        case .reference(let reference)?:
            // An indirect array of streams, or one stream.
            if case .array(let items) = try reader.resolve(reference) { contents = items } else { contents = [.reference(reference)] }
        case .array(let items)?: contents = items
        case let other?: contents = [other]
        }
        return Overlay(resources: resources, xobjects: xobjects, contents: contents)
    }

    // MARK: Writing

    /// The annotations this revision rewrites, each under its own number, with a new appearance.
    static func writeRewritten<Sink: PDFObjectSink>(_ entry: PDFPageTreeState.Page, into sink: inout Sink) throws {
        for (reference, draft) in entry.rewritten.sorted(by: { $0.key.number < $1.key.number }) {
            var annotation = draft.dictionary
            if let page = entry.reference { annotation["P"] = .reference(page) }
            annotation["AP"] = .dictionary(["N": .reference(try write(draft.appearance, into: &sink))])
            try sink.set(reference, to: .dictionary(annotation))
        }
    }

    /// The page's new annotations and overlay, written into `dictionary` (the page's, about to be set under `own`).
    static func writeMarkup<Sink: PDFObjectSink>(_ entry: PDFPageTreeState.Page, own: PDFReference, into dictionary: inout PDFDictionary,
                                          sink: inout Sink) throws {
        if !entry.added.isEmpty {
            var annots = dictionary["Annots"]?.arrayValue ?? []
            for draft in entry.added {
                var annotation = draft.dictionary
                annotation["P"] = .reference(own)
                annotation["AP"] = .dictionary(["N": .reference(try write(draft.appearance, into: &sink))])
                annots.append(.reference(try sink.add(.dictionary(annotation))))
            }
            dictionary["Annots"] = .array(annots)
        }
        if let overlay = entry.overlay {
            var xobjects = overlay.xobjects
            var drawing = ContentStream()
            for (name, form) in overlay.forms {
                xobjects[name] = .reference(try write(form, into: &sink))
                drawing.raw("q /\(name.string) Do Q")
            }
            var resources = overlay.resources
            resources["XObject"] = .dictionary(xobjects)
            dictionary["Resources"] = .dictionary(resources)
            let open = try sink.add(.stream(PDFStream(data: Array("q\n".utf8))))
            let close = try sink.add(.stream(PDFStream(data: Array("Q\n".utf8) + drawing.bytes)))
            dictionary["Contents"] = .array([.reference(open)] + overlay.contents + [.reference(close)])
        }
    }

    /// A form and the images it draws (each image's soft mask first, which the image points at).
    private static func write<Sink: PDFObjectSink>(_ form: AppearanceForm, into sink: inout Sink) throws -> PDFReference {
        var images: [PDFName: PDFReference] = [:]
        for image in form.images {
            var stream = image.image
            if let mask = image.softMask { stream.dictionary["SMask"] = .reference(try sink.add(.stream(mask))) }
            images[image.name] = try sink.add(.stream(stream))
        }
        return try sink.add(.stream(form.stream(images: images)))
    }
}

/// Pages as they stand at one moment of an edit script, to be written into another PDF
/// (`extract`): each page's own entries with what it inherits made explicit, its annotations,
/// and what this revision adds to it.
public struct PDFPageSnapshot {
    let page: PDFPageTreeState.Page
    let reader: PDFTailReader
}

extension PDFPageEditor {
    public func snapshot(_ indexes: [Int]) throws -> [PDFPageSnapshot] {
        try located(indexes, .readPage).map { _, page in
            var entry = tree.pages[page]
            let inherited = tree.inherited(from: entry.origin)
            for key in PDFPageTreeState.inheritable where entry.dictionary[key] == nil {
                entry.dictionary[key] = inherited[key] ?? (key == "MediaBox" ? PDFPageTreeState.defaultMediaBox : nil)
            }
            entry.dictionary["B"] = nil
            return PDFPageSnapshot(page: entry, reader: tree.reader)
        }
    }

    /// A new document of the snapshots' pages: one page-tree node, a catalog, everything the
    /// pages refer to copied from their file. Returns the catalog, for the writer's root.
    public static func writeDocument<Sink: PDFObjectSink>(_ snapshots: [PDFPageSnapshot], into sink: inout Sink)
        throws -> PDFReference
    {
        guard let reader = snapshots.first?.reader else { throw PDFPageEditError(.readPage, .outOfRange(pageCount: 0)) }
        let root = sink.reserve()
        let catalog = sink.reserve()
        let references = snapshots.map { _ in sink.reserve() }
        var sources: [PDFReference: PDFReference] = [:]
        for (snapshot, made) in zip(snapshots, references) {
            if let source = snapshot.page.reference { sources[source] = made }
        }
        var copier = PDFObjectCopier(reader: reader, pages: sources)
        for (snapshot, own) in zip(snapshots, references) {
            var entry = snapshot.page
            // Widgets belong to the source's form, which is not copied; popups follow their parent.
            var annots: [PDFObject] = []
            let existing = try entry.annotations.map { $0.map(PDFObject.dictionary) }
                ?? (entry.dictionary["Annots"].map { try reader.resolve($0).arrayValue ?? [] } ?? [])
            for item in existing {
                guard var annotation = try reader.resolve(item).dictionaryValue,
                      annotation["Subtype"]?.nameValue != "Widget", annotation["Subtype"]?.nameValue != "Popup" else { continue }
                annotation["Popup"] = nil
                annotation["P"] = nil
                var copied = try copier.copy(annotation, into: &sink)
                copied["P"] = .reference(own)
                annots.append(.reference(try sink.add(.dictionary(copied))))
            }
            entry.dictionary["Annots"] = nil
            var dictionary = try copier.copy(entry.dictionary, into: &sink)
            if !annots.isEmpty { dictionary["Annots"] = .array(annots) }
            if var overlay = entry.overlay {
                overlay.resources = try copier.copy(overlay.resources, into: &sink)
                overlay.xobjects = try copier.copy(overlay.xobjects, into: &sink)
                overlay.contents = try overlay.contents.map { try copier.copy($0, into: &sink) }
                entry.overlay = overlay
            }
            try writeMarkup(entry, own: own, into: &dictionary, sink: &sink)
            dictionary["Parent"] = .reference(root)
            try sink.set(own, to: .dictionary(dictionary))
        }
        try sink.set(root, to: .dictionary([.type: .name("Pages"), .kids: .array(references.map(PDFObject.reference)),
                                            .count: .integer(references.count)]))
        try sink.set(catalog, to: .dictionary([.type: .name("Catalog"), .pages: .reference(root)]))
        return catalog
    }
}
