import Foundation
import Glibc
import System
import TestSupport
import Testing

/// Scanner buttons through the real daemon: `pdftrapper run` with a `[[scanner]]` starts its scanner
/// agent, which polls the `tiny` test scanner; a press scans the bound profile and the daemon appends
/// the whole batch as one revision. Busy and unplugged scanners, other programs sharing the device,
/// a dying agent, crashes and stops mid-batch all end with every page in its target exactly once,
/// or none of a cut-short batch's pages in any target.
@Suite struct ScannerButtonTests {
    // MARK: One press, one batch

    @Test func aPressScansEverySheetIntoOneRevision() throws {
        let rig = try ScannerRig()
        let daemon = try rig.start()
        try rig.waitForFirstPoll(daemon)
        try rig.tiny.loadFeeder(3)
        try rig.press(daemon, expectingBatches: 1)

        #expect(rig.tiny.feederCount == 0)
        let lines = rig.batchLines(daemon)
        #expect(lines.count == 1 && lines[0].contains(": 3 pages into \(rig.target) (profile adf)"), "\(rig.seen(daemon))")
        #expect(try rig.bars() == [1, 2, 3])
        let history = try rig.history()
        #expect(history.count == 1, "one revision: \(history)")
        #expect(history.first?.contains("+3 pages") == true, "\(history)")
        #expect(history.first?.contains(": profile adf on tiny:0, button scan]") == true, "\(history)")
        try PDFReaders.requireAllAgree(rig.target, pages: 3)

        // Nothing more comes of that press.
        sleep(3)
        #expect(rig.batchLines(daemon).count == 1, "\(rig.seen(daemon))")
        #expect(try rig.history().count == 1)
        #expect(rig.spool == [], "the batch left the spool")
        #expect(daemon.stop() == 0)
    }

    /// `separator = "blank"` on the profile: a blank sheet in the feeder ends one document and
    /// starts the next, each a new file (the tiny scanner's 16th page has no bars: blank).
    @Test func aBlankSheetSplitsABatchIntoTwoNewFiles() throws {
        let rig = try ScannerRig(profileTarget: "Scans/doc-{seq}.pdf", profileKeys: "ingest = \"new\"\nseparator = \"blank\"")
        try rig.tiny.setPagesDelivered(13)
        let daemon = try rig.start()
        try rig.waitForFirstPoll(daemon)
        try rig.tiny.loadFeeder(5)
        try rig.tiny.press("scan")
        defer { try? rig.tiny.release("scan") }
        let first = rig.scratch.path + "/library/Scans/doc-1.pdf", second = rig.scratch.path + "/library/Scans/doc-2.pdf"
        try #require(eventually(timeout: 30) { daemon.log.contains("into 2 documents") }, "\(rig.seen(daemon))")
        #expect(try rig.bars(first) == [14, 15])
        #expect(try rig.bars(second) == [1, 2])
        try PDFReaders.requireAllAgree(first, pages: 2)
        try PDFReaders.requireAllAgree(second, pages: 2)
        let history = try rig.history(second)
        #expect(history.count == 1 && history[0].contains("document 2 of 2"), "\(history)")
        #expect(rig.spool == [], "the batch left the spool")
        #expect(daemon.stop() == 0)
    }

    @Test func aHeldButtonIsOneJob() throws {
        let rig = try ScannerRig()
        let daemon = try rig.start()
        try rig.waitForFirstPoll(daemon)
        try rig.tiny.loadFeeder(2)
        let pressed = Date()
        try rig.tiny.press("scan")
        try #require(eventually(timeout: 30) { rig.batchLines(daemon).count == 1 }, "\(rig.seen(daemon))")
        let firstBatch = Date()
        // Sheets wait in the feeder while the button stays down past the 2.5 s rest.
        try rig.tiny.loadFeeder(2)
        Thread.sleep(until: max(pressed.addingTimeInterval(4), firstBatch.addingTimeInterval(3)))
        #expect(rig.batchLines(daemon).count == 1, "a held button started a second job: \(rig.seen(daemon))")
        #expect(rig.tiny.feederCount == 2)

        try rig.tiny.release("scan")
        try rig.waitForPolls(daemon)
        try rig.press(daemon, expectingBatches: 2)
        #expect(rig.tiny.feederCount == 0)
        #expect(try rig.history().count == 2)
        #expect(try rig.bars() == [1, 2, 3, 4])
        #expect(daemon.stop() == 0)
    }

