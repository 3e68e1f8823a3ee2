// Internal, so that PDFAccess's clients need not find poppler's headers: Package.swift gives their
// folders to this target only.
internal import CPoppler
import CQPDF
import CZlib
import System
import TrapperCore

/// The versions of the PDF libraries this build runs with, as they report themselves at run time
/// (which opens them), or why one cannot be opened.
public enum PDFLibraries {
    public static var qpdfVersion: String {
        switch QPDF.library {
        case .success(let api): api.qpdf_get_qpdf_version().map { String(cString: $0) } ?? "unknown"
        case .failure(let failure): "unavailable: \(failure)"
        }
    }

    public static var popplerVersion: String {
        switch Poppler.library {
        case .success(let poppler): poppler.poppler_get_version().map { String(cString: $0) } ?? "unknown"
        case .failure(let failure): "unavailable: \(failure)"
        }
    }

    public static var zlibVersion: String { String(cString: CZlib.zlibVersion()) }
}

/// qpdf's C API (`api.qpdf_read(data, ...)`), opened when the first `QPDFHandle` is made.
enum QPDF {
    static let library = SharedLibrary.open("libqpdf.so.29", for: "reading PDF files") { trapper_qpdf_load($0, $1) }

    static func functions() throws(SharedLibrary.Failure) -> trapper_qpdf { try library.get() }
}

/// poppler-glib, with the glib and cairo functions the renderer calls (`poppler.cairo_paint(...)`),
/// opened when a page is first rendered or searched.
enum Poppler {
    static let library = SharedLibrary.open("libpoppler-glib.so.8", for: "rendering PDF pages") { trapper_poppler_load($0, $1) }

    static func functions() throws(SharedLibrary.Failure) -> trapper_poppler { try library.get() }
}
