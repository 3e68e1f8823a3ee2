import CLeptonica
import CTesseract
import Foundation
import System
import TrapperCore

/// Tesseract through its C API: one engine per worker (a TessBaseAPI is not to be shared across
/// threads), initialised once for its languages, then fed page after page.
/// Sendable so that workers can be handed one each; an engine must still be used by one thread at a time.
public final class OCREngine: @unchecked Sendable {
    public enum Failure: Error, CustomStringConvertible, Equatable {
        /// tesseract has no trained data for a language: the Debian package that brings it.
        case missingLanguage(String)
        case initialisation(String)
        case recognition
        /// libtesseract.so.5 (or liblept.so.5) cannot be opened.
        case library(SharedLibrary.Failure)

        public var description: String {
            switch self {
            case .missingLanguage(let language):
                "OCR: tesseract has no data for language \"\(language)\" (apt-get install tesseract-ocr-\(language))"
            case .initialisation(let languages): "OCR: tesseract could not start for \(languages)"
            case .recognition: "OCR: tesseract could not read the page"
            case .library(let failure): "\(failure)"
            }
        }
    }

    /// One word as tesseract read it: its text, its box in pixels (top-left origin), its confidence (0–100).
    public struct Word: Sendable, Equatable {
        public var text: String
        public var left, top, right, bottom: Int
        public var confidence: Double
    }

    private let handle: OpaquePointer
    private let tess: trapper_tesseract
    private let lept: trapper_leptonica
    public let languages: [String]

    /// Where Debian's tesseract keeps its trained data.
    public static var dataFolders: [String] {
        ["/usr/share/tesseract-ocr/5/tessdata", "/usr/share/tesseract-ocr/4.00/tessdata", "/usr/share/tessdata"]
    }

    public static func isInstalled(_ language: String) -> Bool {
        dataFolders.contains { FileManager.default.fileExists(atPath: "\($0)/\(language).traineddata") }
    }

    public init(languages: [String]) throws(Failure) {
        if let missing = languages.first(where: { !Self.isInstalled($0) }) { throw .missingLanguage(missing) }
        do throws(SharedLibrary.Failure) {
            tess = try Tesseract.functions()
            lept = try Leptonica.functions()
        } catch {
            throw .library(error)
        }
        guard let handle = tess.TessBaseAPICreate() else { throw .initialisation(languages.joined(separator: "+")) }
        self.handle = handle
        self.languages = languages
        guard tess.TessBaseAPIInit3(handle, nil, languages.joined(separator: "+")) == 0 else {
            tess.TessBaseAPIDelete(handle)
            throw .initialisation(languages.joined(separator: "+"))
        }
        // No debug files or console chatter from tesseract.
        _ = tess.TessBaseAPISetVariable(handle, "debug_file", "/dev/null")
    }

    deinit {
        tess.TessBaseAPIEnd(handle)
        tess.TessBaseAPIDelete(handle)
    }

    /// The words on an 8-bit grey (or RGB) raster scanned or rendered at `dpi`, in reading order.
    public func words(_ raster: Raster, dpi: Int) throws(Failure) -> [Word] {
        guard let pix = LeptonicaPix(lept, raster: raster) else { throw .recognition }
        _ = lept.pixSetResolution(pix.pix, Int32(dpi), Int32(dpi))
        tess.TessBaseAPISetImage2(handle, pix.pix)
        tess.TessBaseAPISetSourceResolution(handle, Int32(dpi))
        guard tess.TessBaseAPIRecognize(handle, nil) == 0, let iterator = tess.TessBaseAPIGetIterator(handle) else {
            throw .recognition
        }
        defer { tess.TessResultIteratorDelete(iterator) }
        var words: [Word] = []
        repeat {
            guard let text = tess.TessResultIteratorGetUTF8Text(iterator, RIL_WORD) else { continue }
            defer { tess.TessDeleteText(text) }
            let word = String(cString: text).trimmingCharacters(in: .whitespacesAndNewlines)
            var left: Int32 = 0, top: Int32 = 0, right: Int32 = 0, bottom: Int32 = 0
            guard !word.isEmpty,
                  tess.TessPageIteratorBoundingBox(tess.TessResultIteratorGetPageIteratorConst(iterator), RIL_WORD, &left, &top, &right, &bottom) != 0
            else { continue }
            words.append(Word(text: word, left: Int(left), top: Int(top), right: Int(right), bottom: Int(bottom),
                              confidence: Double(tess.TessResultIteratorConfidence(iterator, RIL_WORD))))
        } while tess.TessResultIteratorNext(iterator, RIL_WORD) != 0
        tess.TessBaseAPIClear(handle)
        return words
    }
}
