import Foundation

/// Edits of the document rather than its pages: the /Info dictionary and the outline (bookmarks).
/// Both are read when first edited, so `write` only writes.
extension PDFPageEditor {
    /// The /Info dictionary to write: the target's (updated in place when it is an object), or a new one.
    struct InfoEdit {
        /// nil: a new object, which the trailer's /Info must then point at.
        var reference: PDFReference?
        var dictionary: PDFDictionary
    }

    /// The outline (§12.3.3) with new top-level items appended after its last one.
    struct OutlineEdit {
        /// nil: a new outline dictionary, hung in the catalog.
        var reference: PDFReference?
        var dictionary: PDFDictionary
        /// The catalog to rewrite with /Outlines, when the outline is new.
        var catalog: PDFDictionary?
        /// The top-level item the new ones follow.
        var last: (reference: PDFReference, dictionary: PDFDictionary)?
        var items: [(title: String, page: Int)] = []
    }

    /// Sets document information (/Title, /Author, /Subject, /Keywords): nil leaves a field as it
    /// is, "" removes it. /ModDate becomes `date`.
    public mutating func setInfo(title: String?, author: String?, subject: String?, keywords: String?,
                                 modified date: Date = Date()) throws {
        var edit = try info ?? Self.wrapping(.metadata) { try readInfo() }
        for (key, value) in [("Title", title), ("Author", author), ("Subject", subject), ("Keywords", keywords)] {
            guard let value else { continue }
            edit.dictionary[PDFName(key)] = value.isEmpty ? nil : .string(Self.textString(value))
        }
        edit.dictionary["ModDate"] = .string(PDFString(RevisionRecord.pdfDate(date)))
        info = edit
    }

    /// Adds an outline item titled `title` that opens page `index` (/Dest [page /Fit]), as the last
    /// top-level item. If the page is deleted later in the same revision, the item opens nothing.
    public mutating func addBookmark(title: String, page index: Int) throws {
        makeUnique()
        let page = try located(index, .bookmark)
        var edit = try outline ?? Self.wrapping(.bookmark, page: index) { try readOutline() }
        edit.items.append((title, page))
        outline = edit
    }

    private func readInfo() throws -> InfoEdit {
        let reader = tree.reader
        if let reference = reader.tail.info, case .dictionary(let dictionary) = try reader.resolve(reference) {
            return InfoEdit(reference: reference, dictionary: dictionary)
        }
        // A direct /Info (which §14.3.3 forbids, and some writers make) moves into an object.
        return InfoEdit(reference: nil, dictionary: reader.tail.trailer[.info]?.dictionaryValue ?? [:])
    }

    private func readOutline() throws -> OutlineEdit {
        let reader = tree.reader
        let catalog = try reader.catalog()
        var edit: OutlineEdit
        if let reference = catalog["Outlines"]?.referenceValue,
           case .dictionary(let dictionary) = try reader.resolve(reference) {
            edit = OutlineEdit(reference: reference, dictionary: dictionary)
        } else {
            let direct = catalog["Outlines"]?.dictionaryValue ?? [:]
            edit = OutlineEdit(reference: nil, dictionary: direct, catalog: catalog)
        }
        if let last = edit.dictionary["Last"]?.referenceValue, case .dictionary(let item) = try reader.resolve(last) {
            edit.last = (last, item)
        } else if var next = edit.dictionary["First"]?.referenceValue {
            // No usable /Last: the end of the /First–/Next chain.
            var seen: Set<Int> = []
            while seen.insert(next.number).inserted, case .dictionary(let item) = try reader.resolve(next) {
                edit.last = (next, item)
                guard let following = item["Next"]?.referenceValue else { break }
                next = following
            }
        }
        return edit
    }

    /// A text string (§7.9.2.2): plain ASCII as it is, anything else UTF-16BE with its byte order mark.
    static func textString(_ text: String) -> PDFString {
        if text.unicodeScalars.allSatisfy({ (0x20..<0x7F).contains($0.value) }) { return PDFString(text) }
        var bytes: [UInt8] = [0xFE, 0xFF]
        for unit in text.utf16 { bytes += [UInt8(unit >> 8), UInt8(unit & 0xFF)] }
        return PDFString(bytes: bytes, form: .hex)
    }
}
