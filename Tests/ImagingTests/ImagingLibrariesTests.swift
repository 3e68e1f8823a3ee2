import Imaging
import Testing

@Suite struct ImagingLibrariesTests {
    @Test func leptonicaReportsItsVersion() {
        let version = ImagingLibraries.leptonicaVersion
        #expect(version.first?.isNumber == true, "got \(version)")
        #expect(version.split(separator: ".").count >= 2)
    }

    @Test func tesseractReportsItsVersion() {
        let version = ImagingLibraries.tesseractVersion
        #expect(version.first?.isNumber == true, "got \(version)")
    }
}
