import Foundation
import Imaging
import PDFAccess
import TrapperCore

/// OCR of some pages of a target, as a revision of its own: each page is rendered through poppler
/// while the target's lock is held (a moment), read by tesseract without it (the slow part, while
/// scans and inbox files go on landing), and its invisible text layer is then written in one
/// revision for all the pages. Pages that already have text, whether their own or a layer of ours,
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

    /// Reads the pages held under `references` (nil: every page) with `engine` and writes their text layers.
    public func run(target: String, pages references: [PDFReference]?, engine: OCREngine, date: Date = Date()) throws -> Outcome {
        var layers: [(reference: PDFReference, form: AppearanceForm)] = []
        var outcome = Outcome(target: target, pagesRead: 0, words: 0, skipped: 0, revision: nil)
        let wanted = try references ?? store.whileLocked(target) { reader in
            let editor = try PDFPageEditor(reader: reader)
            return try (0..<editor.pageCount).compactMap { try editor.reference(ofPage: $0) }
        }
        for reference in wanted {
            // Under the lock: the page's place, its frame, and its pixels, from one state of the file.
            let seen = try store.whileLocked(target) { reader throws -> (PDFPageRenderer.Rendered, PageFrame)? in
                let editor = try PDFPageEditor(reader: reader)
                guard let index = try editor.index(ofPage: reference),
                      try !editor.drawsForm(named: Self.layerPrefix, onPage: index) else { return nil }
                let renderer = try PDFPageRenderer(path: target)
                guard try !Self.hasText(renderer.text(ofPage: index)) else { return nil }
                let frame = PageFrame(mediaBox: try editor.cropBox(ofPage: index), rotation: try editor.rotation(ofPage: index))
                return (try renderer.render(page: index, dpi: Self.dpi), frame)
            }
            guard let (rendered, frame) = seen else {
                outcome.skipped += 1
                continue
            }
            // A sideways or upside-down picture is read upright, and its words laid the way its text runs.
            let turn = PageProcessor.uprightTurn(rendered.raster, dpi: rendered.dpi)
            let upright = PageProcessor.turned(rendered.raster, clockwise: turn)
            let words = try engine.words(upright, dpi: rendered.dpi)
            let scale = 72 / Double(rendered.dpi)
            let height = Double(upright.height) * scale
            let placed = words.map { word in
                OCRTextLayer.Word(text: word.text, box: Rect(x0: Double(word.left) * scale, y0: height - Double(word.bottom) * scale,
                                                            x1: Double(word.right) * scale, y1: height - Double(word.top) * scale))
            }
            outcome.pagesRead += 1
            outcome.words += words.count
            if !placed.isEmpty { layers.append((reference, OCRTextLayer.form(placed, frame: frame, turn: turn))) }
        }
        guard !layers.isEmpty else { return outcome }
        let languages = engine.languages.joined(separator: "+")
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

    /// Text a page already has: a few letters at least (a stray page number is not a text layer).
    static func hasText(_ text: String) -> Bool {
        text.unicodeScalars.filter { $0.properties.isAlphabetic }.count >= 20
    }
}

private struct NothingToWrite: Error {}
