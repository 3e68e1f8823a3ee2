import CPoppler
import CQPDF
import CZlib

/// The versions of the PDF libraries this build runs with, as they report themselves at run time.
public enum PDFLibraries {
    public static var qpdfVersion: String { String(cString: qpdf_get_qpdf_version()) }
    public static var popplerVersion: String { String(cString: poppler_get_version()) }
    public static var zlibVersion: String { String(cString: CZlib.zlibVersion()) }
}
