// Internal, so that PDFAccess's clients need not find poppler's headers: Package.swift gives their
// folders to this target only.
internal import CPoppler
import Foundation
import TrapperCore

/// Renders pages of a PDF on disk through poppler and cairo, as a viewer shows them (the page's
/// /Rotate applied, its crop box), to 8-bit grey (what OCR reads) or RGB (a preview).
///
/// Owns its poppler document: not Sendable, use it from one task.
public final class PDFPageRenderer {
    public enum Failure: Error, CustomStringConvertible {
        case open(path: String, String)
        case noSuchPage(Int)
        case render(String)

        public var description: String {
            switch self {
            case .open(let path, let message): "render: open \(path): \(message)"
            case .noSuchPage(let index): "render: no page \(index + 1)"
            case .render(let message): "render: \(message)"
            }
        }
    }

    /// A rendered page: grey pixels, and its size in points as shown.
    public struct Rendered: Sendable {
        public var raster: Raster
        public var dpi: Int
        public var shownWidth: Double
        public var shownHeight: Double
    }

    private let document: OpaquePointer
    private let poppler: trapper_poppler

    public init(path: String) throws(Failure) {
        do {
            poppler = try Poppler.functions()
        } catch {
            throw .open(path: path, error.description)
        }
        var error: UnsafeMutablePointer<GError>?
        guard let document = poppler.poppler_document_new_from_file(URL(fileURLWithPath: path).absoluteString, nil, &error) else {
            let message = error.map { String(cString: $0.pointee.message) } ?? "poppler could not open it"
            if let error { poppler.g_error_free(error) }
            throw .open(path: path, message)
        }
        self.document = document
    }

    deinit { poppler.g_object_unref(UnsafeMutableRawPointer(document)) }

    public var pageCount: Int { Int(poppler.poppler_document_get_n_pages(document)) }

    /// The text poppler finds on the page (empty for a picture of text).
    public func text(ofPage index: Int) throws(Failure) -> String {
        guard let page = poppler.poppler_document_get_page(document, Int32(index)) else { throw .noSuchPage(index) }
        defer { poppler.g_object_unref(UnsafeMutableRawPointer(page)) }
        guard let text = poppler.poppler_page_get_text(page) else { return "" }
        defer { poppler.g_free(text) }
        return String(cString: text)
    }

    /// The page's words as poppler reads them, each with the box it covers on the page as shown
    /// (crop box, rotation applied), in points with y down from the top-left corner, in reading order.
    public func words(ofPage index: Int) throws(Failure) -> [(text: String, box: Rect)] {
        guard let page = poppler.poppler_document_get_page(document, Int32(index)) else { throw .noSuchPage(index) }
        defer { poppler.g_object_unref(UnsafeMutableRawPointer(page)) }
        guard let text = poppler.poppler_page_get_text(page) else { return [] }
        defer { poppler.g_free(text) }
        var rectangles: UnsafeMutablePointer<PopplerRectangle>?
        var count: guint = 0
        guard poppler.poppler_page_get_text_layout(page, &rectangles, &count) != 0, let rectangles else { return [] }
        defer { poppler.g_free(rectangles) }
        // One rectangle for each character of the page's text, in the same order.
        var words: [(text: String, box: Rect)] = []
        var word = "", box: Rect?
        func finish() {
            if let box, !word.isEmpty { words.append((word, box)) }
            (word, box) = ("", nil)
        }
        for (offset, character) in String(cString: text).unicodeScalars.enumerated() {
            guard offset < Int(count) else { break }
            if character.properties.isWhitespace {
                finish()
                continue
            }
            let r = rectangles[offset]
            let rect = Rect(x0: r.x1, y0: r.y1, x1: r.x2, y1: r.y2)
            word.unicodeScalars.append(character)
            box = box.map { $0.union(rect) } ?? rect
        }
        finish()
        return words
    }

    /// The page `pixels` wide (the workspace's page images and thumbnails); with `region` (x0, y0,
    /// x1, y1 as fractions of the page as shown, y down), only that part of it, at the same scale:
    /// the part of a zoomed page on screen, sharp long before the whole page would be.
    public func render(page index: Int, width pixels: Int, region: Rect? = nil, color: Bool = true) throws(Failure) -> Rendered {
        try render(page: index, color: color, region: region) { width, _ in Double(pixels) / max(width, 1) }
    }