    // MARK: Busy, unplugged, shared

    @Test func aBusyScannerIsLoggedOnceAndLeftAlone() throws {
        let rig = try ScannerRig()
        let daemon = try rig.start()
        try rig.waitForFirstPoll(daemon)
        try rig.tiny.setBusy(true)
        try #require(eventually { rig.count(ScannerRig.busy, in: daemon) == 1 }, "\(rig.seen(daemon))")
        let tinyLines = rig.tiny.log.count
        sleep(3)
        #expect(rig.count(ScannerRig.busy, in: daemon) == 1, "busy logged once, not once per poll: \(rig.seen(daemon))")
        #expect(rig.tiny.log.count == tinyLines, "the device opened while busy: \(rig.tiny.log.suffix(10))")

        let closes = rig.closes
        try rig.tiny.setBusy(false)
        try #require(eventually(timeout: 30) { daemon.log.contains("scanner tiny:0: available again (tiny:0)") },
                     "\(rig.seen(daemon))")
        try #require(eventually(timeout: 30) { rig.closes > closes }, "\(rig.seen(daemon))")
        try rig.tiny.loadFeeder(2)
        try rig.press(daemon, expectingBatches: 1)
        #expect(try rig.bars() == [1, 2])
        #expect(daemon.stop() == 0)
    }

    /// While another program holds the device, the agent tries it once per `busy_backoff`, not once
    /// per poll. (A refused open leaves no line in tiny's log, so the attempts are counted as opens
    /// of its lock file.)
    @Test func aHeldDeviceIsTriedOncePerBackoff() throws {
        let backoff = 1.0
        let rig = try ScannerRig(busyBackoff: "\(Int(backoff))s")
        let daemon = try rig.start()
        try rig.waitForFirstPoll(daemon)
        let holder = try rig.holdWithinAFewTries()
        let opens = try LockOpenCounter(rig.tiny.control.appendingPathComponent("lock").path)
        let started = Date()
        try #require(eventually { rig.count(ScannerRig.busy, in: daemon) == 1 }, "\(rig.seen(daemon))")
        sleep(3)
        let attempts = try opens.count()
        let window = Date().timeIntervalSince(started)
        #expect(attempts <= Int(window / backoff) + 2,
                "\(attempts) attempts in \(window) s with busy_backoff \(backoff) s: \(rig.seen(daemon))")
        #expect(rig.count(ScannerRig.busy, in: daemon) == 1, "\(rig.seen(daemon))")

        let closes = rig.closes
        holder.release()
        try #require(eventually(timeout: 30) { rig.closes > closes }, "\(rig.seen(daemon))")
        #expect(daemon.log.contains("scanner tiny:0: available again"), "\(rig.seen(daemon))")
        try rig.tiny.loadFeeder(1)
        try rig.press(daemon, expectingBatches: 1)
        #expect(daemon.stop() == 0)
    }

    @Test func anUnpluggedScannerIsLoggedOnceAndFoundAgain() throws {
        let rig = try ScannerRig()
        let daemon = try rig.start()
        try rig.waitForFirstPoll(daemon)
        try rig.tiny.unplug()
        let unavailable = "scanner tiny:0: unavailable ("
        try #require(eventually { rig.count(unavailable, in: daemon) == 1 }, "\(rig.seen(daemon))")
        #expect(daemon.log.contains("; retrying quietly until it is back"), "\(rig.seen(daemon))")
        // Retried every 2 s meanwhile, quietly.
        sleep(4)
        #expect(rig.count(unavailable, in: daemon) == 1, "\(rig.seen(daemon))")

        let closes = rig.closes
        try rig.tiny.replug()
        try #require(eventually(timeout: 30) { daemon.log.contains("scanner tiny:0: available again (tiny:0)") },
                     "\(rig.seen(daemon))")
        try #require(eventually(timeout: 30) { rig.closes > closes }, "\(rig.seen(daemon))")
        try rig.tiny.loadFeeder(2)
        try rig.press(daemon, expectingBatches: 1)
        #expect(try rig.bars() == [1, 2])
        #expect(daemon.stop() == 0)
    }

    @Test func anotherProgramCanOpenTheDeviceBetweenPolls() throws {
        let rig = try ScannerRig()
        let daemon = try rig.start()
        try rig.waitForFirstPoll(daemon)
        // A poll holds the device for a moment; between polls it is free.
        let holder = try rig.holdWithinAFewTries()
        holder.release()
        var scanimage: Run?
        for _ in 0..<10 where scanimage?.status != 0 {
            scanimage = try rig.tiny.scanimage(["-d", "tiny:0", "-A"])
            if scanimage?.status != 0 { usleep(50_000) }
        }
        #expect(scanimage?.status == 0, "scanimage: \(scanimage?.stderr ?? "")")
        #expect(daemon.stop() == 0)
    }

    @Test func keepOpenHoldsTheDeviceBetweenPolls() throws {
        let rig = try ScannerRig(keepOpen: true)
        let daemon = try rig.start()
        try #require(eventually { rig.tiny.log.contains("open") }, "\(rig.seen(daemon))")
        let until = Date().addingTimeInterval(1.2)
        var attempts = 0, refused = 0
        while Date() < until {
            attempts += 1
            do { try rig.tiny.hold().release() } catch TinySaneError.deviceHeld { refused += 1 }
            usleep(50_000)
        }
        #expect(refused == attempts, "\(attempts - refused) of \(attempts) opens got the device")
        let scanimage = try rig.tiny.scanimage(["-d", "tiny:0", "-A"])
        #expect(scanimage.stderr.contains("Device busy"), "\(scanimage.stderr)")
        #expect(rig.tiny.log == ["open"], "opened once, never closed: \(rig.tiny.log)")

        // The held device scans as well.
        try rig.tiny.loadFeeder(1)
        try rig.press(daemon, expectingBatches: 1)
        #expect(rig.tiny.log.filter { $0 == "open" }.count == 1, "\(rig.tiny.log)")
        #expect(daemon.stop() == 0)
    }

    // MARK: Routing and the inbox

    @Test func aScanAndAnInboxFileForOneTargetNeverInterleave() throws {
        let rig = try ScannerRig(rules: """
            [[rule]]
            name = "photos"
            target = "Scans.pdf"
            """)
        try TestImages.make(rig.scratch.path + "/photo.png", width: 300, height: 400)
        let daemon = try rig.start()
        try rig.waitForFirstPoll(daemon)
        try rig.tiny.loadFeeder(3)
        try FileManager.default.moveItem(atPath: rig.scratch.path + "/photo.png", toPath: rig.scratch.path + "/inbox/photo.png")
        try rig.press(daemon, expectingBatches: 1)
        try #require(eventually(timeout: 30) { daemon.log.contains("photo.png: 1 page into \(rig.target) (rule photos)") },
                     "\(rig.seen(daemon))")

        try PDFReaders.requireAllAgree(rig.target, pages: 4)
        let history = try rig.history()
        try #require(history.count == 2, "two revisions: \(history)")
        let scanFirst = history[0].contains("+3 pages")
        #expect(history[scanFirst ? 0 : 1].contains("+3 pages") && history[scanFirst ? 0 : 1].contains("button scan]"), "\(history)")
        #expect(history[scanFirst ? 1 : 0].contains("+1 page ") && history[scanFirst ? 1 : 0].contains("photo.png"), "\(history)")
        // Each revision's pages together, in the order of the revisions: the photo is a 1-inch page.
        let widths = try rig.pageWidths()
        let scanned = 611.52
        #expect(widths == (scanFirst ? [scanned, scanned, scanned, 72] : [72, scanned, scanned, scanned]),
                "page widths \(widths), history \(history)")
        let bars = try rig.bars()
        #expect((scanFirst ? Array(bars.prefix(3)) : Array(bars.suffix(3))) == [1, 2, 3], "\(bars)")
        #expect(daemon.stop() == 0)
    }

    @Test func aRuleRoutesScansByButton() throws {
        let rig = try ScannerRig(buttons: ["email": "adf", "scan": "adf"], profileTarget: nil, rules: """
            [[rule]]
            name = "mail"
            target = "Mail/Outbox.pdf"
            [rule.match]
            source = "scanner"
            button = "email"

            [[rule]]
            name = "other-scans"
            target = "Other.pdf"
            [rule.match]
            source = "scanner"
            """)
        let daemon = try rig.start()
        try rig.waitForFirstPoll(daemon)
        try rig.tiny.loadFeeder(2)
        try rig.press(daemon, "email", expectingBatches: 1)
        let mail = rig.scratch.path + "/library/Mail/Outbox.pdf"
        #expect(rig.batchLines(daemon).first?.contains(": 2 pages into \(mail) (rule mail)") == true, "\(rig.seen(daemon))")
        try PDFReaders.requireAllAgree(mail, pages: 2)
        #expect(!FileManager.default.fileExists(atPath: rig.scratch.path + "/library/Other.pdf"))
        #expect(try Binary.run(["history", mail]).stdout.contains("button email]"))
        #expect(daemon.stop() == 0)
    }

    // MARK: systemd, the agent

    @Test func systemdHearsWhatIsBeingScanned() throws {
        let rig = try ScannerRig()
        let daemon = try rig.start()
        try rig.waitForFirstPoll(daemon)
        try rig.tiny.loadFeeder(4)
        try rig.press(daemon, expectingBatches: 1)
        let statuses = { daemon.notify.messages.filter { $0.hasPrefix("STATUS=") } }
        let what = ": profile adf on tiny:0 (button scan)"
        #expect(statuses().contains("STATUS=scanning\(what)"), "\(statuses())")
        for page in 1...4 {
            #expect(statuses().contains { $0.hasPrefix("STATUS=scanning page \(page): ") && $0.hasSuffix(what) }, "\(statuses())")
        }
        // Once the batch is in, systemd hears of that, not of a scan still running.
        #expect(eventually { statuses().last?.contains("last: scan-") == true },
                "statuses: \(statuses().suffix(4)); \(rig.seen(daemon))")
        #expect(daemon.stop() == 0)
    }

    @Test func aPressWithAnEmptyFeederEndsAsIdle() throws {
        let rig = try ScannerRig()
        let daemon = try rig.start()
        try rig.waitForFirstPoll(daemon)
        try rig.tiny.press("scan")
        defer { try? rig.tiny.release("scan") }
        try #require(eventually(timeout: 30) { daemon.log.contains("the document feeder is empty; nothing scanned") },
                     "\(rig.seen(daemon))")
        let statuses = { daemon.notify.messages.filter { $0.hasPrefix("STATUS=") } }
        #expect(eventually { statuses().contains("STATUS=scanning: profile adf on tiny:0 (button scan)") }, "\(statuses())")
        // The scan is over: systemd must not go on hearing that it runs.
        #expect(eventually { statuses().last?.hasPrefix("STATUS=watching") == true }, "statuses: \(statuses().suffix(4))")
        #expect(!FileManager.default.fileExists(atPath: rig.target))
        #expect(rig.spool.isEmpty, "\(rig.spool)")
        #expect(daemon.stop() == 0)
    }

    @Test func aKilledAgentIsRestarted() throws {
        let rig = try ScannerRig()
        let daemon = try rig.start()
        try rig.waitForFirstPoll(daemon)
        let agents = rig.agents()
        try #require(agents.count == 1, "one scanner agent: \(agents)")
        kill(agents[0], SIGKILL)
        try #require(eventually(timeout: 30) {
            daemon.log.contains("pdftrapper: scanner agent killed by signal 9; restarting it in 1 s")
        }, "\(rig.seen(daemon))")
        try #require(eventually(timeout: 30) { rig.agents().contains { $0 != agents[0] } }, "\(rig.seen(daemon))")
        let closes = rig.closes
        try #require(eventually(timeout: 30) { rig.closes > closes }, "the new agent polls: \(rig.seen(daemon))")
        try rig.tiny.loadFeeder(2)
        try rig.press(daemon, expectingBatches: 1)
        #expect(try rig.bars() == [1, 2])
        #expect(daemon.stop() == 0)
    }

    /// The config edited on disk (Letter pages become A4) but not reloaded: a scanner agent started
    /// again meanwhile scans with the config the daemon runs, which it reads from the daemon, not
    /// from the file; after SIGHUP both use the new one.
    @Test func aRestartedAgentScansWithTheDaemonsConfigNotTheFileOnDisk() throws {
        let rig = try ScannerRig()
        let daemon = try rig.start()
        try rig.waitForFirstPoll(daemon)
        let edited = try String(contentsOfFile: rig.configPath, encoding: .utf8).replacingOccurrences(of: "\"Letter\"", with: "\"A4\"")
        try rig.scratch.write("config.toml", edited)
        let agents = rig.agents()
        try #require(agents.count == 1, "one scanner agent: \(agents)")
        kill(agents[0], SIGKILL)
        try #require(eventually(timeout: 30) { rig.agents().contains { $0 != agents[0] } }, "\(rig.seen(daemon))")
        let closes = rig.closes
        try #require(eventually(timeout: 30) { rig.closes > closes }, "the new agent polls: \(rig.seen(daemon))")
        try rig.tiny.loadFeeder(1)
        try rig.press(daemon, expectingBatches: 1)
        let first = try rig.pageWidths()
        // Letter is 612 points wide, A4 595 (75 dpi pixels round them a little).
        #expect(first.count == 1 && (first[0] - 612).magnitude < 2, "Letter, as the daemon runs: \(first)")

        daemon.signal(SIGHUP)
        #expect(eventually { daemon.log.contains("reloaded") }, "\(rig.seen(daemon))")
        try rig.tiny.loadFeeder(1)
        try rig.press(daemon, expectingBatches: 2)
        let widths = try rig.pageWidths()
        #expect(widths.count == 2 && (widths[1] - 595).magnitude < 2, "A4 once reloaded: \(widths)")
        #expect(daemon.stop() == 0)
    }

    // MARK: Crashes and stops

    @Test func aBatchSpooledBeforeACrashGoesInOnceAtStart() throws {
        let rig = try ScannerRig()
        let crashing = try rig.start(environment: ["PDFTRAPPER_CRASH_AT": "scan-spooled"])
        try rig.waitForFirstPoll(crashing)
        try rig.tiny.loadFeeder(3)
        try rig.tiny.press("scan")
        try #require(eventually(timeout: 30) { !crashing.process.isRunning }, "\(rig.seen(crashing))")
        try rig.tiny.release("scan")
        #expect(crashing.process.terminationReason == .uncaughtSignal && crashing.process.terminationStatus == SIGKILL)
        #expect(!FileManager.default.fileExists(atPath: rig.target), "no revision before the crash")
        try #require(rig.spool.count == 1, "the whole batch waits in the spool: \(rig.spool)")
        let manifest = try String(contentsOfFile: rig.spoolFolder + "/" + rig.spool[0] + "/batch.json", encoding: .utf8)
        #expect(manifest.contains("\"complete\" : true"), "\(manifest)")
        try rig.waitForOrphanedAgents()

        let daemon = try rig.start()
        try #require(eventually(timeout: 30) { rig.batchLines(daemon).count == 1 }, "\(rig.seen(daemon))")
        #expect(try rig.bars() == [1, 2, 3])
        #expect(try rig.history().count == 1)
        #expect(rig.spool == [])
        sleep(1)
        #expect(rig.batchLines(daemon).count == 1, "\(rig.seen(daemon))")
        #expect(daemon.stop() == 0)
        try PDFReaders.requireAllAgree(rig.target, pages: 3)
    }

    @Test func aBatchCommittedBeforeACrashIsNotAddedTwice() throws {
        let rig = try ScannerRig()
        let crashing = try rig.start(environment: ["PDFTRAPPER_CRASH_AT": "scan-committed"])
        try rig.waitForFirstPoll(crashing)
        try rig.tiny.loadFeeder(3)
        try rig.tiny.press("scan")
        try #require(eventually(timeout: 30) { !crashing.process.isRunning }, "\(rig.seen(crashing))")
        try rig.tiny.release("scan")
        #expect(crashing.process.terminationReason == .uncaughtSignal && crashing.process.terminationStatus == SIGKILL)
        #expect(try rig.history().count == 1, "the revision was durable before the crash")
        #expect(rig.spool.count == 1, "and the batch still in the spool: \(rig.spool)")
        try rig.waitForOrphanedAgents()

        let daemon = try rig.start()
        try #require(eventually(timeout: 30) { daemon.log.contains("already in \(rig.target); not added again") },
                     "\(rig.seen(daemon))")
        #expect(rig.spool == [])
        #expect(try rig.history().count == 1)
        #expect(try rig.bars() == [1, 2, 3])
        #expect(daemon.stop() == 0)
        try PDFReaders.requireAllAgree(rig.target, pages: 3)
    }

    @Test func aStopMidBatchQuarantinesItWholeAtTheNextStart() throws {
        // Large pages, so that the stop comes while sheets are still in the feeder.
        let rig = try ScannerRig(resolution: 600)
        let daemon = try rig.start()
        try rig.waitForFirstPoll(daemon)
        try rig.tiny.loadFeeder(20)
        try rig.tiny.press("scan")
        try #require(eventually(timeout: 30) { rig.tiny.log.contains { $0.hasPrefix("start page=1 ") } }, "\(rig.seen(daemon))")
        #expect(daemon.stop(timeout: 60) == 0, "\(rig.seen(daemon))")
        try rig.tiny.release("scan")
        #expect(rig.tiny.feederCount > 0, "the stop came after the last sheet: \(rig.seen(daemon))")
        let stopped = daemon.log.split(separator: "\n").first { $0.contains("): stopped after ") }
        let pages = stopped.flatMap { Int($0.split(separator: "stopped after ")[1].prefix { $0.isNumber }) }
        try #require(pages != nil, "the agent said where it stopped: \(rig.seen(daemon))")
        #expect(!FileManager.default.fileExists(atPath: rig.target))

        let next = try rig.start()
        try #require(eventually(timeout: 30) { next.log.contains(": quarantined: the scan stopped before the feeder was empty") },
                     "\(rig.seen(next))")
        #expect(next.stop() == 0)
        #expect(rig.spool == [])
        #expect(!FileManager.default.fileExists(atPath: rig.target), "none of a cut-short batch's pages in the target")
        let quarantine = rig.scratch.path + "/quarantine"
        let folders = try FileManager.default.contentsOfDirectory(atPath: quarantine)
        try #require(folders.count == 1 && folders[0].hasPrefix("scan-"), "\(folders)")
        let files = try FileManager.default.contentsOfDirectory(atPath: quarantine + "/" + folders[0]).sorted()
        let images = files.filter { $0.hasSuffix(".jpg") }
        #expect(images.count == pages!, "\(files)")
        #expect(images.allSatisfy { files.contains($0 + ".why.txt") }, "\(files)")
        let note = try String(contentsOfFile: quarantine + "/" + folders[0] + "/" + images[0] + ".why.txt", encoding: .utf8)
        #expect(note.contains("the scan stopped before the feeder was empty (\(pages!) page"), "\(note)")
    }
}

