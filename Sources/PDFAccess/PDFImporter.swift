import CQPDF
import Glibc
import TrapperCore

/// What importing pages from a PDF can go wrong with. Each description is one line naming the step,
/// e.g. `import page 3: read stream 12 0 R: ...` (pages counted from 1 in messages).
public enum PDFImportError: Error, Equatable, Sendable, CustomStringConvertible {
    /// qpdf could not open or read the file.
    case open(path: String, String)
    /// The file is encrypted with a user password: its content cannot be read without it.
    case passwordRequired(path: String)
    /// `index` is not a page of the document (0-based; `count` pages).
    case noSuchPage(index: Int, count: Int)
    /// Copying page `index` (0-based) failed at `step` (e.g. `read stream 12 0 R`).
    case page(index: Int, step: String, String)
    /// Copying the interactive form (/AcroForm) failed at `step`.
    case form(step: String, String)

    public var description: String {
        switch self {
        case .open(let path, let message): return "open \(path): \(message)"
        case .passwordRequired(let path): return "open \(path): encrypted, needs a user password"
        case .noSuchPage(let index, let count): return "import page \(index + 1): the document has \(count) pages"
        case .page(let index, let step, let message): return "import page \(index + 1): \(step): \(message)"
        case .form(let step, let message): return "import form: \(step): \(message)"
        }
    }
}

/// Imports pages from a PDF (a dropped file) into a revision, through qpdf: each page and
/// everything it refers to is copied into a `PDFObjectSink` under fresh numbers. Objects shared
/// between pages (fonts, images, form XObjects) are copied once per importer. Streams are copied
/// raw: their filters and bytes exactly as stored, so nothing is re-encoded.
///
/// What is not copied: the page's /Parent (the caller hangs the page into its own tree), other
/// pages (references to them, e.g. a link's /Dest, become null), page-tree nodes, and the source's
/// catalog (its /OpenAction and JavaScript name tree with it). Inherited /Resources, /MediaBox,
/// /CropBox and /Rotate are made explicit on each page.
///
/// Unless told to keep active content, what runs code is left out too: /AA (additional actions) of
/// pages, annotations and fields, and /A or /Next actions of the types in `activeActions`. What a
/// page shows stays (content, fonts, images, forms, annotations, /URI and /GoTo links); `removed`
/// says what went.
///
/// Owns its qpdf handle: not Sendable, use it from one task.
public final class PDFImporter {
    public let path: String
    public let pageCount: Int
    /// qpdf's warnings so far (reading a damaged file, recovered objects), one line each: for the log.
    public private(set) var warnings: [String] = []
    /// Active content left out so far, one name each ("Launch", "JavaScript", "AA", "OpenAction").
    public private(set) var removed: [String] = []
    let keepsActiveContent: Bool

    /// Action types (§12.6.4) that run code, send data out, or play media.
    public static let activeActions: Set<String> = ["JavaScript", "Launch", "SubmitForm", "ImportData", "RichMedia",
                                                    "Rendition", "Movie", "Sound", "GoToE"]

    private let qpdf: QPDFHandle
    private var pageHandles: [qpdf_oh] = []
    /// Source object (number, generation) → page index.
    private var pageIndexes: [ObjectID: Int] = [:]
    private let catalogID: ObjectID?
    /// Source object → its copy in the sink: shared objects are copied once.
    private var copied: [ObjectID: PDFReference] = [:]

    private struct ObjectID: Hashable {
        var number: Int32
        var generation: Int32
    }

    /// Arrays and dictionaries nested deeper than this are refused (qpdf itself stops near 500).
    static let maximumDepth = 512

