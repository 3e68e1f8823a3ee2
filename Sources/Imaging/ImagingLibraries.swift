import CLeptonica
import CTesseract
import Glibc

/// The versions of the imaging libraries this build runs with, as they report themselves at run time.
public enum ImagingLibraries {
    /// Leptonica's string reads "leptonica-1.82.0"; the prefix is dropped.
    public static var leptonicaVersion: String {
        guard let raw = getLeptonicaVersion() else { return "unknown" }
        defer { free(raw) }
        let full = String(cString: raw)
        return full.hasPrefix("leptonica-") ? String(full.dropFirst("leptonica-".count)) : full
    }

    public static var tesseractVersion: String { String(cString: TessVersion()) }
}