/// A scratch folder with the tiny scanner and a config binding its buttons to profile `adf`
/// (ADF, gray, 75 dpi, Letter), polled every 100 ms.
private final class ScannerRig {
    let scratch: Scratch
    let tiny: TinySane
    let configPath: String

    static let busy = "scanner tiny:0: busy (another program is using it)"

    init(buttons: [String: String] = ["scan": "adf"], keepOpen: Bool = false, busyBackoff: String = "1s",
         resolution: Int = 75, profileTarget: String? = "Scans.pdf", rules: String = "", profileKeys: String = "") throws {
        scratch = try Scratch()
        tiny = try TinySane.make()
        configPath = scratch.path + "/config.toml"
        let bindings = buttons.sorted { $0.key < $1.key }.map { "\($0.key) = \"\($0.value)\"" }.joined(separator: "\n")
        try scratch.write("config.toml", """
            [daemon]
            state_dir = "state"
            [library]
            root = "library"
            [inbox]
            path = "inbox"
            settle = "200ms"

            \(rules)

            [[scanner]]
            device = "tiny:0"
            poll_ms = 100
            keep_open = \(keepOpen)
            busy_backoff = "\(busyBackoff)"
            [scanner.buttons]
            \(bindings)

            [profile.adf]
            source = "adf"
            mode = "gray"
            resolution = \(resolution)
            page_size = "Letter"
            \(profileTarget.map { "target = \"\($0)\"" } ?? "")
            \(profileKeys)

            """)
    }