    /// Opens `path`. Files encrypted with only an owner password open (their objects decrypted);
    /// a file that needs a user password is `PDFImportError.passwordRequired`.
    public init(path: String, keepActiveContent: Bool = false) throws(PDFImportError) {
        self.path = path
        self.keepsActiveContent = keepActiveContent
        do {
            qpdf = try QPDFHandle()
            try qpdf.read(path, password: nil)
            try qpdf.check(qpdf.api.qpdf_push_inherited_attributes_to_page(qpdf.data))
        } catch {
            if error.code == qpdf_e_password { throw .passwordRequired(path: path) }
            throw .open(path: path, error.message)
        }
        let api = qpdf.api
        let count = Int(api.qpdf_get_num_pages(qpdf.data))
        var catalog: ObjectID? = nil
        do {
            try qpdf.check()
            for index in 0..<max(0, count) {
                let page = api.qpdf_get_page_n(qpdf.data, index)
                try qpdf.check()
                pageHandles.append(page)
                let id = ObjectID(
                    number: api.qpdf_oh_get_object_id(qpdf.data, page), generation: api.qpdf_oh_get_generation(qpdf.data, page))
                pageIndexes[id] = index
            }
            let root = api.qpdf_get_root(qpdf.data)
            try qpdf.check()
            if !keepActiveContent { removed += Self.catalogActiveContent(qpdf, root) }
            if api.qpdf_oh_is_indirect(qpdf.data, root) != QPDF_FALSE {
                catalog = ObjectID(
                    number: api.qpdf_oh_get_object_id(qpdf.data, root), generation: api.qpdf_oh_get_generation(qpdf.data, root))
            }
            api.qpdf_oh_release(qpdf.data, root)
        } catch {
            throw .open(path: path, "read page tree: \(error.message)")
        }
        pageCount = max(0, count)
        catalogID = catalog
        warnings = qpdf.takeWarnings()
    }

    /// What of the catalog's active content would have run on opening: the /OpenAction (when it is
    /// an action that runs code) and the JavaScript name tree. The catalog is never copied; this
    /// only says so.
    private static func catalogActiveContent(_ qpdf: QPDFHandle, _ root: qpdf_oh) -> [String] {
        let (api, data) = (qpdf.api, qpdf.data)
        var found: [String] = []
        let open = api.qpdf_oh_get_key(data, root, "/OpenAction")
        defer { api.qpdf_oh_release(data, open) }
        if let type = actionType(qpdf, open), activeActions.contains(type) { found.append("OpenAction (\(type))") }
        let names = api.qpdf_oh_get_key(data, root, "/Names")
        defer { api.qpdf_oh_release(data, names) }
        if api.qpdf_oh_is_dictionary(data, names) != QPDF_FALSE, api.qpdf_oh_has_key(data, names, "/JavaScript") != QPDF_FALSE {
            found.append("JavaScript name tree")
        }
        return found
    }

    /// The /S of an action dictionary, without its slash; nil for anything else.
    static func actionType(_ qpdf: QPDFHandle, _ handle: qpdf_oh) -> String? {
        let (api, data) = (qpdf.api, qpdf.data)
        guard api.qpdf_oh_is_dictionary(data, handle) != QPDF_FALSE else { return nil }
        let type = api.qpdf_oh_get_key(data, handle, "/S")
        defer { api.qpdf_oh_release(data, type) }
        guard api.qpdf_oh_is_name(data, type) != QPDF_FALSE, let name = api.qpdf_oh_get_name(data, type) else { return nil }
        return String(String(cString: name).dropFirst())
    }

    /// Copies page `index` (0-based) and everything it refers to into `sink`, and returns the
    /// page's dictionary without /Parent, for the caller to hang into its tree and write.
    ///
    /// `reference` is where the caller will write the page: references to the page itself
    /// (annotations' /P, destinations on the page) point there. Pass `sink.reserve()`. Without it,
    /// such references are dropped (/P is optional) or become null.
    public func copyPage(_ index: Int, into sink: inout some PDFObjectSink, as reference: PDFReference? = nil)
        throws(PDFImportError) -> PDFDictionary
    {
        guard (0..<pageCount).contains(index) else { throw .noSuchPage(index: index, count: pageCount) }
        let page = pageHandles[index]
        var copier = Copier(importer: self, pageIndex: index, pageReference: reference)
        defer { warnings += qpdf.takeWarnings() }
        do throws(Copier.Failure) {
            guard case .dictionary(var dictionary) = try copier.direct(page, depth: 0, into: &sink)
            else {
                throw Copier.Failure(step: "read page object", message: "the page is not a dictionary")
            }
            dictionary["Parent"] = nil
            try copier.drain(into: &sink)
            dictionary[.type] = .name("Page")
            return dictionary
        } catch {
            throw .page(index: index, step: error.step, error.message)
        }
    }

