import Foundation
import Imaging
import TrapperCore

/// Takes OCR requests off the queue and does them: the daemon's OCR workers and
/// `pdftrapper ocr --queued` both come here. Engines are kept per set of languages, since
/// starting tesseract costs a few tenths of a second.
public enum OCRWork {
    public struct Line: Sendable {
        public var text: String
        public var failed: Bool
        /// The revision the OCR wrote, when it wrote one: its target and end.
        public var revision: (target: String, end: Int)? = nil
    }

    /// Does one request, if no other process holds it; nil when it was claimed elsewhere.
    public static func take(_ path: String, queue: OCRQueue, store: TargetStore, engines: inout [String: OCREngine]) -> Line? {
        guard let claim = queue.claim(path) else { return nil }
        defer { withExtendedLifetime(claim) {} }
        // Another worker finished it between the listing and the claim.
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        guard let request = queue.read(path) else {
            queue.remove(path)
            return Line(text: "pdftrapper: OCR request \(path) could not be read; dropped", failed: true)
        }
        guard FileManager.default.fileExists(atPath: request.target) else {
            queue.remove(path)
            return Line(text: "pdftrapper: OCR: \(request.target) is gone; nothing to read", failed: false)
        }
        do {
            let key = request.languages.joined(separator: "+")
            let engine = try engines[key] ?? OCREngine(languages: request.languages)
            engines[key] = engine
            let outcome = try OCRJob(store: store).run(target: request.target, pages: request.references, engines: [engine])
            queue.remove(path)
            return Line(text: "pdftrapper: " + outcome.summary, failed: false,
                        revision: outcome.revision.map { (outcome.target, $0) })
        } catch let error as OCREngine.Failure {
            // No retry can bring a language that is not installed: say so, and let the request go.
            queue.remove(path)
            return Line(text: "pdftrapper: \(request.target): \(error)", failed: true)
        } catch EngineError.io(let failure) {
            return Line(text: "pdftrapper: \(request.target): OCR will retry: \(failure)", failed: true)
        } catch {
            queue.remove(path)
            return Line(text: "pdftrapper: \(request.target): OCR failed: \(error)", failed: true)
        }
    }

    /// Every request waiting, oldest first.
    public static func drain(_ queue: OCRQueue, store: TargetStore) -> [Line] {
        var engines: [String: OCREngine] = [:]
        return queue.pending().compactMap { take($0, queue: queue, store: store, engines: &engines) }
    }
}
