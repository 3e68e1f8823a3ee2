import Foundation
import TestSupport
import Testing

/// The `tiny` test scanner (Tests/Fixtures/tiny-sane), driven through scanimage as a user would:
/// the tests of `pdftrapper scan` and of button polling rely on every behaviour checked here.
/// Each test has its own scanner (control folder), so they run in parallel.
@Suite struct TinySaneBackendTests {
    /// The Letter-sized default area at 75 dpi. 215.9 mm as SANE_Fixed is a hair under 8.5 in,
    /// so 637.4998 pixels round down.
    static let letterAt75 = (width: 637, height: 825)

    @Test func compilesWithoutWarnings() throws {
        let library = try TinySane.library()
        #expect(library.compilerOutput == "", "\(library.compilerOutput)")
        #expect(library.file.lastPathComponent == "libsane-tiny.so.1")
    }

    @Test func listedUntilUnplugged() throws {
        let tiny = try TinySane.make()
        let listed = try tiny.scanimage(["-L"])
        #expect(listed.status == 0, "\(listed.stderr)")
        #expect(listed.stdout.contains("device `tiny:0' is a PDFTrapper Tiny button scanner sheetfed scanner"), "\(listed.stdout)")

        try tiny.unplug()
        let gone = try tiny.scanimage(["-L"])
        #expect(!gone.stdout.contains("tiny:0"), "\(gone.stdout)")
        #expect(gone.stdout.contains("No scanners were identified"))

        try tiny.replug()
        #expect(try tiny.scanimage(["-L"]).stdout.contains("device `tiny:0'"))
    }

    @Test func alsoTestListsSanesTestScannerBeside() throws {
        let tiny = try TinySane.make(alsoTest: true)
        let listed = try tiny.scanimage(["-L"]).stdout
        #expect(listed.contains("device `tiny:0'"), "\(listed)")
        #expect(listed.contains("device `test:0'"), "\(listed)")
    }

    @Test func optionsAndButtonsAsScanimageShowsThem() throws {
        let tiny = try TinySane.make()
        let idle = try tiny.scanimage(["-d", "tiny:0", "-A"])
        #expect(idle.status == 0, "\(idle.stderr)")
        for line in ["  Scan Mode:", "    --mode Color|Gray|Lineart [Color]", "    --resolution 50..600dpi [150]",
                     "    --source Flatbed|ADF|ADF Duplex [ADF]", "  Geometry:", "    -l 0..215.9mm [0]",
                     "    -t 0..355.6mm [0]", "    -x 0..215.9mm [215.9]", "    -y 0..355.6mm [279.4]",
                     "  Enhancement:", "    --brightness -100..100% [0]", "  Sensors:",
                     "    --scan[=(yes|no)] [no] [hardware]", "        Scan button",
                     "    --email[=(yes|no)] [no] [hardware]", "        E-mail button"] {
            #expect(idle.stdout.contains(line + "\n"), "missing \(line) in\n\(idle.stdout)")
        }

        try tiny.press("scan")
        let pressed = try tiny.scanimage(["-d", "tiny:0", "-A"]).stdout
        #expect(pressed.contains("--scan[=(yes|no)] [yes] [hardware]"), "\(pressed)")
        #expect(pressed.contains("--email[=(yes|no)] [no] [hardware]"))

        try tiny.release("scan")
        try tiny.press("email")
        let swapped = try tiny.scanimage(["-d", "tiny:0", "-A"]).stdout
        #expect(swapped.contains("--scan[=(yes|no)] [no] [hardware]"), "\(swapped)")
        #expect(swapped.contains("--email[=(yes|no)] [yes] [hardware]"))
        #expect(tiny.log == ["open", "close", "open", "close", "open", "close"])
    }