    var target: String { scratch.path + "/library/Scans.pdf" }
    var spoolFolder: String { scratch.path + "/state/scans" }
    var spool: [String] { ((try? FileManager.default.contentsOfDirectory(atPath: spoolFolder)) ?? []).sorted() }

    func start(environment: [String: String] = [:]) throws -> DaemonProcess {
        try DaemonProcess(config: configPath, in: scratch.url, environment: tiny.environment.merging(environment) { $1 })
    }

    /// What a failing wait saw: the daemon's log and the end of tiny's.
    func seen(_ daemon: DaemonProcess) -> String {
        "daemon log:\n\(daemon.log)\ntiny log (last 12): \(tiny.log.suffix(12))"
    }

    var closes: Int { tiny.log.filter { $0 == "close" }.count }

    /// The agent's first poll only reads the buttons as they are; a press must come after it.
    func waitForFirstPoll(_ daemon: DaemonProcess) throws {
        try #require(eventually(timeout: 30) { closes > 0 }, "the agent never polled: \(seen(daemon))")
    }

    /// Waits until the agent has read the buttons again (after a release, say).
    func waitForPolls(_ daemon: DaemonProcess, _ count: Int = 2) throws {
        let before = closes
        try #require(eventually(timeout: 30) { closes >= before + count }, "no poll: \(seen(daemon))")
    }