    /// The page at `dpi`: 8-bit grey (what OCR and the separator sheets read), or RGB with `color`
    /// (a preview).
    public func render(page index: Int, dpi: Int, color: Bool = false) throws(Failure) -> Rendered {
        try render(page: index, color: color) { _, _ in Double(dpi) / 72 }
    }

    /// The page scaled so that its longer side is `pixels` long (a thumbnail).
    public func render(page index: Int, fitting pixels: Int, color: Bool = false) throws(Failure) -> Rendered {
        try render(page: index, color: color) { width, height in Double(pixels) / max(width, height, 1) }
    }

    /// `scale` gives pixels per point from the page's size in points.
    private func render(page index: Int, color: Bool, region: Rect? = nil, scale: (Double, Double) -> Double) throws(Failure) -> Rendered {
        guard let page = poppler.poppler_document_get_page(document, Int32(index)) else { throw .noSuchPage(index) }
        defer { poppler.g_object_unref(UnsafeMutableRawPointer(page)) }
        var width = 0.0, height = 0.0
        poppler.poppler_page_get_size(page, &width, &height)
        let scale = scale(width, height)
        let dpi = Int((scale * 72).rounded())
        // Whole pixels, rounded up; the small nudge keeps 300 pt × 0.4 at 120, not 121.
        let (fullWidth, fullHeight) = (Int((width * scale - 1e-9).rounded(.up)), Int((height * scale - 1e-9).rounded(.up)))
        // The region's pixels: its edges rounded outwards to whole pixels of the whole page.
        let left = region.map { Int((Double(fullWidth) * $0.x0).rounded(.down)) } ?? 0
        let top = region.map { Int((Double(fullHeight) * $0.y0).rounded(.down)) } ?? 0
        let right = region.map { min(fullWidth, Int((Double(fullWidth) * $0.x1).rounded(.up))) } ?? fullWidth
        let bottom = region.map { min(fullHeight, Int((Double(fullHeight) * $0.y1).rounded(.up))) } ?? fullHeight
        let (pixelWidth, pixelHeight) = (right - left, bottom - top)
        guard pixelWidth > 0, pixelHeight > 0, pixelWidth * pixelHeight <= 400_000_000 else {
            throw .render("a page of \(width) × \(height) pt at \(dpi) dpi is too large to render")
        }
        guard let surface = poppler.cairo_image_surface_create(CAIRO_FORMAT_RGB24, Int32(pixelWidth), Int32(pixelHeight)) else {
            throw .render("cairo could not make a surface")
        }
        defer { poppler.cairo_surface_destroy(surface) }
        let cairo = poppler.cairo_create(surface)
        poppler.cairo_set_source_rgb(cairo, 1, 1, 1)
        poppler.cairo_paint(cairo)
        poppler.cairo_translate(cairo, Double(-left), Double(-top))
        poppler.cairo_scale(cairo, scale, scale)
        poppler.poppler_page_render(page, cairo)
        poppler.cairo_destroy(cairo)
        poppler.cairo_surface_flush(surface)
        guard poppler.cairo_surface_status(surface) == CAIRO_STATUS_SUCCESS, let data = poppler.cairo_image_surface_get_data(surface) else {
            throw .render("cairo could not render the page")
        }
        let stride = Int(poppler.cairo_image_surface_get_stride(surface))
        let channels = color ? 3 : 1
        var samples = [UInt8](repeating: 0, count: pixelWidth * pixelHeight * channels)
        for y in 0..<pixelHeight {
            // Cairo's RGB24 is one native-endian word a pixel, 0x00RRGGBB.
            let row = UnsafeRawPointer(data + y * stride).assumingMemoryBound(to: UInt32.self)
            for x in 0..<pixelWidth {
                let pixel = row[x]
                let (r, g, b) = ((pixel >> 16) & 0xFF, (pixel >> 8) & 0xFF, pixel & 0xFF)
                let at = (y * pixelWidth + x) * channels
                if color {
                    (samples[at], samples[at + 1], samples[at + 2]) = (UInt8(r), UInt8(g), UInt8(b))
                } else {
                    samples[at] = UInt8((r * 299 + g * 587 + b * 114) / 1000)
                }
            }
        }
        let raster = Raster(width: pixelWidth, height: pixelHeight, channels: channels, depth: 8,
                            bytesPerLine: pixelWidth * channels, samples: samples)
        return Rendered(raster: raster, dpi: dpi, shownWidth: width, shownHeight: height)
    }
}
