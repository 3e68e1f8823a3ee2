// Internal, so that PDFAccess's clients need not find poppler's headers.
internal import CPoppler
import Foundation
import System
import TrapperCore

/// The words of every page of a PDF as poppler reads them, for the search index: each page's text
/// layer (the PDF's own, or ours from OCR) and the text of its annotations (notes, text boxes).
/// Read from the file's first `length` bytes, a revision that stands, so that a revision being
/// appended meanwhile is not half read.
///
/// Owns its poppler document: not Sendable, use it from one task.
public final class PDFPageTexts {
    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    public let pageCount: Int
    private let poppler: trapper_poppler
    private let document: OpaquePointer
    private let bytes: OpaquePointer
    /// The mapped file, which the GBytes above points into: kept as long as the document.
    private let data: Data

    public init(path: String, length: Int) throws(Failure) {
        do {
            poppler = try Poppler.functions()
        } catch {
            throw Failure(description: error.description)
        }
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path), options: .alwaysMapped).prefix(length)
        } catch {
            throw Failure(description: "\(path): \(error.localizedDescription)")
        }
        guard data.count == length else { throw Failure(description: "\(path): \(data.count) bytes, not the \(length) expected") }
        let poppler = self.poppler
        guard let bytes = data.withUnsafeBytes({ poppler.g_bytes_new_static($0.baseAddress, gsize($0.count)) }) else {
            throw Failure(description: "\(path): glib could not hold it")
        }
        var error: UnsafeMutablePointer<GError>?
        guard let document = poppler.poppler_document_new_from_bytes(bytes, nil, &error) else {
            let message = error.map { String(cString: $0.pointee.message) } ?? "poppler could not open it"
            if let error { poppler.g_error_free(error) }
            poppler.g_bytes_unref(bytes)
            throw Failure(description: "\(path): \(message)")
        }
        self.bytes = bytes
        self.document = document
        pageCount = Int(poppler.poppler_document_get_n_pages(document))
    }

    deinit {
        poppler.g_object_unref(UnsafeMutableRawPointer(document))
        poppler.g_bytes_unref(bytes)
    }

    /// Page `index`'s (from 0) text layer, and its annotations' text, one a line.
    public func words(ofPage index: Int) -> (text: String, notes: String) {
        guard index >= 0, index < pageCount, let page = poppler.poppler_document_get_page(document, Int32(index)) else { return ("", "") }
        defer { poppler.g_object_unref(UnsafeMutableRawPointer(page)) }
        var text = ""
        if let layer = poppler.poppler_page_get_text(page) {
            text = String(cString: layer)
            poppler.g_free(layer)
        }
        var notes: [String] = []
        let mapping = poppler.poppler_page_get_annot_mapping(page)
        var item = mapping
        while let node = item {
            if let annotation = node.pointee.data?.assumingMemoryBound(to: PopplerAnnotMapping.self).pointee.annot,
               let contents = poppler.poppler_annot_get_contents(annotation) {
                let line = String(cString: contents)
                poppler.g_free(contents)
                if !line.allSatisfy(\.isWhitespace) { notes.append(line) }
            }
            item = node.pointee.next
        }
        if let mapping { poppler.poppler_page_free_annot_mapping(mapping) }
        return (text, notes.joined(separator: "\n"))
    }
}