    /// Copies page `index` under a fresh number reserved from `sink`; returns that reference and
    /// the page dictionary (without /Parent), which the caller completes and writes there.
    public func copyPage(_ index: Int, into sink: inout some PDFObjectSink) throws(PDFImportError)
        -> (reference: PDFReference, dictionary: PDFDictionary)
    {
        let reference = sink.reserve()
        return (reference, try copyPage(index, into: &sink, as: reference))
    }

    /// The source's interactive form (/AcroForm) for the pages copied so far: /Fields narrowed to
    /// the fields those pages' widgets belong to, /DR (default resources, e.g. fonts), /DA,
    /// /NeedAppearances, /Q and the rest copied into `sink` (shared objects once, as for pages).
    /// Nil when the source has no form or no copied page carries a field. Without it, readers that
    /// build field appearances from /DR (/NeedAppearances true) would draw the fields differently;
    /// the caller puts it in the target catalog's /AcroForm (merging /Fields with a form already
    /// there).
    public func formDictionary(into sink: inout some PDFObjectSink) throws(PDFImportError) -> PDFDictionary? {
        let (api, data) = (qpdf.api, qpdf.data)
        let root = api.qpdf_get_root(data)
        defer { api.qpdf_oh_release(data, root) }
        let form = api.qpdf_oh_get_key(data, root, "/AcroForm")
        defer { api.qpdf_oh_release(data, form) }
        guard api.qpdf_oh_is_dictionary(data, form) != QPDF_FALSE else { return nil }
        var copier = Copier(importer: self, pageIndex: -1, pageReference: nil)
        defer { warnings += qpdf.takeWarnings() }
        do throws(Copier.Failure) {
            try copier.check("read /AcroForm")
            let fieldsHandle = api.qpdf_oh_get_key(data, form, "/Fields")
            defer { api.qpdf_oh_release(data, fieldsHandle) }
            var fields: [PDFObject] = []
            for position in 0..<max(0, Int(api.qpdf_oh_get_array_n_items(data, fieldsHandle))) {
                let field = api.qpdf_oh_get_array_item(data, fieldsHandle, Int32(position))
                defer { api.qpdf_oh_release(data, field) }
                let id = ObjectID(number: api.qpdf_oh_get_object_id(data, field), generation: api.qpdf_oh_get_generation(data, field))
                if let copy = copied[id] { fields.append(.reference(copy)) }
            }
            try copier.check("read /AcroForm /Fields")
            guard !fields.isEmpty else { return nil }
            guard case .dictionary(var dictionary) = try copier.direct(form, depth: 0, step: "read /AcroForm", into: &sink, skipping: ["/Fields", "/XFA"])
            else { return nil }
            dictionary["Fields"] = .array(fields)
            try copier.drain(into: &sink)
            return dictionary
        } catch {
            throw .form(step: error.step, error.message)
        }
    }

    /// Walks one page: direct values convert in place, indirect objects are queued and written to
    /// the sink one by one (a worklist, so long chains of references cannot exhaust the stack).
    private struct Copier {
        let importer: PDFImporter
        let pageIndex: Int
        let pageReference: PDFReference?
        var queue: [(source: qpdf_oh, id: ObjectID, target: PDFReference)] = []

        struct Failure: Error {
            var step: String
            var message: String
        }

        init(importer: PDFImporter, pageIndex: Int, pageReference: PDFReference?) {
            self.importer = importer
            self.pageIndex = pageIndex
            self.pageReference = pageReference
        }

        var data: qpdf_data { importer.qpdf.data }
        var api: trapper_qpdf { importer.qpdf.api }

        func check(_ step: @autoclosure () -> String) throws(Failure) {
            do {
                try importer.qpdf.check()
            } catch {
                throw Failure(step: step(), message: error.message)
            }
        }

        /// Writes every queued object (and whatever they queue in turn) to the sink.
        mutating func drain<Sink: PDFObjectSink>(into sink: inout Sink) throws(Failure) {
            while let next = queue.popLast() {
                let step = "read object \(next.id.number) \(next.id.generation) R"
                defer { api.qpdf_oh_release(data, next.source) }
                let object = try direct(next.source, depth: 0, step: step, into: &sink)
                do {
                    try sink.set(next.target, to: object)
                } catch {
                    throw Failure(step: "write object \(next.target)", message: "\(error)")
                }
            }
        }

