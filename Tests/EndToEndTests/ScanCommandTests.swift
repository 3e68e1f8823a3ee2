import Foundation
import Glibc
import TestSupport
import Testing

/// `pdftrapper scan` against SANE's own `test` scanner, checked as a user would: the PDF's page
/// size, its images (as pdfimages and qpdf see them), every reader opening it, the revisions in
/// `pdftrapper history`, and where pages go when no target is named.
@Suite struct ScanCommandTests {
    @Test func flatbedColourA4At300DpiIsOneJPEGPageOfPaperSize() throws {
        let world = try ScanWorld.testBackend()
        try world.writeConfig(Profiles.onTestScanner("a4", """
            source = "flatbed"
            mode = "color"
            resolution = 300
            page_size = "A4"
            target = "A4.pdf"
            """, options: #"test-picture = "Color pattern""#))
        let run = try world.scan("a4")
        #expect(run.status == 0, "\(run)")
        #expect(run.stderr.contains("pdftrapper scan: 1 page from test:0 (Flatbed, Color, 300 dpi)"), "\(run)")
        let target = world.library + "/A4.pdf"
        #expect(run.stdout.contains("1 page into \(target)"), "\(run)")
        try PDFReaders.requireAllAgree(target, pages: 1)

        let size = try PDFs.pageSizes(target)
        #expect(size.count == 1 && abs(size[0].width - 595) <= 1 && abs(size[0].height - 842) <= 1, "\(size)")
        let images = try PDFs.images(target)
        let image = try #require(images.first)
        #expect(images.count == 1)
        #expect(abs(image.width - 2480) <= 1 && abs(image.height - 3507) <= 1, "\(image)")
        #expect(image.color == "rgb" && image.components == 3 && image.bitsPerComponent == 8 && image.encoding == "jpeg", "\(image)")
        #expect(image.xPPI == 300 && image.yPPI == 300, "\(image)")
        let dictionary = try PDFs.objectDictionary(target, image.object)
        #expect(dictionary.contains("/Filter /DCTDecode") && dictionary.contains("/ColorSpace /DeviceRGB"), "\(dictionary)")

        // The page is the scan: scanimage's picture of the same area. The test picture's one-pixel
        // coloured lines are JPEG's worst case (chroma is subsampled), so compare 8x8 averages:
        // the right picture differs by about 2 in 255, one with red and blue swapped by 47.
        let reference = world.root + "/reference.pnm"
        let scanimage = try world.scanimage(["-d", "test:0", "--mode", "Color", "--resolution", "300", "-l", "0", "-t", "0",
                                             "-x", "210", "-y", "297", "--test-picture", "Color pattern",
                                             "--format=pnm", "-o", reference] + Profiles.scanimageDelay())
        #expect(scanimage.status == 0, "\(scanimage)")
        _ = try PDFReaders.succeeded("pdfimages", ["-j", target, world.root + "/page"])
        let difference = try Python.run("""
            import sys
            from PIL import Image, ImageChops, ImageStat
            a, b = Image.open(sys.argv[1]).convert("RGB"), Image.open(sys.argv[2]).convert("RGB")
            if a.size != b.size:
                sys.exit(f"sizes differ: {a.size} {b.size}")
            small = (a.width // 8, a.height // 8)
            print(max(ImageStat.Stat(ImageChops.difference(a.resize(small, Image.BOX), b.resize(small, Image.BOX))).mean))
            """, [world.root + "/page-000.jpg", reference])
        let mean = try #require(Double(difference.trimmingCharacters(in: .whitespacesAndNewlines)), "\(difference)")
        #expect(mean < 5, "mean difference from scanimage's page, in 8x8 averages: \(mean)")
    }

    @Test func aTenSheetFeederBatchIsOneRevisionAndTheNextRunAppendsAnother() throws {
        let world = try ScanWorld.testBackend()
        try world.writeConfig(Profiles.onTestScanner("feeder", """
            source = "adf"
            mode = "color"
            resolution = 50
            page_size = "A4"
            target = "Feeder.pdf"
            """, options: #"test-picture = "Color pattern""#))
        let first = try world.scan("feeder")
        #expect(first.status == 0, "\(first)")
        // The test scanner's feeder holds ten sheets; "adf" is its "Automatic Document Feeder".
        #expect(first.stderr.contains("10 pages from test:0 (Automatic Document Feeder, Color, 50 dpi)"), "\(first)")
        let target = world.library + "/Feeder.pdf"
        try PDFReaders.requireAllAgree(target, pages: 10)
        let history = try world.history(target)
        #expect(history.count == 1, "\(history)")
        #expect(history.first?.pages == 10 && history.first?.inputs.count == 10, "\(history)")
        #expect(history.first?.note.hasSuffix(": profile feeder on test:0") == true, "\(history)")
        #expect(try PDFs.count("%%EOF", in: target) == 1)
        let before = try Data(contentsOf: URL(fileURLWithPath: target))
        let renders = try PDFs.renders(target)

        let second = try world.scan("feeder")
        #expect(second.status == 0, "\(second)")
        try PDFReaders.requireAllAgree(target, pages: 20)
        let after = try Data(contentsOf: URL(fileURLWithPath: target))
        #expect(after.starts(with: before), "the first batch's bytes are untouched")
        let both = try world.history(target)
        #expect(both.map(\.pages) == [10, 10], "\(both)")
        #expect(Set(both.map(\.note)).count == 2, "two batches, two notes: \(both)")
        #expect(try PDFs.count("%%EOF", in: target) == 2)
        #expect(Array(try PDFs.renders(target).prefix(10)) == renders, "the first ten pages look as they did")
        #expect(world.spoolBatches() == [], "nothing waits in the spool")
    }

    @Test func greyIsADeviceGrayJPEG() throws {
        let world = try ScanWorld.testBackend()
        try world.writeConfig(Profiles.onTestScanner("grey", """
            mode = "gray"
            resolution = 75
            page_size = "A5"
            target = "Grey.pdf"
            """, options: #"test-picture = "Color pattern""#))
        let run = try world.scan("grey")
        #expect(run.status == 0, "\(run)")
        let target = world.library + "/Grey.pdf"
        try PDFReaders.requireAllAgree(target, pages: 1)
        let image = try #require(try PDFs.images(target).first)
        #expect(image.color == "gray" && image.components == 1 && image.bitsPerComponent == 8 && image.encoding == "jpeg", "\(image)")
        #expect(image.xPPI == 75 && image.yPPI == 75, "\(image)")
        let dictionary = try PDFs.objectDictionary(target, image.object)
        #expect(dictionary.contains("/Filter /DCTDecode") && dictionary.contains("/ColorSpace /DeviceGray"), "\(dictionary)")
        let size = try PDFs.pageSizes(target)
        #expect(size.count == 1 && abs(size[0].width - 420) <= 1 && abs(size[0].height - 595) <= 1, "A5: \(size)")
    }

    @Test func lineartIsG4FaxOfTheScannersOwnBits() throws {
        let world = try ScanWorld.testBackend()
        try world.writeConfig(Profiles.onTestScanner("line", """
            mode = "lineart"
            resolution = 75
            page_size = "A5"
            target = "Line.pdf"
            """, options: #"test-picture = "Grid""#))
        let run = try world.scan("line")
        #expect(run.status == 0, "\(run)")
        // The test scanner has no Lineart mode: the profile gets its Gray mode at depth 1.
        #expect(run.stderr.contains("1 page from test:0 (Flatbed, Gray, 75 dpi)"), "\(run)")
        let target = world.library + "/Line.pdf"
        try PDFReaders.requireAllAgree(target, pages: 1)
        let image = try #require(try PDFs.images(target).first)
        #expect(image.encoding == "ccitt" && image.bitsPerComponent == 1 && image.components == 1, "\(image)")
        let dictionary = try PDFs.objectDictionary(target, image.object)
        #expect(dictionary.contains("/CCITTFaxDecode") && dictionary.contains("/K -1"), "G4: \(dictionary)")

        // Lossless: the image holds exactly the bits scanimage gets from the same settings.
        let reference = world.root + "/reference.pbm"
        let scanimage = try world.scanimage(["-d", "test:0", "--mode", "Gray", "--depth", "1", "--resolution", "75",
                                             "-x", "148", "-y", "210", "--test-picture", "Grid", "--format=pnm",
                                             "-o", reference] + Profiles.scanimageDelay())
        #expect(scanimage.status == 0, "\(scanimage)")
        _ = try PDFReaders.succeeded("pdfimages", ["-png", target, world.root + "/page"])
        let same = try Python.run("""
            import sys
            from PIL import Image, ImageChops
            a, b = Image.open(sys.argv[1]).convert("L"), Image.open(sys.argv[2]).convert("L")
            print(a.size, b.size, ImageChops.difference(a, b).getbbox())
            """, [world.root + "/page-000.png", reference])
        #expect(same == "(437, 620) (437, 620) None\n", "\(same)")
    }

    @Test func sixteenBitGreyIsFlateWithEverySampleKept() throws {
        let world = try ScanWorld.testBackend()
        try world.writeConfig(Profiles.onTestScanner("deep", """
            mode = "gray"
            resolution = 75
            page_size = "A5"
            target = "Deep.pdf"
            """, options: """
            depth = 16
            test-picture = "Color pattern"
            """))
        let run = try world.scan("deep")
        #expect(run.status == 0, "\(run)")
        let target = world.library + "/Deep.pdf"
        try PDFReaders.requireAllAgree(target, pages: 1)
        let image = try #require(try PDFs.images(target).first)
        #expect(image.bitsPerComponent == 16 && image.components == 1 && image.encoding == "image", "Flate: \(image)")
        let dictionary = try PDFs.objectDictionary(target, image.object)
        #expect(dictionary.contains("/Filter /FlateDecode") && dictionary.contains("/BitsPerComponent 16"), "\(dictionary)")

        // Every 16-bit sample as scanimage gets it (the test picture uses all 65,536 values, so a
        // byte-order slip or a cut to 8 bits shows).
        let reference = world.root + "/reference.pgm"
        let scanimage = try world.scanimage(["-d", "test:0", "--mode", "Gray", "--depth", "16", "--resolution", "75",
                                             "-x", "148", "-y", "210", "--test-picture", "Color pattern", "--format=pnm",
                                             "-o", reference] + Profiles.scanimageDelay())
        #expect(scanimage.status == 0, "\(scanimage)")
        let samples = world.root + "/samples.raw"
        let raw = try PDFReaders.succeeded("qpdf", ["--show-object=\(image.object)", "--filtered-stream-data", target])
        try raw.stdout.write(to: URL(fileURLWithPath: samples))
        let same = try Python.run("""
            import sys
            from array import array
            from PIL import Image
            reference = Image.open(sys.argv[1])
            samples = array("H"); samples.frombytes(open(sys.argv[2], "rb").read())
            if sys.byteorder == "little": samples.byteswap()   # PDF samples are big-endian
            values = array("i", reference.tobytes())           # Pillow reads 16-bit PGM as 32-bit "I"
            print(reference.mode, reference.size, len(set(values)), list(samples) == list(values))
            """, [reference, samples])
        #expect(same == "I (437, 620) 65536 True\n", "\(same)")
    }

    @Test func withoutATargetARuleForSourceScannerTakesTheScan() throws {
        let world = try ScanWorld.testBackend()
        try world.writeConfig(Profiles.onTestScanner("plain", """
            resolution = 50
            page_size = "A5"
            """) + """
            [[rule]]
            name = "receipts"
            target = "Receipts.pdf"
            [rule.match]
            folder = "receipts"

            [[rule]]
            name = "scans"
            target = "Scans/{profile}-{year}.pdf"
            [rule.match]
            source = "scanner"
            """)
        let run = try world.scan("plain")
        #expect(run.status == 0, "\(run)")
        let year = Calendar(identifier: .gregorian).component(.year, from: Date())
        let target = world.library + "/Scans/plain-\(year).pdf"
        #expect(run.stdout.contains("1 page into \(target) (rule scans)"), "\(run)")
        try PDFReaders.requireAllAgree(target, pages: 1)
        #expect(!FileManager.default.fileExists(atPath: world.library + "/Receipts.pdf"))
    }

    @Test func withNoTargetAndNoRuleThePagesGoToQuarantineWithANote() throws {
        let world = try ScanWorld.testBackend()
        try world.writeConfig(Profiles.onTestScanner("lost", """
            source = "adf"
            resolution = 50
            page_size = "A5"
            """))
        let run = try world.scan("lost")
        #expect(run.status == 65, "\(run)")
        #expect(run.stderr.contains("no rule takes scans"), "\(run)")
        let batches = try world.contents(world.quarantine)
        #expect(batches.count == 1 && batches[0].hasPrefix("scan-"), "\(batches)")
        let batch = world.quarantine + "/" + (batches.first ?? "")
        let files = try world.contents(batch)
        let pages = files.filter { $0.hasSuffix(".jpg") }
        #expect(pages.count == 10, "\(files)")
        #expect(files.count == 20, "every page has its note: \(files)")
        let note = try String(contentsOfFile: batch + "/" + (pages.first ?? "") + ".why.txt", encoding: .utf8)
        #expect(note.contains("reason: no rule takes scans"), "\(note)")
        #expect(try world.contents(world.library).filter { $0.hasSuffix(".pdf") } == [])
        #expect(world.spoolBatches() == [])
    }

    @Test func toOverridesTheProfilesTarget() throws {
        let world = try ScanWorld.testBackend()
        try world.writeConfig(Profiles.onTestScanner("mine", """
            resolution = 50
            page_size = "A5"
            target = "Profile.pdf"
            """))
        let run = try world.scan("mine", ["--to", "elsewhere/Chosen.pdf"])
        #expect(run.status == 0, "\(run)")
        let chosen = world.root + "/elsewhere/Chosen.pdf"
        #expect(run.stdout.contains("1 page into \(chosen) (--to)"), "\(run)")
        try PDFReaders.requireAllAgree(chosen, pages: 1)
        #expect(!FileManager.default.fileExists(atPath: world.library + "/Profile.pdf"))
    }

    /// SIGKILL while the feeder runs: the pages already spooled are never half-appended. The next
    /// run moves the whole batch to quarantine with a note, then scans its own.
    @Test func aBatchKilledMidwayIsQuarantinedWholeByTheNextRun() throws {
        let world = try ScanWorld.testBackend()
        let keys = """
            source = "adf"
            resolution = 50
            page_size = "A4"
            target = "Feeder.pdf"
            """
        // 20 ms after each buffer: about a quarter of a second a page, so the kill lands mid-batch.
        try world.writeConfig(Profiles.onTestScanner("slow", keys, delay: 20000) + Profiles.onTestScanner("fast", keys))
        let child = try world.start(["scan", "--profile", "slow", "--config", "config.toml"])
        let spooled = eventually(timeout: 60) {
            world.spoolBatches().contains { batch in
                ((try? world.contents(world.spool + "/" + batch)) ?? []).contains { $0.hasSuffix("-p0001.jpg") }
            }
        }
        #expect(spooled, "no page spooled within 60 s")
        kill(child.pid, SIGKILL)
        let killed = child.wait(timeout: 30)
        #expect(killed.signal == SIGKILL, "\(killed)")
        let batches = world.spoolBatches()
        #expect(batches.count == 1, "\(batches)")
        let id = try #require(batches.first)
        let left = try world.contents(world.spool + "/" + id).filter { $0.hasSuffix(".jpg") }
        #expect(!left.isEmpty && left.count < 10, "a batch cut short: \(left)")
        var leftBytes: [String: Data] = [:]
        for page in left { leftBytes[page] = try Data(contentsOf: URL(fileURLWithPath: world.spool + "/\(id)/\(page)")) }
        #expect(!FileManager.default.fileExists(atPath: world.library + "/Feeder.pdf"))

        let next = try world.scan("fast")
        #expect(next.status == 0, "\(next)")
        #expect(next.stderr.contains("earlier batch scan-\(id)"), "\(next)")
        let quarantined = world.quarantine + "/scan-" + id
        let files = try world.contents(quarantined)
        // A kill while a page or batch.json was being written leaves NAME.tmp-PID: not a page, never quarantined.
        #expect(files == left.flatMap { [$0, $0 + ".why.txt"] }.sorted(), "the whole batch, each page with its note, nothing else")
        for page in left {
            #expect(try Data(contentsOf: URL(fileURLWithPath: quarantined + "/" + page)) == leftBytes[page], "\(page) moved as it was")
        }
        let note = try String(contentsOfFile: quarantined + "/" + (left.first ?? "") + ".why.txt", encoding: .utf8)
        #expect(note.contains("the scan stopped before the feeder was empty"), "\(note)")
        #expect(note.contains("profile slow"), "\(note)")
        let target = world.library + "/Feeder.pdf"
        try PDFReaders.requireAllAgree(target, pages: 10)
        let history = try world.history(target)
        #expect(history.count == 1 && !history[0].note.contains(id), "only the new batch: \(history)")
        #expect(history.first?.inputs.allSatisfy { !$0.contains(id) } == true, "\(history)")
        #expect(world.spoolBatches() == [])
    }

    /// The test scanner's sane_read made to fail: the command names the call and SANE's status in
    /// its one line and exits as the status says. After such a failure the backend cancels its
    /// reader thread asynchronously, which hung the process it ran in now and then: the scan runs
    /// in the scanner agent, so the command returns in bounded time whatever the backend does (run
    /// without ScanWorld.scan's second try, so a hang fails here). The failure hits the first page,
    /// so there are no pages to quarantine; subscribers hear of the failed scan on its device, and
    /// the scanner scans again at the next run.
    @Test(arguments: [
        ("SANE_STATUS_JAMMED", "sane_read: Document feeder jammed", Int32(74)),
        ("SANE_STATUS_DEVICE_BUSY", "sane_read: Device busy", 75),
        ("SANE_STATUS_COVER_OPEN", "sane_read: Scanner cover is open", 74),
        ("SANE_STATUS_NO_DOCS", "sane_read: Document feeder out of documents", 74),
    ])
    func readFailuresNameTheStepAndStatus(code: String, message: String, exit: Int32) throws {
        let world = try ScanWorld.testBackend()
        let keys = """
            source = "adf"
            resolution = 50
            page_size = "A5"
            target = "Failing.pdf"
            """
        try world.writeConfig(Profiles.onTestScanner("failing", keys, options: "read-return-value = \"\(code)\"")
                              + Profiles.onTestScanner("working", keys) + """
            [[notify]]
            name = "hook"
            events = ["scan-failed"]
            url = "http://127.0.0.1:\(WebhookReceiver.freePort())/"

            """)
        let started = Date()
        let run = try world.start(["scan", "--profile", "failing", "--config", "config.toml"]).wait(timeout: 90)
        let seconds = Date().timeIntervalSince(started)
        #expect(!run.timedOut && seconds < 60, "returned after \(Int(seconds)) s: \(run)")
        #expect(run.status == exit, "\(run)")
        let reason = run.stderr.split(separator: "\n").map(String.init).filter { $0.contains(message) }
        #expect(reason.count == 1 && reason[0].hasPrefix("pdftrapper scan: \(message);"), "one line: \(run)")
        #expect(reason.first?.contains("quarantined: the scan failed: \(message)") == true, "\(run)")

        #expect(!FileManager.default.fileExists(atPath: world.library + "/Failing.pdf"))
        #expect(world.spoolBatches() == [])
        let quarantined = FileManager.default.enumerator(atPath: world.quarantine)?.allObjects as? [String] ?? []
        #expect(quarantined.filter { $0.hasSuffix(".jpg") } == [], "no page was read: \(quarantined)")
        let events = try world.pdftrapper(["events", "--config", "config.toml", "--json"]).stdout
            .split(separator: "\n").compactMap { try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
            .compactMap { $0["event"] as? [String: Any] }
        let failed = events.filter { $0["event"] as? String == "scan-failed" }
        #expect(failed.count == 1 && failed.first?["device"] as? String == "test:0"
                && failed.first?["profile"] as? String == "failing", "\(events)")
        #expect((failed.first?["reason"] as? String)?.contains("after 0 pages: \(message)") == true, "\(events)")

        let next = try world.scan("working")
        #expect(next.status == 0, "\(next)")
        try PDFReaders.requireAllAgree(world.library + "/Failing.pdf", pages: 10)
    }
}

/// `pdftrapper scan` against the tests' `tiny` scanner, whose sheets are numbered (page K shows K
/// bars), whose log says what it was asked, and which can be busy, unplugged or out of paper.
@Suite struct ScanCommandTinyTests {
    static func profile(_ name: String, source: String, options: String = "") -> String {
        """
        [profile.\(name)]
        device = "tiny:*"
        source = "\(source)"
        mode = "gray"
        resolution = 50
        page_size = "Letter"
        target = "Tiny.pdf"
        \(options.isEmpty ? "" : "[profile.\(name).options]\n" + options)

        """
    }

    @Test func aFeederBatchKeepsSheetOrderAndSetsTheProfilesOptions() throws {
        let tiny = try TinySane.make()
        let world = try ScanWorld.tiny(tiny)
        try world.writeConfig(Self.profile("x", source: "adf", options: "brightness = 12.5"))
        try tiny.loadFeeder(3)
        let run = try world.scan("x")
        #expect(run.status == 0, "\(run)")
        let target = world.library + "/Tiny.pdf"
        try PDFReaders.requireAllAgree(target, pages: 3)
        #expect(try PDFs.bars(target) == [1, 2, 3])
        #expect(tiny.feederCount == 0)
        // brightness is a fixed-point option: 12.5 arrives as 12.50, not rounded to an integer.
        #expect(tiny.log == ["open"] + (1...3).map {
            "start page=\($0) mode=Gray resolution=50 source=ADF brightness=12.50 area=0.00,0.00,215.90,279.40"
        } + ["close"], "\(tiny.log)")
        #expect(try world.history(target).map(\.pages) == [3])
    }

    @Test func duplexGivesBothSidesOfEachSheet() throws {
        let tiny = try TinySane.make()
        let world = try ScanWorld.tiny(tiny)
        try world.writeConfig(Self.profile("both", source: "adf-duplex"))
        try tiny.loadFeeder(2)
        let run = try world.scan("both")
        #expect(run.status == 0, "\(run)")
        #expect(run.stderr.contains("4 pages from tiny:0 (ADF Duplex, Gray, 50 dpi)"), "\(run)")
        let target = world.library + "/Tiny.pdf"
        try PDFReaders.requireAllAgree(target, pages: 4)
        #expect(try PDFs.bars(target) == [1, 2, 3, 4])
        #expect(tiny.feederCount == 0)
        #expect(tiny.log.filter { $0.hasPrefix("start ") }.allSatisfy { $0.contains("source=ADF Duplex") }, "\(tiny.log)")
    }

    @Test func anEmptyFeederIsExit66AndLeavesNothingBehind() throws {
        let tiny = try TinySane.make()
        let world = try ScanWorld.tiny(tiny)
        try world.writeConfig(Self.profile("x", source: "adf"))
        let run = try world.scan("x")
        #expect(run.status == 66, "\(run)")
        #expect(run.stderr.contains("tiny:0: the document feeder is empty; nothing scanned"), "\(run)")
        #expect(!FileManager.default.fileExists(atPath: world.library + "/Tiny.pdf"))
        #expect(world.spoolBatches() == [])
        #expect((try? world.contents(world.quarantine)) ?? [] == [])
    }

    @Test func aBusyScannerIsExit75() throws {
        let tiny = try TinySane.make()
        let world = try ScanWorld.tiny(tiny)
        try world.writeConfig(Self.profile("x", source: "adf"))
        try tiny.loadFeeder(1)
        try tiny.setBusy(true)
        let busy = try world.scan("x")
        #expect(busy.status == 75, "\(busy)")
        #expect(busy.stderr.contains("Device busy"), "\(busy)")
        try tiny.setBusy(false)

        // Another program holding the device is the same to the user: try again later.
        let holder = try tiny.hold()
        let held = try world.scan("x")
        #expect(held.status == 75, "\(held)")
        holder.release()
        #expect(tiny.feederCount == 1, "no sheet was taken")
        #expect(!FileManager.default.fileExists(atPath: world.library + "/Tiny.pdf"))
        #expect(world.spoolBatches() == [])
    }

    /// The daemon's button poll holds the device for a moment; a scan then waits (up to 3 s)
    /// rather than failing.
    @Test func aScannerBusyForAMomentIsWaitedFor() throws {
        let tiny = try TinySane.make()
        let world = try ScanWorld.tiny(tiny)
        try world.writeConfig(Self.profile("x", source: "adf"))
        try tiny.loadFeeder(1)
        let holder = try tiny.hold()
        let child = try world.start(["scan", "--profile", "x", "--config", "config.toml"])
        usleep(800_000)
        holder.release()
        let run = child.wait(timeout: ScanWorld.deadline)
        #expect(run.status == 0, "\(run)")
        try PDFReaders.requireAllAgree(world.library + "/Tiny.pdf", pages: 1)
    }

    @Test func anUnpluggedScannerIsExit69() throws {
        let tiny = try TinySane.make()
        let world = try ScanWorld.tiny(tiny)
        // By pattern (the device list) and by name (an open that fails).
        try world.writeConfig(Self.profile("x", source: "adf") + """
            [profile.named]
            device = "tiny:0"
            source = "adf"
            target = "Tiny.pdf"

            """)
        try tiny.loadFeeder(1)
        try tiny.unplug()
        let byPattern = try world.scan("x")
        expectExit(byPattern, 69)
        #expect(byPattern.stderr.contains("no scanner matches \"tiny:*\""), "\(byPattern)")
        let byName = try world.scan("named")
        expectExit(byName, 69)
        #expect(!FileManager.default.fileExists(atPath: world.library + "/Tiny.pdf"))
        #expect(world.spoolBatches() == [])
    }

    /// Killed after the batch is whole and before its revision: the next run appends the left-over
    /// batch first, then its own, one revision each, in scan order.
    @Test func killedBeforeTheRevisionTheNextRunAppendsTheBatchFirst() throws {
        let tiny = try TinySane.make()
        let world = try ScanWorld.tiny(tiny)
        try world.writeConfig(Self.profile("x", source: "adf"))
        let target = world.library + "/Tiny.pdf"
        try tiny.loadFeeder(2)
        let killed = try world.scan("x", environment: ["PDFTRAPPER_CRASH_AT": "scan-spooled"])
        #expect(killed.signal == SIGKILL, "\(killed)")
        #expect(!FileManager.default.fileExists(atPath: target), "no target before the revision")
        #expect(world.spoolBatches().count == 1)

        try tiny.loadFeeder(2)
        let next = try world.scan("x")
        #expect(next.status == 0, "\(next)")
        #expect(next.stderr.contains("earlier batch"), "\(next)")
        try PDFReaders.requireAllAgree(target, pages: 4)
        #expect(try PDFs.bars(target) == [1, 2, 3, 4])
        let history = try world.history(target)
        #expect(history.map(\.pages) == [2, 2], "\(history)")
        #expect(world.spoolBatches() == [])
    }

    /// Killed after the revision is durable and before the batch left the spool: the next run sees
    /// the batch's revision in the target and does not append it again.
    @Test func killedAfterTheRevisionTheBatchIsNotAppendedTwice() throws {
        let tiny = try TinySane.make()
        let world = try ScanWorld.tiny(tiny)
        try world.writeConfig(Self.profile("x", source: "adf"))
        let target = world.library + "/Tiny.pdf"
        try tiny.loadFeeder(2)
        let killed = try world.scan("x", environment: ["PDFTRAPPER_CRASH_AT": "scan-committed"])
        #expect(killed.signal == SIGKILL, "\(killed)")
        try PDFReaders.requireAllAgree(target, pages: 2)
        #expect(world.spoolBatches().count == 1, "the batch is still in the spool")

        try tiny.loadFeeder(2)
        let next = try world.scan("x")
        #expect(next.status == 0, "\(next)")
        try PDFReaders.requireAllAgree(target, pages: 4)
        #expect(try PDFs.bars(target) == [1, 2, 3, 4])
        #expect(try world.history(target).map(\.pages) == [2, 2])
        #expect(world.spoolBatches() == [])
    }

    /// The scanner unplugged between two sheets: the page already scanned goes to quarantine with
    /// a note, none to the target.
    ///
    /// The timing comes from the tiny scanner's log: it opens the file for each line, so with the
    /// log a FIFO the scan stops at its next line until the test reads. Reading the line of page 1
    /// lets page 1 through; the next line (page 2's start) then waits while the test unplugs.
    /// Page 1 is large (600 dpi, Legal) so reading it takes far longer than closing the FIFO.
    @Test func unpluggedMidBatchThePagesScannedGoToQuarantine() throws {
        let tiny = try TinySane.make()
        let world = try ScanWorld.tiny(tiny)
        try world.writeConfig("""
            [profile.big]
            device = "tiny:0"
            source = "adf"
            mode = "gray"
            resolution = 600
            page_size = "Legal"
            target = "Tiny.pdf"
            [[notify]]
            name = "hook"
            events = ["scan-failed", "quarantined"]
            url = "http://127.0.0.1:\(WebhookReceiver.freePort())/"

            """)
        try tiny.loadFeeder(3)
        let gate = try LogGate(tiny)
        let child = try world.start(["scan", "--profile", "big", "--config", "config.toml"])
        var seen: [String] = []
        while !seen.contains(where: { $0.hasPrefix("start page=1 ") }) {
            guard let lines = gate.pass(timeout: 60) else { break }
            seen += lines
        }
        #expect(seen.first == "open" && seen.last?.hasPrefix("start page=1 ") == true, "\(seen)")
        // Page 1 is read once the encoder has written it; the scan then waits at page 2's log line.
        let spooled = eventually(timeout: 60) {
            world.spoolBatches().contains { batch in
                ((try? world.contents(world.spool + "/" + batch)) ?? []).contains { $0.hasSuffix("-p0001.jpg") }
            }
        }
        #expect(spooled, "page 1 never reached the spool")
        try tiny.unplug()
        let drained = gate.drain(until: { !child.isRunning }, timeout: 60)
        let run = child.wait(timeout: 30)
        #expect(run.status == 74, "\(run)")
        #expect(run.stderr.contains("sane_read: Error during device I/O"), "\(run)")
        #expect(!(seen + drained).contains { $0.hasPrefix("start page=3 ") }, "\(seen + drained)")

        #expect(!FileManager.default.fileExists(atPath: world.library + "/Tiny.pdf"))
        #expect(world.spoolBatches() == [])
        let batches = try world.contents(world.quarantine)
        #expect(batches.count == 1, "\(batches)")
        let folder = world.quarantine + "/" + (batches.first ?? "")
        let files = try world.contents(folder)
        #expect(files.count == 2 && files[0].hasSuffix("-p0001.jpg") && files[1] == files[0] + ".why.txt", "\(files)")
        let note = try String(contentsOfFile: folder + "/" + files[files.count - 1], encoding: .utf8)
        #expect(note.contains("reason: the scan failed: sane_read: Error during device I/O"), "\(note)")
        // Subscribers hear of it: the failed scan, and its page put in quarantine (no daemon runs to send them).
        let events = try world.pdftrapper(["events", "--config", "config.toml", "--json"]).stdout
            .split(separator: "\n").compactMap { try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
            .compactMap { $0["event"] as? [String: Any] }
        let failed = events.first { $0["event"] as? String == "scan-failed" }
        #expect(failed?["profile"] as? String == "big" && failed?["device"] as? String == "tiny:0", "\(events)")
        #expect((failed?["reason"] as? String ?? "").contains("Error during device I/O"), "\(events)")
        #expect(events.filter { $0["event"] as? String == "quarantined" }.count == 1, "\(events)")
    }

    enum Breakdown: CaseIterable { case hang, crash }

    /// A backend that hangs, or a scan process that dies, in the middle of a batch: the command
    /// ends the scan's process (group), says in one line which device and which step, exits 74, and
    /// the page already scanned goes to quarantine with a note. The hang is real, inside
    /// sane_start: the tiny scanner writes its log line there, and with the log a FIFO nobody reads
    /// the open never returns. The crash is a SIGKILL of the scan process stuck there (as the OOM
    /// killer would); with the default --stall of 5 minutes, only its death can end the command.
    @Test(arguments: Breakdown.allCases)
    func aScannerThatHangsOrDiesMidBatchIsStoppedAndItsPagesQuarantined(_ breakdown: Breakdown) throws {
        let tiny = try TinySane.make()
        let world = try ScanWorld.tiny(tiny)
        try world.writeConfig(Self.profile("x", source: "adf"))
        try tiny.loadFeeder(3)
        let gate = try LogGate(tiny)
        let stall = breakdown == .hang ? ["--stall", "8s"] : []
        let child = try world.start(["scan", "--profile", "x", "--config", "config.toml"] + stall)
        #expect(letOneLineThrough(gate, world) == "open")
        #expect(letOneLineThrough(gate, world)?.hasPrefix("start page=1 ") == true)
        let spooled = eventually(timeout: 60) {
            world.spoolBatches().contains { batch in
                ((try? world.contents(world.spool + "/" + batch)) ?? []).contains { $0.hasSuffix("-p0001.jpg") }
            }
        }
        #expect(spooled, "page 1 never reached the spool")
        // Page 2 is taken from the feeder, then sane_start waits for ever at its log line.
        #expect(eventually(timeout: 30) { tiny.feederCount == 1 && waitsForTheLog(world) }, "page 2 never started")
        let stuck = Date()
        if breakdown == .crash {
            let agents = scanAgents(world)
            #expect(agents.count == 1, "one scan process: \(agents)")
            agents.forEach { kill($0, SIGKILL) }
        }
        let run = child.wait(timeout: 90)
        let seconds = Date().timeIntervalSince(stuck)
        switch breakdown {
        case .hang: #expect(seconds > 7 && seconds < 45, "stopped after \(Int(seconds)) s")
        case .crash: #expect(seconds < 30, "returned after \(Int(seconds)) s")
        }
        #expect(!run.timedOut && run.status == 74, "\(run)")
        let reason = switch breakdown {
        case .hang: "tiny:0: no progress for 8s during sane_start (page 2); the scan was stopped"
        case .crash: "tiny:0: the scan's process was killed by signal 9 during sane_start (page 2)"
        }
        let lines = run.stderr.split(separator: "\n").map(String.init).filter { $0.contains(reason) }
        #expect(lines.count == 1 && lines[0].hasPrefix("pdftrapper scan: \(reason); "), "one line: \(run)")
        #expect(scanAgents(world) == [], "the scan process is gone")

        #expect(!FileManager.default.fileExists(atPath: world.library + "/Tiny.pdf"))
        #expect(world.spoolBatches() == [])
        let batches = try world.contents(world.quarantine)
        #expect(batches.count == 1, "\(batches)")
        let folder = world.quarantine + "/" + (batches.first ?? "")
        let files = try world.contents(folder)
        #expect(files.count == 2 && files[0].hasSuffix("-p0001.jpg") && files[1] == files[0] + ".why.txt", "\(files)")
        let note = try String(contentsOfFile: folder + "/" + files[files.count - 1], encoding: .utf8)
        #expect(note.contains("reason: the scan failed: \(reason)"), "\(note)")

        // The scanner was never the trouble: with the log readable again, the next run scans.
        try FileManager.default.removeItem(atPath: gate.path)
        let next = try world.scan("x")
        #expect(next.status == 0, "\(next)")
        try PDFReaders.requireAllAgree(world.library + "/Tiny.pdf", pages: 1)
    }

    /// A read fails (the scanner unplugged), and closing the device then hangs, as some backends
    /// hang cancelling their reader thread after a failure: the command reports the failure as it
    /// would have anyway, and stops the scan's process once closing has taken 20 s. The hang: the
    /// tiny scanner's "close" log line, with the log a FIFO nobody reads any more.
    @Test func aDeviceThatHangsClosingAfterAFailedReadStillEndsTheCommand() throws {
        let tiny = try TinySane.make()
        let world = try ScanWorld.tiny(tiny)
        try world.writeConfig(Self.profile("x", source: "adf"))
        try tiny.loadFeeder(3)
        let gate = try LogGate(tiny)
        let child = try world.start(["scan", "--profile", "x", "--config", "config.toml"])
        #expect(letOneLineThrough(gate, world) == "open")
        #expect(letOneLineThrough(gate, world)?.hasPrefix("start page=1 ") == true)
        let spooled = eventually(timeout: 60) {
            world.spoolBatches().contains { batch in
                ((try? world.contents(world.spool + "/" + batch)) ?? []).contains { $0.hasSuffix("-p0001.jpg") }
            }
        }
        #expect(spooled, "page 1 never reached the spool")
        try tiny.unplug()
        // Page 2's sane_start goes through (it looked for the plug before its log line); its
        // sane_read fails, and sane_close then waits at its "close" line for ever.
        #expect(letOneLineThrough(gate, world)?.hasPrefix("start page=2 ") == true)
        let failed = Date()
        let run = child.wait(timeout: 90)
        let seconds = Date().timeIntervalSince(failed)
        #expect(!run.timedOut && seconds > 15 && seconds < 50, "returned after \(Int(seconds)) s: \(run)")
        #expect(run.status == 74, "\(run)")
        let lines = run.stderr.split(separator: "\n").map(String.init).filter { $0.contains("Error during device I/O") }
        #expect(lines.count == 1 && lines[0].hasPrefix("pdftrapper scan: sane_read: Error during device I/O; "), "\(run)")
        #expect(scanAgents(world) == [], "the scan process is gone")
        let batches = try world.contents(world.quarantine)
        let files = try world.contents(world.quarantine + "/" + (batches.first ?? ""))
        #expect(batches.count == 1 && files.count == 2 && files[0].hasSuffix("-p0001.jpg"), "\(batches) \(files)")
        #expect(world.spoolBatches() == [])
    }

    /// Lets through the one line the tiny scanner waits to log, and no later one. Once the scan
    /// process waits to open the log FIFO, the FIFO is moved aside and a new one, which nobody
    /// reads, takes its place; only then is the old one read, to its end. (LogGate.pass reads until
    /// a line comes, then closes: a line logged within that moment would get through too.)
    func letOneLineThrough(_ gate: LogGate, _ world: ScanWorld) -> String? {
        guard eventually(timeout: 60, { waitsForTheLog(world) }) else { return nil }
        let aside = gate.path + ".passed"
        guard rename(gate.path, aside) == 0, mkfifo(gate.path, 0o644) == 0 else { return nil }
        defer { unlink(aside) }
        let descriptor = open(aside, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var text: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        let end = Date().addingTimeInterval(30)
        // To the end of the writer's line and its close, so that it no longer waits here.
        while Date() < end {
            let count = read(descriptor, &buffer, buffer.count)
            if count > 0 { text += buffer[0..<count] }
            if count == 0 && text.last == 0x0A { break }
            usleep(1000)
        }
        return text.last == 0x0A ? String(decoding: text.dropLast(), as: UTF8.self) : nil
    }

    /// Whether the scan process is blocked opening a FIFO: the tiny scanner's log, nobody reading it.
    func waitsForTheLog(_ world: ScanWorld) -> Bool {
        scanAgents(world).contains { (try? String(contentsOfFile: "/proc/\($0)/wchan", encoding: .utf8)) == "wait_for_partner" }
    }

    /// The scan processes (`pdftrapper scanner-agent --profile ...`) running on this world's config.
    func scanAgents(_ world: ScanWorld) -> [pid_t] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return names.compactMap { name in
            guard let pid = pid_t(name), let data = FileManager.default.contents(atPath: "/proc/\(name)/cmdline") else { return nil }
            let arguments = data.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
            return arguments.contains("scanner-agent") && arguments.contains(world.root + "/config.toml") ? pid : nil
        }
    }
}

/// Expects `run` to end with `status` (a scan that gives up at once, before its encoder thread has
/// run, once aborted reading a freed encoder: exit 134 instead of 69).
func expectExit(_ run: ChildRun, _ status: Int32, sourceLocation: SourceLocation = #_sourceLocation) {
    #expect(run.status == status, "\(run)", sourceLocation: sourceLocation)
}

/// `ingest = "batch"` on a scan profile: presses (here, runs of `pdftrapper scan`) within the
/// profile's `batch_window` of the last batch go into one new file, a revision each, as a rule's
/// `mode = "batch"` does for the inbox; a press after the window opens the next file.
@Suite struct ScanBatchTests {
    @Test func pressesWithinTheWindowJoinOneNewFileAndALaterOneOpensTheNext() throws {
        let world = try ScanWorld.testBackend()
        try world.writeConfig(Profiles.onTestScanner("receipts", """
            source = "flatbed"
            mode = "gray"
            resolution = 50
            page_size = "A4"
            target = "Receipts/batch-{seq}.pdf"
            ingest = "batch"
            batch_window = "8s"
            """))
        let first = world.library + "/Receipts/batch-1.pdf", second = world.library + "/Receipts/batch-2.pdf"
        for _ in 0..<2 {
            let run = try world.scan("receipts")
            #expect(run.status == 0, "\(run)")
        }
        #expect(try world.history(first).count == 2, "both presses in the first file")
        try PDFReaders.requireAllAgree(first, pages: 2)
        #expect(!FileManager.default.fileExists(atPath: second))
        sleep(9)
        let later = try world.scan("receipts")
        #expect(later.status == 0, "\(later)")
        #expect(later.stdout.contains("into \(second)"), "\(later)")
        try PDFReaders.requireAllAgree(second, pages: 1)
        #expect(try world.history(first).count == 2, "the first file is left as it was")
    }

    @Test func aBatchWindowWithoutBatchIngestIsAMistakeSaidWhereItIsWritten() throws {
        let world = try ScanWorld.testBackend()
        try world.writeConfig(Profiles.onTestScanner("p", """
            target = "P.pdf"
            batch_window = "3s"
            """))
        let check = try Binary.run(["check-config", "--config", world.root + "/config.toml"], in: URL(fileURLWithPath: world.root))
        #expect(check.status != 0 && check.stderr.contains("batch_window applies only when ingest = \"batch\""), "\(check)")
    }
}