    @Test func adfBatchScansEverySheetInOrder() throws {
        let tiny = try TinySane.make(), out = try Scratch()
        try tiny.loadFeeder(3)
        let run = try tiny.scanimage(["-d", "tiny:0", "--source", "ADF", "--batch=\(out.path)/p%d.pnm",
                                      "--format=pnm", "--resolution", "75"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.contains("Batch terminated, 3 pages scanned"), "\(run.stderr)")
        #expect(try files(in: out) == ["p1.pnm", "p2.pnm", "p3.pnm"])
        var marks: [Int] = []
        for page in 1...3 {
            let image = try PNMImage(Data(contentsOf: out.url.appendingPathComponent("p\(page).pnm")))
            #expect(image.kind == "P6")
            #expect(image.width == Self.letterAt75.width && image.height == Self.letterAt75.height, "\(image.width)x\(image.height)")
            marks.append(TinySane.bars(in: image))
        }
        #expect(marks == [1, 2, 3])
        #expect(tiny.feederCount == 0)
        #expect(tiny.pagesDelivered == 3)
        let area = "area=0.00,0.00,215.90,279.40"
        #expect(tiny.log == ["open"] + (1...3).map {
            "start page=\($0) mode=Color resolution=75 source=ADF brightness=0.00 \(area)"
        } + ["close"])
    }

    @Test func emptyFeederSaysOutOfDocuments() throws {
        let tiny = try TinySane.make(), out = try Scratch()
        let run = try tiny.scanimage(["-d", "tiny:0", "--batch=\(out.path)/p%d.pnm", "--format=pnm", "--resolution", "50"])
        #expect(run.status != 0)
        #expect(run.stderr.contains("sane_start: Document feeder out of documents"), "\(run.stderr)")
        #expect(try files(in: out) == [])
        #expect(tiny.log == ["open", "close"])
    }

    @Test func duplexGivesFrontAndBackOfEachSheet() throws {
        let tiny = try TinySane.make(), out = try Scratch()
        try tiny.loadFeeder(2)
        let run = try tiny.scanimage(["-d", "tiny:0", "--source", "ADF Duplex", "--batch=\(out.path)/p%d.pnm",
                                      "--format=pnm", "--resolution", "50", "--mode", "Gray"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try files(in: out) == ["p1.pnm", "p2.pnm", "p3.pnm", "p4.pnm"])
        let marks = try (1...4).map { TinySane.bars(in: try PNMImage(Data(contentsOf: out.url.appendingPathComponent("p\($0).pnm")))) }
        #expect(marks == [1, 2, 3, 4])
        #expect(tiny.feederCount == 0)
        #expect(tiny.log.filter { $0.hasPrefix("start ") }.allSatisfy { $0.contains("source=ADF Duplex") })
    }

    @Test(arguments: [("Color", "P6"), ("Gray", "P5"), ("Lineart", "P4")])
    func modeChoosesTheImageKind(mode: String, kind: String) throws {
        let tiny = try TinySane.make(), out = try Scratch()
        try tiny.loadFeeder(1)
        let file = out.url.appendingPathComponent("page.pnm")
        let run = try tiny.scanimage(["-d", "tiny:0", "--mode", mode, "--resolution", "75", "--format=pnm", "-o", file.path])
        #expect(run.status == 0, "\(run.stderr)")
        let image = try PNMImage(Data(contentsOf: file))
        #expect(image.kind == kind)
        #expect(image.width == Self.letterAt75.width && image.height == Self.letterAt75.height)
        #expect(TinySane.bars(in: image) == 1)
        // White below the bars: only the top quarter is marked.
        #expect(!image.isDark(x: image.width * 3 / 80, y: image.height / 2))
        #expect(tiny.log.contains { $0.hasPrefix("start page=1 mode=\(mode) resolution=75 source=ADF ") })
    }

    @Test func flatbedIgnoresTheFeederAndTakesAreaAndBrightness() throws {
        let tiny = try TinySane.make(), out = try Scratch()
        let file = out.url.appendingPathComponent("glass.pnm")
        let run = try tiny.scanimage(["-d", "tiny:0", "--source", "Flatbed", "-l", "10", "-t", "20", "-x", "50.8", "-y", "25.4",
                                      "--brightness", "12.5", "--resolution", "100", "--format=pnm", "-o", file.path])
        #expect(run.status == 0, "\(run.stderr)")
        let image = try PNMImage(Data(contentsOf: file))
        #expect(image.width == 200 && image.height == 100, "\(image.width)x\(image.height)")
        #expect(tiny.feederCount == 0)
        #expect(tiny.log.contains("start page=1 mode=Color resolution=100 source=Flatbed brightness=12.50 area=10.00,20.00,60.80,45.40"), "\(tiny.log)")
    }

    @Test func busySwitchRefusesOpens() throws {
        let tiny = try TinySane.make()
        try tiny.setBusy(true)
        let busy = try tiny.scanimage(["-d", "tiny:0", "-A"])
        #expect(busy.status != 0)
        #expect(busy.stderr.contains("open of device tiny:0 failed: Device busy"), "\(busy.stderr)")
        try tiny.setBusy(false)
        #expect(try tiny.scanimage(["-d", "tiny:0", "-A"]).status == 0)
        #expect(tiny.log == ["open", "close"])
    }

    @Test func heldDeviceIsBusyUntilReleased() throws {
        let tiny = try TinySane.make()
        let holder = try tiny.hold()
        #expect(throws: TinySaneError.deviceHeld) { try tiny.hold() }
        let busy = try tiny.scanimage(["-d", "tiny:0", "-A"])
        #expect(busy.stderr.contains("Device busy"), "\(busy.stderr)")
        holder.release()
        let free = try tiny.scanimage(["-d", "tiny:0", "-A"])
        #expect(free.status == 0, "\(free.stderr)")
    }

    @Test func oneScanimageAtATime() throws {
        let tiny = try TinySane.make(), out = try Scratch()
        try tiny.loadFeeder(2)
        let first = try PromptedScan(tiny, ["-d", "tiny:0", "--batch=\(out.path)/p%d.pnm", "--format=pnm", "--resolution", "50"], in: out.url)
        #expect(first.waitForPrompt(1), "\(first.stderr)")
        let second = try tiny.scanimage(["-d", "tiny:0", "-A"])
        #expect(second.stderr.contains("open of device tiny:0 failed: Device busy"), "\(second.stderr)")
        first.nextPage()
        #expect(first.waitForPrompt(2), "\(first.stderr)")
        first.nextPage()
        let (status, stderr) = first.finish()
        #expect(status == 0, "\(stderr)")
        #expect(stderr.contains("Batch terminated, 2 pages scanned"))
        #expect(try tiny.scanimage(["-d", "tiny:0", "-A"]).status == 0)
    }

    @Test func unpluggedWhileOpenFailsTheNextPage() throws {
        let tiny = try TinySane.make(), out = try Scratch()
        try tiny.loadFeeder(2)
        let scan = try PromptedScan(tiny, ["-d", "tiny:0", "--batch=\(out.path)/p%d.pnm", "--format=pnm", "--resolution", "50"], in: out.url)
        #expect(scan.waitForPrompt(1), "\(scan.stderr)")
        scan.nextPage()
        #expect(scan.waitForPrompt(2), "\(scan.stderr)")
        try tiny.unplug()
        scan.nextPage()
        let (status, stderr) = scan.finish()
        #expect(status != 0)
        #expect(stderr.contains("sane_start: Error during device I/O"), "\(stderr)")
        #expect(try files(in: out) == ["p1.pnm"])
        #expect(tiny.feederCount == 1)
        #expect(tiny.log.last == "close")
    }

    @Test func unpluggedDeviceDoesNotOpen() throws {
        let tiny = try TinySane.make()
        try tiny.unplug()
        let run = try tiny.scanimage(["-d", "tiny:0", "-A"])
        #expect(run.status != 0)
        #expect(run.stderr.contains("open of device tiny:0 failed: Invalid argument"), "\(run.stderr)")
        #expect(tiny.log == [])
    }

    private func files(in scratch: Scratch) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: scratch.path).filter { !$0.hasPrefix(".") }.sorted()
    }
}

