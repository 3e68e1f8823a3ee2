import CLeptonica
import CTesseract
import CZbar
import Glibc
import System
import TrapperCore

/// The versions of the imaging libraries this build runs with, as they report themselves at run
/// time (which opens them), or why one cannot be opened.
public enum ImagingLibraries {
    /// Leptonica's string reads "leptonica-1.82.0"; the prefix is dropped.
    public static var leptonicaVersion: String {
        switch Leptonica.library {
        case .success(let lept):
            guard let raw = lept.getLeptonicaVersion() else { return "unknown" }
            defer { free(raw) }
            let full = String(cString: raw)
            return full.hasPrefix("leptonica-") ? String(full.dropFirst("leptonica-".count)) : full
        case .failure(let failure): return "unavailable: \(failure)"
        }
    }

    public static var heifVersion: String {
        switch Heif.library {
        case .success(let heif): heif.heif_get_version().map { String(cString: $0) } ?? "unknown"
        case .failure(let failure): "unavailable: \(failure)"
        }
    }

    /// libwebp packs its version as 0xMMmmrr.
    public static var webpVersion: String {
        switch WebP.decoder {
        case .success(let webp):
            let packed = Int(webp.WebPGetDecoderVersion())
            return "\(packed >> 16).\((packed >> 8) & 0xFF).\(packed & 0xFF)"
        case .failure(let failure): return "unavailable: \(failure)"
        }
    }

    /// OpenCV's version, through the package's own find_page library (libPDFTrapperVision.so).
    public static var visionVersion: String {
        switch SheetFinder.library {
        case .success(let vision): vision.ptcv_opencv_version().map { String(cString: $0) } ?? "unknown"
        case .failure(let failure): "unavailable: \(failure)"
        }
    }

    public static var tesseractVersion: String {
        switch Tesseract.library {
        case .success(let tess): tess.TessVersion().map { String(cString: $0) } ?? "unknown"
        case .failure(let failure): "unavailable: \(failure)"
        }
    }
}

/// Leptonica's functions (`lept.pixCreate(...)`), opened on first use (`SharedLibrary`).
enum Leptonica {
    static let library = SharedLibrary.open("liblept.so.5", for: "image processing") { trapper_leptonica_load($0, $1) }

    static func functions() throws(SharedLibrary.Failure) -> trapper_leptonica { try library.get() }
}

/// Tesseract's C API (`tess.TessBaseAPICreate()`), opened when the first OCR engine starts.
enum Tesseract {
    static let library = SharedLibrary.open("libtesseract.so.5", for: "OCR") { trapper_tesseract_load($0, $1) }

    static func functions() throws(SharedLibrary.Failure) -> trapper_tesseract { try library.get() }
}

/// zbar's functions (`zbar.zbar_scan_image(...)`), opened when a barcode separator is first looked for.
enum ZBar {
    static let library = SharedLibrary.open("libzbar.so.0", for: "barcode separators") { trapper_zbar_load($0, $1) }

    static func functions() throws(SharedLibrary.Failure) -> trapper_zbar { try library.get() }
}
