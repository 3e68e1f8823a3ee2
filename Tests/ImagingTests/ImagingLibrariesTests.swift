import Imaging
import Testing

@Suite struct ImagingLibrariesTests {
    @Test func leptonicaReportsItsVersion() {
        let version = ImagingLibraries.leptonicaVersion
        #expect(version.first?.isNumber == true, "got \(version)")
        #expect(version.split(separator: ".").count >= 2)
    }

    @Test func libheifAndLibwebpReportTheirVersions() {
        #expect(ImagingLibraries.heifVersion.first?.isNumber == true, "got \(ImagingLibraries.heifVersion)")
        #expect(ImagingLibraries.webpVersion.split(separator: ".").count == 3, "got \(ImagingLibraries.webpVersion)")
    }

    @Test func tesseractReportsItsVersion() {
        let version = ImagingLibraries.tesseractVersion
        #expect(version.first?.isNumber == true, "got \(version)")
    }
}
