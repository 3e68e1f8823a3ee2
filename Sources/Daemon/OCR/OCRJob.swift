import Foundation
import Imaging
import PDFAccess
import TrapperCore

/// OCR of some pages of a target, as a revision of its own: a few pages at a time are rendered
/// through poppler while the target's lock is held (a moment), read by tesseract without it (the
/// slow part, while scans and inbox files go on landing), and their invisible text layers are then
/// written in one revision for all the pages. Pages that already have text, whether their own or a layer of ours,
/// are skipped, and so are pages deleted meanwhile.
public struct OCRJob {
    public static let dpi = 300
    /// The name the text layer's form has in a page's resources; a page with one is done.
    public static let layerPrefix = "PTOCR"

    let store: TargetStore

    public init(store: TargetStore) { self.store = store }

    public struct Outcome: Sendable {
        public var target: String
        public var pagesRead: Int
        public var words: Int
        /// Pages left alone: they have text, or are gone.
        public var skipped: Int
        /// The revision's end; nil when nothing was written.
        public var revision: Int?

        public var summary: String {
            var line = "\((target as NSString).lastPathComponent): OCR of \(pagesRead) page\(pagesRead == 1 ? "" : "s"), \(words) words"
            if skipped > 0 { line += ", \(skipped) skipped (text already there, or deleted)" }
            if let revision { line += "; revision ends at byte \(revision)" }
            return line
        }
    }

    /// Reads the pages held under `references` (nil: every page) with `engines` (as many pages at
    /// once as there are engines; each engine is used by one thread at a time) and writes their text layers.
    public func run(target: String, pages references: [PDFReference]?, engines: [OCREngine], date: Date = Date()) throws -> Outcome {
        precondition(!engines.isEmpty, "OCR needs an engine")
        var layers: [(reference: PDFReference, form: AppearanceForm)] = []
        var outcome = Outcome(target: target, pagesRead: 0, words: 0, skipped: 0, revision: nil)
        let wanted = try references ?? store.whileLocked(target) { reader in
            let editor = try PDFPageEditor(reader: reader)
            return try (0..<editor.pageCount).compactMap { try editor.reference(ofPage: $0) }
        }
        // `engines.count` pages at a time: rendered one after the other, then read side by side.
        for chunk in stride(from: 0, to: wanted.count, by: engines.count).map({ Array(wanted[$0..<min(wanted.count, $0 + engines.count)]) }) {
            let seen = try render(chunk, of: target)
            outcome.skipped += chunk.count - seen.count
            let results = ResultBox(count: seen.count)
            let pages = seen
            DispatchQueue.concurrentPerform(iterations: pages.count) { index in
                let page = pages[index]
                results.set(index, Result { try Self.read(page.rendered, frame: page.frame, engine: engines[index]) })
            }
            for (page, result) in zip(seen, results.values) {
                let (form, words) = try result.get()
                outcome.pagesRead += 1
                outcome.words += words
                if let form { layers.append((page.reference, form)) }
            }
        }
        guard !layers.isEmpty else { return outcome }
        let languages = engines[0].languages.joined(separator: "+")
        do {
            outcome.revision = try store.commit(target: target) { writer, reader in
                guard let reader else { throw EngineError.unreadable(target: target, reason: "no such file") }
                var editor = try PDFPageEditor(reader: reader)
                for (reference, form) in layers {
                    guard let index = try editor.index(ofPage: reference),
                          try !editor.drawsForm(named: Self.layerPrefix, onPage: index) else { continue }
                    try editor.flatten(index, form, prefix: Self.layerPrefix)
                }
                guard editor.hasChanges else { throw NothingToWrite() }
                _ = try editor.write(into: &writer)
                return RevisionRecord(operation: .ocr, date: date, base: 0, pagesAdded: 0, inputs: [],
                                      note: "OCR (\(languages)): \(layers.count) page\(layers.count == 1 ? "" : "s"), \(outcome.words) words")
            }.end
        } catch is NothingToWrite {
            // Every page got its text meanwhile, or went.
        }
        return outcome
    }

    /// Under the target's lock, once for the chunk: each page's place, frame and pixels, from one
    /// state of the file; pages that are gone or have text are left out.
    private func render(_ references: [PDFReference], of target: String) throws
        -> [(reference: PDFReference, rendered: PDFPageRenderer.Rendered, frame: PageFrame)]
    {
        try store.whileLocked(target) { reader in
            let editor = try PDFPageEditor(reader: reader)
            let renderer = try PDFPageRenderer(path: target)
            return try references.compactMap { reference in
                guard let index = try editor.index(ofPage: reference),
                      try !editor.drawsForm(named: Self.layerPrefix, onPage: index),
                      try !Self.hasText(renderer.text(ofPage: index)) else { return nil }
                let frame = PageFrame(mediaBox: try editor.cropBox(ofPage: index), rotation: try editor.rotation(ofPage: index))
                return (reference, try renderer.render(page: index, dpi: Self.dpi), frame)
            }
        }
    }

    /// One page read: its text layer (nil when tesseract found no words) and how many words.
    /// A sideways or upside-down picture is read upright, and its words laid the way its text runs.
    static func read(_ rendered: PDFPageRenderer.Rendered, frame: PageFrame, engine: OCREngine) throws -> (AppearanceForm?, Int) {
        let turn = PageProcessor.uprightTurn(rendered.raster, dpi: rendered.dpi)
        let upright = PageProcessor.turned(rendered.raster, clockwise: turn)
        let words = try engine.words(upright, dpi: rendered.dpi)
        let scale = 72 / Double(rendered.dpi)
        let height = Double(upright.height) * scale
        let placed = words.map { word in
            OCRTextLayer.Word(text: word.text, box: Rect(x0: Double(word.left) * scale, y0: height - Double(word.bottom) * scale,
                                                        x1: Double(word.right) * scale, y1: height - Double(word.top) * scale))
        }
        return (placed.isEmpty ? nil : OCRTextLayer.form(placed, frame: frame, turn: turn), words.count)
    }

    /// Text a page already has: a few letters at least (a stray page number is not a text layer).
    static func hasText(_ text: String) -> Bool {
        text.unicodeScalars.filter { $0.properties.isAlphabetic }.count >= 20
    }
}

/// The results of pages read side by side, each written by its own thread.
private final class ResultBox: @unchecked Sendable {
    private let lock = NSLock()
    private var results: [Result<(AppearanceForm?, Int), any Error>?]

    init(count: Int) { results = Array(repeating: nil, count: count) }

    func set(_ index: Int, _ result: Result<(AppearanceForm?, Int), any Error>) { lock.withLock { results[index] = result } }

    var values: [Result<(AppearanceForm?, Int), any Error>] { lock.withLock { results.map { $0! } } }
}