/// scanimage with `--batch-prompt`: it opens the device, then waits for a line on stdin before each
/// page, so a test can hold the device open in another process for as long as it likes.
private final class PromptedScan {
    private let process = Process()
    private let input = Pipe()
    private let errors: URL

    init(_ tiny: TinySane, _ arguments: [String], in folder: URL) throws {
        errors = folder.appendingPathComponent(".prompted-\(UUID().uuidString).err")
        _ = FileManager.default.createFile(atPath: errors.path, contents: nil)
        process.executableURL = URL(fileURLWithPath: try TinySane.tool("scanimage"))
        process.arguments = arguments + ["--batch-prompt"]
        process.environment = ProcessInfo.processInfo.environment.merging(tiny.environment) { $1 }
        process.standardInput = input
        process.standardOutput = FileHandle.nullDevice
        process.standardError = try FileHandle(forWritingTo: errors)
        try process.run()
    }

    deinit { if process.isRunning { process.terminate() } }

    var stderr: String { (try? String(contentsOf: errors, encoding: .utf8)) ?? "" }

    /// Waits until scanimage asks for page `page` (so it has the device open and is idle).
    func waitForPrompt(_ page: Int) -> Bool {
        eventually(timeout: 10) { stderr.contains("Place document no. \(page) on the scanner.\nPress <RETURN> to continue.\nPress Ctrl + D to terminate.\n") }
    }

    /// Answers the prompt. Only while it waits: writing to a pipe nobody reads would raise SIGPIPE.
    func nextPage() { input.fileHandleForWriting.write(Data("\n".utf8)) }

    /// Ends the batch as Ctrl+D would, and waits for scanimage to exit.
    func finish() -> (status: Int32, stderr: String) {
        try? input.fileHandleForWriting.close()
        process.waitUntilExit()
        return (process.terminationStatus, stderr)
    }
}
