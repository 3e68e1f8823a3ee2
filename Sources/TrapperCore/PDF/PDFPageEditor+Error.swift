/// Why a page edit was refused, with the operation and the page it was about, as pdfcpu says
/// it: `rotate: page 13: out of range (the document has 12 pages)`. An edit that throws leaves
/// the editor as it was before the call.
public struct PDFPageEditError: Error, Equatable, Sendable, CustomStringConvertible {
    public enum Operation: String, Sendable {
        case open, rotate, delete, move, crop, duplicate, metadata, bookmark, annotate, flatten, erase, reframe, change
        case listAnnotations = "list annotations"
        case readPage = "read page"
        case insertBlank = "insert blank"
    }

    /// The closed set of reasons.
    public enum Reason: Equatable, Sendable {
        /// An index outside `0..<pageCount` (or `0...pageCount` where a position is meant).
        case outOfRange(pageCount: Int)
        /// A PDF needs at least one page.
        case wouldDeleteEveryPage(pageCount: Int)
        case notARightAngle(degrees: Int)
        /// Not four finite numbers.
        case badBox([Double])
        case emptyBox([Double])
        case outsideMediaBox([Double], mediaBox: [Double])
        case badPageSize(width: Double, height: Double)
        /// The target's own structure could not be read where the edit needed it.
        case unreadable(PDFError)
        /// A legal page-tree shape this editor does not take on (see `PDFPageEditor`).
        case unsupportedPageTree(String)
        /// `erase` by id: nothing has that id.
        case noSuchAnnotation(String)
        /// `erase` by id of a form field's widget, which belongs to the form as much as to the page.
        case formFieldWidget(String)
        /// `reframe` of a page that keeps no photo to cut it from.
        case noKeptPhoto
        /// A page both cut again and drawn into in one revision: the drawing would be on the old page.
        case reframedAndFlattened
        /// `change` of an annotation this editor cannot rewrite where it is, and why.
        case cannotChange(String, why: String)
    }

    public var operation: Operation
    /// The page concerned, 0-based like the editor's API (the description counts from 1, as users do).
    public var page: Int?
    public var reason: Reason

    public init(_ operation: Operation, page: Int? = nil, _ reason: Reason) {
        self.operation = operation
        self.page = page
        self.reason = reason
    }

    public var description: String {
        var text = operation.rawValue + ": "
        if let page { text += "page \(page + 1): " }
        switch reason {
        case .outOfRange(let count):
            text += "out of range (the document has \(count) page\(count == 1 ? "" : "s"))"
        case .wouldDeleteEveryPage(let count):
            text += "would delete all \(count) page\(count == 1 ? "" : "s"); a PDF needs at least one"
        case .notARightAngle(let degrees): text += "\(degrees) degrees is not a multiple of 90"
        case .badBox(let box): text += "\(Self.format(box)) is not a box of four finite numbers"
        case .emptyBox(let box): text += "box \(Self.format(box)) is empty"
        case .outsideMediaBox(let box, let media):
            text += "box \(Self.format(box)) is not inside the media box \(Self.format(media))"
        case .badPageSize(let width, let height):
            text += "page size \(Self.format([width, height])) points is outside 3...14400 (ISO 32000-1 C.2)"
        case .unreadable(let error): text += error.description
        case .unsupportedPageTree(let message): text += message
        case .noSuchAnnotation(let id): text += "no annotation has the id \"\(id)\" (pdftrapper annotations lists them)"
        case .formFieldWidget(let id):
            text += "\"\(id)\" is a form field's widget, which erase leaves alone (the form would lose the field)"
        case .noKeptPhoto:
            text += "the page keeps no photo to cut it from (only a page made by find_page does)"
        case .reframedAndFlattened:
            text += "a page cut again and drawn into in the same script: save the two in scripts of their own"
        case .cannotChange(let id, let why): text += "annotation \"\(id)\" \(why)"
        }
        return text
    }

    static func format(_ numbers: [Double]) -> String {
        "[" + numbers.map { PDFObject.real($0).serialized }.map { String(decoding: $0, as: UTF8.self) }
            .joined(separator: " ") + "]"
    }
}