        /// The value of `handle` itself (its indirect wrapper ignored), nested values converted,
        /// references inside queued.
        mutating func direct<Sink: PDFObjectSink>(
            _ handle: qpdf_oh, depth: Int, step: String = "read page object", into sink: inout Sink,
            skipping: Set<String> = []
        ) throws(Failure) -> PDFObject
        {
            guard depth < PDFImporter.maximumDepth else {
                throw Failure(step: step, message: "nested more than \(PDFImporter.maximumDepth) deep")
            }
            let type = api.qpdf_oh_get_type_code(data, handle)
            try check(step)
            switch type {
            case ot_null, ot_uninitialized, ot_reserved, ot_destroyed, ot_unresolved:
                return .null
            case ot_boolean:
                return .bool(api.qpdf_oh_get_bool_value(data, handle) != QPDF_FALSE)
            case ot_integer:
                return .integer(Int(api.qpdf_oh_get_int_value(data, handle)))
            case ot_real:
                // qpdf keeps a real as written; parse that text (falling back to its double).
                var pointer: UnsafePointer<CChar>? = nil
                var length = 0
                if api.qpdf_oh_get_value_as_real(data, handle, &pointer, &length) != QPDF_FALSE, let pointer {
                    let text = String(decoding: UnsafeRawBufferPointer(start: pointer, count: length), as: UTF8.self)
                    if let value = Double(text), value.isFinite { return .real(value) }
                }
                return .real(api.qpdf_oh_get_numeric_value(data, handle))
            case ot_string:
                var length = 0
                guard let pointer = api.qpdf_oh_get_binary_string_value(data, handle, &length) else {
                    try check(step)
                    return .string(PDFString(bytes: []))
                }
                let bytes = Array(UnsafeRawBufferPointer(start: pointer, count: length).bindMemory(to: UInt8.self))
                let printable = bytes.allSatisfy { (0x20..<0x7F).contains($0) || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }
                return .string(PDFString(bytes: bytes, form: printable ? .literal : .hex))
            case ot_name:
                return .name(try name(handle, step: step))
            case ot_array:
                let count = Int(api.qpdf_oh_get_array_n_items(data, handle))
                var items: [PDFObject] = []
                items.reserveCapacity(count)
                for position in 0..<count {
                    let item = api.qpdf_oh_get_array_item(data, handle, Int32(position))
                    defer { api.qpdf_oh_release(data, item) }
                    try check(step)
                    items.append(try value(item, depth: depth + 1, step: step, into: &sink))
                }
                return .array(items)
            case ot_dictionary:
                return .dictionary(try dictionary(handle, depth: depth, dropping: skipping, step: step, into: &sink))
            case ot_stream:
                let id = "\(api.qpdf_oh_get_object_id(data, handle)) \(api.qpdf_oh_get_generation(data, handle)) R"
                let streamStep = "read stream \(id)"
                let dictionaryHandle = api.qpdf_oh_get_dict(data, handle)
                defer { api.qpdf_oh_release(data, dictionaryHandle) }
                try check(streamStep)
                // /Length goes: the writer sets it from the bytes.
                let dictionary = try dictionary(
                    dictionaryHandle, depth: depth, dropping: ["/Length"], step: streamStep, into: &sink)
                var buffer: UnsafeMutablePointer<UInt8>? = nil
                var length = 0
                let status = api.qpdf_oh_get_stream_data(data, handle, qpdf_dl_none, nil, &buffer, &length)
                defer { free(buffer) }
                do {
                    try importer.qpdf.check(status)
                } catch {
                    throw Failure(step: streamStep, message: error.message)
                }
                let bytes = buffer.map { Array(UnsafeBufferPointer(start: $0, count: length)) } ?? []
                return .stream(PDFStream(dictionary: dictionary, data: bytes))
            default:
                // Operators and inline images exist only inside content streams.
                throw Failure(step: step, message: "unexpected object type \(type.rawValue)")
            }
        }