    /// Holds `button` down until the daemon has taken batch number `number`, then lets go.
    func press(_ daemon: DaemonProcess, _ button: String = "scan", expectingBatches number: Int) throws {
        try tiny.press(button)
        defer { try? tiny.release(button) }
        try #require(eventually(timeout: 30) { batchLines(daemon).count >= number }, "no batch \(number): \(seen(daemon))")
        try #require(batchLines(daemon).count == number, "\(seen(daemon))")
    }

    /// The daemon's `scan-ID: N pages into TARGET` lines.
    func batchLines(_ daemon: DaemonProcess) -> [String] {
        daemon.log.split(separator: "\n").map(String.init).filter {
            $0.contains(": scan-") && ($0.contains(" pages into ") || $0.contains(" page into "))
        }
    }

    func count(_ text: String, in daemon: DaemonProcess) -> Int {
        daemon.log.components(separatedBy: text).count - 1
    }

    func history(_ path: String? = nil) throws -> [String] {
        let run = try Binary.run(["history", path ?? target])
        guard run.status == 0 else { return ["history exited \(run.status): \(run.stderr)"] }
        return run.stdout.split(separator: "\n").map(String.init)
    }

    /// The tiny page mark of every page, read from pdftoppm's rendering.
    func bars(_ path: String? = nil) throws -> [Int] {
        let file = path ?? target
        return try (1...PDFReaders.pdfinfoPages(file)).map { TinySane.bars(in: try PNMImage(PDFReaders.renderPPM(file, page: $0))) }
    }

