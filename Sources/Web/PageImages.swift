import Daemon
import Foundation
import Glibc
import Imaging
import PDFAccess
import System
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

    /// Poppler documents open, and pictures rendered (24 MB of them at most).
    private let documents = KeptValues<OpenDocument>(count: 8)
    private let pictures = KeptValues<[UInt8]>(count: .max, weight: 24 << 20, weigh: \.count)

    /// Where copies of earlier revisions are made for poppler (the state folder, mode 0600).
    let scratch: String

    init(scratch: String) { self.scratch = scratch }

    /// Page `index` (0-based) of `document` (the file as it is) as it was at `end`, `width` pixels wide, as a PNG.
    /// With `region` (fractions of the page as shown), only that part of the page at that width.
    func png(_ document: DocumentInfo, end: Int, page index: Int, width: Int, region: Rect? = nil) throws -> [UInt8] {
        let part = region.map { "\u{0}\($0.numbers)" } ?? ""
        let key = "\(document.path)\u{0}\(document.identity)\u{0}\(end)\u{0}\(index)\u{0}\(width)" + part
        return try pictures.value(key) {
            let open = try self.open(document, end: end)
            return try open.lock.withLock {
                let rendered = try open.renderer.render(page: index, width: width, region: region)
                return try PNGWriter.encode(width: rendered.raster.width, height: rendered.raster.height, bitDepth: 8, channels: 3,
                                            samples: rendered.raster.samples, dpi: Double(rendered.dpi), flate: ZlibFlate())
            }
        }
    }

    /// The photo page `index` (0-based) of `document` (the file as it is) was cut from, upright,
    /// `width` pixels wide at most, as a JPEG; nil when the page keeps none.
    func photo(_ document: DocumentInfo, page index: Int, width: Int) throws -> [UInt8]? {
        guard let photo = document.pages[index].photo else { return nil }
        let key = "photo\u{0}\(document.path)\u{0}\(document.identity)\u{0}\(document.end)\u{0}\(index)\u{0}\(width)"
        return try pictures.value(key) {
            let source = try PDFFileSource(path: document.path)
            let editor = try PDFPageEditor(reader: PDFTailReader(source: PDFPrefixSource(source, length: document.end),
                                                                 decoder: FlateStreamDecoder()))
            guard let image = try editor.image(of: photo) else { throw ImageInputError.decodeFailed(.jpeg, "the kept photo is not an image") }
            return try PhotoReframe.picture(photo, image: image, width: width, flate: ZlibFlate())
        }
    }

    /// The words of page `index` (0-based) of the file as it is now.
    func words(_ document: DocumentInfo, page index: Int) throws -> [(text: String, box: Rect)] {
        let open = try self.open(document, end: document.end)
        return try open.lock.withLock { try open.renderer.words(ofPage: index) }
    }

    /// Poppler on the file, or, for an earlier revision, on a copy of its first `end` bytes in the
    /// state folder, readable by its owner only; the copy's name is removed at once (poppler keeps
    /// the file open). Kept by the file's identity: once the file changes, a new one is opened.
    private func open(_ document: DocumentInfo, end: Int) throws -> OpenDocument {
        let (path, length) = (document.path, document.end)
        return try documents.value("\(path)\u{0}\(document.identity)\u{0}\(end)") {
            guard end < length else { return OpenDocument(try PDFPageRenderer(path: path)) }
            try Durable.makeFolder(scratch)
            let copy = scratch + "/revision-\(UUID().uuidString).pdf"
            let fd = Glibc.open(copy, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
            guard fd >= 0 else { throw Durable.Failure(step: "create", path: copy, code: errno) }
            defer { unlink(copy) }
            let bytes = try PDFFileSource(path: path).read(offset: 0, count: end)
            let written = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
            Glibc.close(fd)
            guard written == bytes.count else { throw Durable.Failure(step: "write", path: copy, code: EIO) }
            return OpenDocument(try PDFPageRenderer(path: copy))
        }
    }
}
