import Foundation
import PDFAccess
import TrapperCore

/// Page pictures for the workspace, rendered by poppler (the renderer OCR and `preview` use) and
/// kept by (file, revision end, page, width), so a page is rendered once per revision and size.
/// A document opens lazily: poppler reads only the pages asked for, whatever the document's length.
final class PageImages: @unchecked Sendable {
    /// One open poppler document; poppler is not thread-safe, so one render at a time each.
    final class OpenDocument: @unchecked Sendable {
        let lock = NSLock()
        let renderer: PDFPageRenderer
        init(_ renderer: PDFPageRenderer) { self.renderer = renderer }
    }

    private let lock = NSLock()
    private var documents: [String: OpenDocument] = [:]
    private var documentOrder: [String] = []
    private var pictures: [String: [UInt8]] = [:]
    private var pictureOrder: [String] = []
    private var pictureBytes = 0
    /// What the kept pictures may weigh in all.
    let budget = 24 << 20
    let openLimit = 8

    /// Page `index` (0-based) of the file as it was at `end`, `width` pixels wide, as a PNG.
    func png(_ path: String, end: Int, length: Int, page index: Int, width: Int) throws -> [UInt8] {
        let key = "\(path)\u{0}\(end)\u{0}\(index)\u{0}\(width)"
        lock.lock()
        if let kept = pictures[key] {
            lock.unlock()
            return kept
        }
        lock.unlock()
        let document = try open(path, end: end, length: length)
        let picture: [UInt8] = try document.lock.withLock {
            let rendered = try document.renderer.render(page: index, width: width)
            return try PNGWriter.encode(width: rendered.raster.width, height: rendered.raster.height, bitDepth: 8, channels: 3,
                                        samples: rendered.raster.samples, dpi: Double(rendered.dpi), flate: ZlibFlate())
        }
        lock.lock()
        defer { lock.unlock() }
        if pictures[key] == nil {
            pictures[key] = picture
            pictureOrder.append(key)
            pictureBytes += picture.count
            while pictureBytes > budget, !pictureOrder.isEmpty {
                let oldest = pictureOrder.removeFirst()
                pictureBytes -= pictures.removeValue(forKey: oldest)?.count ?? 0
            }
        }
        return picture
    }

    /// The words of page `index` (0-based) of the file as it is now.
    func words(_ path: String, length: Int, page index: Int) throws -> [(text: String, box: Rect)] {
        let document = try open(path, end: length, length: length)
        return try document.lock.withLock { try document.renderer.words(ofPage: index) }
    }

    /// Poppler on the file, or, for an earlier revision, on a copy of its first `end` bytes (the
    /// copy's name is removed at once: poppler keeps the file open).
    private func open(_ path: String, end: Int, length: Int) throws -> OpenDocument {
        let key = "\(path)\u{0}\(end)"
        lock.lock()
        if let open = documents[key] {
            lock.unlock()
            return open
        }
        lock.unlock()
        let renderer: PDFPageRenderer
        if end >= length {
            renderer = try PDFPageRenderer(path: path)
        } else {
            let copy = FileManager.default.temporaryDirectory.appendingPathComponent("pdftrapper-web-\(UUID().uuidString).pdf").path
            defer { try? FileManager.default.removeItem(atPath: copy) }
            let source = try PDFFileSource(path: path)
            try Data(source.read(offset: 0, count: end)).write(to: URL(fileURLWithPath: copy))
            renderer = try PDFPageRenderer(path: copy)
        }
        let document = OpenDocument(renderer)
        lock.lock()
        defer { lock.unlock() }
        if let raced = documents[key] { return raced }
        documents[key] = document
        documentOrder.append(key)
        if documentOrder.count > openLimit { documents[documentOrder.removeFirst()] = nil }
        return document
    }
}