    /// Every page's width in points, from pdfinfo.
    func pageWidths() throws -> [Double] {
        let pages = try PDFReaders.pdfinfoPages(target)
        let text = try PDFReaders.succeeded("pdfinfo", ["-f", "1", "-l", "\(pages)", target]).text
        return text.split(separator: "\n").filter { $0.hasPrefix("Page ") && $0.contains(" size: ") }.compactMap {
            Double($0.split(separator: " size: ")[1].split(separator: " ")[0])
        }
    }

    /// Takes the device like another program; a poll may have it for a moment, so a few tries.
    func holdWithinAFewTries() throws -> DeviceHolder {
        for _ in 0..<20 {
            if let holder = try? tiny.hold() { return holder }
            usleep(30_000)
        }
        return try tiny.hold()
    }

    /// The running scanner agents for this config (zombies have no command line).
    func agents() -> [pid_t] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return names.compactMap { name in
            guard let pid = pid_t(name),
                  let data = FileManager.default.contents(atPath: "/proc/\(name)/cmdline") else { return nil }
            let arguments = data.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
            return arguments.dropFirst().starts(with: ["scanner-agent", "--config", configPath]) ? pid : nil
        }
    }

    /// An agent whose daemon was killed ends at its next word to it; the next daemon starts its own.
    func waitForOrphanedAgents() throws {
        try #require(eventually(timeout: 30) { agents().isEmpty }, "agents left: \(agents())")
    }
}