        /// A value inside an array or dictionary: a reference stays a reference (to the copy).
        mutating func value<Sink: PDFObjectSink>(_ handle: qpdf_oh, depth: Int, step: String, into sink: inout Sink)
            throws(Failure) -> PDFObject
        {
            guard api.qpdf_oh_is_indirect(data, handle) != QPDF_FALSE else {
                return try direct(handle, depth: depth, step: step, into: &sink)
            }
            let id = ObjectID(number: api.qpdf_oh_get_object_id(data, handle), generation: api.qpdf_oh_get_generation(data, handle))
            if let index = importer.pageIndexes[id] {
                // This page: where the caller writes it. Another page: not pulled in.
                if index == pageIndex, let pageReference { return .reference(pageReference) }
                return .null
            }
            if id == importer.catalogID { return .null }
            if let target = importer.copied[id] { return .reference(target) }
            let type = api.qpdf_oh_get_type_code(data, handle)
            try check("read object \(id.number) \(id.generation) R")
            switch type {
            case ot_null, ot_uninitialized, ot_reserved, ot_destroyed, ot_unresolved:
                return .null  // a reference to a missing object means null (§7.3.10)
            case ot_dictionary where api.qpdf_oh_is_dictionary_of_type(data, handle, "/Pages", "") != QPDF_FALSE:
                return .null  // page-tree nodes are not copied
            default:
                break
            }
            let target = sink.reserve()
            importer.copied[id] = target
            queue.append((api.qpdf_oh_new_object(data, handle), id, target))
            return .reference(target)
        }

        mutating func dictionary<Sink: PDFObjectSink>(
            _ handle: qpdf_oh, depth: Int, dropping: Set<String>, step: String, into sink: inout Sink
        ) throws(Failure) -> PDFDictionary
        {
            // One key iterator per handle: take all keys before looking at any value.
            var keys: [String] = []
            api.qpdf_oh_begin_dict_key_iter(data, handle)
            while api.qpdf_oh_dict_more_keys(data) != QPDF_FALSE {
                guard let key = api.qpdf_oh_dict_next_key(data) else { break }
                keys.append(String(cString: key))
            }
            try check(step)
            var result = PDFDictionary()
            for key in keys where !dropping.contains(key) {
                let item = api.qpdf_oh_get_key(data, handle, key)
                defer { api.qpdf_oh_release(data, item) }
                try check(step)
                if !importer.keepsActiveContent, let active = activeContent(key, item) {
                    importer.removed += active
                    continue
                }
                let converted = try value(item, depth: depth + 1, step: step, into: &sink)
                if key == "/P", pageReference == nil, converted == .null { continue }
                result[PDFName(bytes: Array(key.utf8.dropFirst()))] = converted
            }
            return result
        }

        /// What of `key`'s value runs code: all of /AA; an /A action of an active type; a /Next that
        /// chains one (dropped whole). Nil when the value stays.
        func activeContent(_ key: String, _ item: qpdf_oh) -> [String]? {
            switch key {
            case "/AA":
                return ["AA"]
            case "/A", "/Next":
                var actions = [item]
                var owned: [qpdf_oh] = []
                defer { for handle in owned { api.qpdf_oh_release(data, handle) } }
                if api.qpdf_oh_is_array(data, item) != QPDF_FALSE {
                    actions = (0..<api.qpdf_oh_get_array_n_items(data, item)).map { api.qpdf_oh_get_array_item(data, item, $0) }
                    owned = actions
                }
                let active = actions.compactMap { PDFImporter.actionType(importer.qpdf, $0) }.filter(PDFImporter.activeActions.contains)
                return active.isEmpty ? nil : active
            default:
                return nil
            }
        }

        func name(_ handle: qpdf_oh, step: String) throws(Failure) -> PDFName {
            var pointer: UnsafePointer<CChar>? = nil
            var length = 0
            guard api.qpdf_oh_get_value_as_name(data, handle, &pointer, &length) != QPDF_FALSE, let pointer else {
                try check(step)
                throw Failure(step: step, message: "a name without a value")
            }
            let bytes = Array(UnsafeRawBufferPointer(start: pointer, count: length).bindMemory(to: UInt8.self))
            return PDFName(bytes: bytes.first == UInt8(ascii: "/") ? Array(bytes.dropFirst()) : bytes)
        }
    }
}
