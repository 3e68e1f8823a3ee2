import Foundation
import TestSupport
import Testing

/// `pdftrapper devices`, as a user reads it before writing `[profile.NAME]` and `[[scanner]]`:
/// each device with the sources, modes, resolutions and buttons a profile may name.
@Suite struct DevicesCommandTests {
    @Test func listsSanesTestScannerWithWhatAProfileCanAsk() throws {
        let world = try ScanWorld.testBackend()
        let run = try world.pdftrapper(["devices"])
        #expect(run.status == 0, "\(run)")
        let lines = run.stdout.split(separator: "\n").map(String.init)
        let first = try #require(lines.firstIndex(of: "test:0\tNoname frontend-tester (virtual device)"), "\(run)")
        #expect(Array(lines[first + 1...first + 4]) == [
            "  sources: Flatbed, Automatic Document Feeder",
            "  modes: Gray, Color",
            "  resolutions: 1-1200 dpi in steps of 1",
            "  buttons: none",
        ], "\(run)")
    }

    @Test func listsTheTinyScannersButtonsBesideTheTestScanner() throws {
        let tiny = try TinySane.make(alsoTest: true)
        let run = try ScanWorld.tiny(tiny).pdftrapper(["devices"])
        #expect(run.status == 0, "\(run)")
        let lines = run.stdout.split(separator: "\n").map(String.init)
        let first = try #require(lines.firstIndex(of: "tiny:0\tPDFTrapper Tiny button scanner (sheetfed scanner)"), "\(run)")
        #expect(Array(lines[first + 1...first + 4]) == [
            "  sources: Flatbed, ADF, ADF Duplex",
            "  modes: Color, Gray, Lineart",
            "  resolutions: 50-600 dpi",
            "  buttons: scan (Scan button), email (E-mail button)",
        ], "\(run)")
        #expect(lines.contains("test:0\tNoname frontend-tester (virtual device)"), "\(run)")
        // Listing opens each device only to read its options, and closes it again.
        #expect(tiny.log == ["open", "close"])
    }

    @Test func aBusyDeviceIsListedWithTheReason() throws {
        let tiny = try TinySane.make()
        try tiny.setBusy(true)
        let run = try ScanWorld.tiny(tiny).pdftrapper(["devices"])
        #expect(run.status == 0, "\(run)")
        #expect(run.stdout == "tiny:0\tPDFTrapper Tiny button scanner (sheetfed scanner)\n"
                + "  cannot open: sane_open tiny:0: Device busy\n", "\(run)")
    }

    @Test func noDevicesIsExit69WithAHint() throws {
        let world = try ScanWorld.testBackend(dllConf: "")
        let run = try world.pdftrapper(["devices"])
        #expect(run.status == 69, "\(run)")
        #expect(run.stdout == "")
        #expect(run.stderr.hasPrefix("pdftrapper devices: no scanners found (SANE "), "\(run)")
        #expect(run.stderr.contains("scanimage -L"), "\(run)")
    }

    @Test func anUnpluggedScannerIsNotListed() throws {
        let tiny = try TinySane.make()
        try tiny.unplug()
        let run = try ScanWorld.tiny(tiny).pdftrapper(["devices"])
        #expect(run.status == 69, "\(run)")
        #expect(!run.stdout.contains("tiny:0"), "\(run)")
    }
}
