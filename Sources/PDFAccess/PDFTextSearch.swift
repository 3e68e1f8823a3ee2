// Internal, so that PDFAccess's clients need not find poppler's headers: Package.swift gives their
// folders to this target only.
internal import CPoppler
import CQPDF
import Foundation
import TrapperCore

/// Finds text on a page of a PDF as it is on disk, through poppler's text search, the way a
/// viewer's find bar does: case-insensitive, and across a line break (one rectangle for each line
/// a match runs over; a word hyphenated at the break is not found). The page is named by its
/// object (qpdf tells its index), since an edit script's earlier edits may have moved it.
///
/// Owns its poppler document: not Sendable, use it from one task.
public final class PDFTextSearch {
    public enum Failure: Error, CustomStringConvertible {
        case open(path: String, String)
        case noSuchPage(PDFReference)

        public var description: String {
            switch self {
            case .open(let path, let message): "text search: open \(path): \(message)"
            case .noSuchPage(let reference): "text search: no page \(reference) in the file"
            }
        }
    }

    let path: String
    private let qpdf: QPDFHandle
    private let document: OpaquePointer
    private let poppler: trapper_poppler

    public init(path: String) throws(Failure) {
        self.path = path
        do throws(QPDFHandle.Failure) {
            qpdf = try QPDFHandle()
            try qpdf.read(path, password: nil)
        } catch {
            throw .open(path: path, error.message)
        }
        do {
            poppler = try Poppler.functions()
        } catch {
            throw .open(path: path, error.description)
        }
        var error: UnsafeMutablePointer<GError>?
        let uri = URL(fileURLWithPath: path).absoluteString
        guard let document = poppler.poppler_document_new_from_file(uri, nil, &error) else {
            let message = error.map { String(cString: $0.pointee.message) } ?? "poppler could not open it"
            if let error { poppler.g_error_free(error) }
            throw .open(path: path, message)
        }
        self.document = document
    }

    deinit { poppler.g_object_unref(UnsafeMutableRawPointer(document)) }

    /// Whether the page held under `reference` has any text at all (a scan without OCR has none).
    public func hasText(onPage reference: PDFReference) throws(Failure) -> Bool {
        let index = qpdf.api.qpdf_find_page_by_id(qpdf.data, Int32(reference.number), Int32(reference.generation))
        guard index >= 0, let page = poppler.poppler_document_get_page(document, index) else { throw .noSuchPage(reference) }
        defer { poppler.g_object_unref(UnsafeMutableRawPointer(page)) }
        guard let text = poppler.poppler_page_get_text(page) else { return false }
        defer { poppler.g_free(text) }
        return !String(cString: text).allSatisfy(\.isWhitespace)
    }

    /// Where `text` stands on the page held under `reference`: for each place, its rectangles (one
    /// a line) in the page's shown space as poppler measures it (the crop box with the page's
    /// rotation applied, y up), in reading order.
    public func find(_ text: String, onPage reference: PDFReference) throws(Failure) -> [[Rect]] {
        let index = qpdf.api.qpdf_find_page_by_id(qpdf.data, Int32(reference.number), Int32(reference.generation))
        guard index >= 0, let page = poppler.poppler_document_get_page(document, index) else { throw .noSuchPage(reference) }
        defer { poppler.g_object_unref(UnsafeMutableRawPointer(page)) }
        let found = poppler.poppler_page_find_text_with_options(page, text, POPPLER_FIND_MULTILINE)
        // The list holds its rectangles as untyped pointers, which is what poppler_rectangle_free takes.
        defer { poppler.g_list_free_full(found, unsafeBitCast(poppler.poppler_rectangle_free, to: GDestroyNotify.self)) }
        var places: [[Rect]] = []
        var current: [Rect] = []
        var item = found
        while let node = item {
            if let pointer = node.pointee.data?.assumingMemoryBound(to: PopplerRectangle.self) {
                let rect = pointer.pointee
                current.append(Rect(x0: rect.x1, y0: rect.y1, x1: rect.x2, y1: rect.y2))
                // A match that goes on past a line break continues in the next rectangle.
                if poppler.poppler_rectangle_find_get_match_continued(pointer) == 0 {
                    places.append(current)
                    current = []
                }
            }
            item = node.pointee.next
        }
        if !current.isEmpty { places.append(current) }
        return places
    }
}
