import PDFAccess
import Testing

/// The shims link and call into the real libraries: each reports the version Debian installed.
@Suite struct PDFLibrariesTests {
    @Test func qpdfReportsItsVersion() {
        #expect(PDFLibraries.qpdfVersion.split(separator: ".").count >= 2)
        #expect(PDFLibraries.qpdfVersion.first?.isNumber == true)
    }

    @Test func popplerReportsItsVersion() {
        #expect(PDFLibraries.popplerVersion.split(separator: ".").count == 3)
    }

    @Test func zlibReportsItsVersion() {
        #expect(PDFLibraries.zlibVersion.hasPrefix("1."))
    }
}
