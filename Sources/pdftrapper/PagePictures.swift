import Foundation
import PDFAccess
import TrapperCore

/// Pictures of a target's pages as PNG files, through poppler and cairo, for `preview` and
/// `history --thumbnails`; any earlier revision's pages as they were then.
struct PagePictures {
    let target: String
    let history: [RevisionHistory.Entry]

    init(target: String) throws {
        self.target = target
        history = try RevisionHistory.read(PDFFileSource(path: target), decoder: FlateStreamDecoder())
    }

    /// Runs `body` with a renderer of the file as revision `number` (1-based) left it: the file
    /// itself for the last, else a copy of its first bytes in a temporary file, removed after.
    func withRevision<T>(_ number: Int?, _ body: (PDFPageRenderer) throws -> T) throws -> T {
        guard let number, number < history.count else { return try body(PDFPageRenderer(path: target)) }
        let copy = FileManager.default.temporaryDirectory.appendingPathComponent("pdftrapper-revision-\(UUID().uuidString).pdf").path
        defer { try? FileManager.default.removeItem(atPath: copy) }
        let source = try PDFFileSource(path: target)
        let end = history[number - 1].end
        try Data(source.read(offset: 0, count: end)).write(to: URL(fileURLWithPath: copy))
        return try body(PDFPageRenderer(path: copy))
    }

    /// Page `index` as an RGB PNG at `dpi`.
    static func png(_ renderer: PDFPageRenderer, page index: Int, dpi: Int) throws -> [UInt8] {
        try png(renderer.render(page: index, dpi: dpi, color: true))
    }

    /// Page `index` as an RGB PNG whose longer side is `pixels` long.
    static func png(_ renderer: PDFPageRenderer, page index: Int, fitting pixels: Int) throws -> [UInt8] {
        try png(renderer.render(page: index, fitting: pixels, color: true))
    }

    private static func png(_ page: PDFPageRenderer.Rendered) throws -> [UInt8] {
        try PNGWriter.encode(width: page.raster.width, height: page.raster.height, bitDepth: 8, channels: 3,
                             samples: page.raster.samples, dpi: Double(page.dpi), flate: ZlibFlate())
    }
}