/// Counts opens of one file (inotify IN_OPEN) from its creation on. Closes are watched too: the
/// kernel merges an event into an identical one still unread at the queue's end, so opens alone
/// would count as one. Its instance is opened and closed through InotifyInstances, as every other
/// in this process is: an inotify session started meanwhile in another test finds its own
/// descriptor by the difference, which this one must not join.
private final class LockOpenCounter {
    private let descriptor: Int32

    init(_ path: String) throws {
        descriptor = InotifyInstances.open(flags: Int32(IN_NONBLOCK | IN_CLOEXEC))
        guard descriptor >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        guard inotify_add_watch(descriptor, path, UInt32(IN_OPEN | IN_CLOSE)) >= 0 else {
            let code = errno
            InotifyInstances.close(descriptor)
            throw POSIXError(POSIXErrorCode(rawValue: code) ?? .EIO)
        }
    }

    deinit { InotifyInstances.close(descriptor) }

    /// The opens since the last call.
    func count() throws -> Int {
        var opens = 0
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let length = read(descriptor, &buffer, buffer.count)
            if length < 0 && errno == EAGAIN { return opens }
            guard length > 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
            var offset = 0
            while offset + 16 <= length {
                let mask = buffer[offset + 4..<offset + 8].reversed().reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
                let nameLength = buffer[offset + 12..<offset + 16].reversed().reduce(0) { $0 << 8 | Int($1) }
                if mask & UInt32(IN_OPEN) != 0 { opens += 1 }
                offset += 16 + nameLength
            }
        }
    }
}
