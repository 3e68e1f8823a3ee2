import Foundation
import Glibc
import TestSupport
import Testing

/// What a newcomer tripped over, set up from the README and the man pages alone.
@Suite struct NewcomerTests {
    static let config = TestConfig.folders() + """
        [[rule]]
        name = "all"
        target = "All.pdf"

        """

    /// Two daemons on one config: the second is refused, naming the first, and `status` asks the
    /// state folder's lock, so it says the first runs whatever the second did.
    @Test func oneDaemonPerStateFolder() throws {
        let scratch = try Scratch()
        try scratch.write("config.toml", Self.config)
        let first = try DaemonProcess(config: scratch.path + "/config.toml", in: scratch.url)
        #expect(first.notify.wait(for: "READY=1"), "log: \(first.log)")
        let pid = first.process.processIdentifier
        let second = try DaemonProcess(config: scratch.path + "/config.toml", in: scratch.url)
        #expect(eventually(timeout: 10) { !second.process.isRunning }, "a second daemon ran beside the first: \(second.log)")
        #expect(second.process.terminationStatus == 75)
        #expect(second.log.contains("another pdftrapper daemon (pid \(pid)) runs on the state folder \(scratch.path)/state"),
                "\(second.log)")
        let status = try Binary.run(["status", "--config", "config.toml"], in: scratch.url)
        #expect(status.status == 0 && status.stdout.contains("running (pid \(pid)"), "\(status.stdout)")
        // The first still serves.
        try TestImages.make(scratch.path + "/inbox/a.png", width: 100)
        #expect(eventually { (try? PDFReaders.pdfinfoPages(scratch.path + "/library/All.pdf")) == 1 }, "log: \(first.log)")
        first.signal(SIGKILL)
        first.process.waitUntilExit()
        // Killed, it wrote nothing; the lock went with it.
        let after = try Binary.run(["status", "--config", "config.toml"], in: scratch.url)
        #expect(after.status == 3 && after.stdout.contains("not running"), "\(after.stdout)")
    }

    /// A target's journal and undo tails live beside the library: `undo` without a config and
    /// `redo` with one find the same ones, walking up from the target as git finds `.git`.
    @Test func undoAndRedoFindTheTargetsStateWhateverConfigIsNamed() throws {
        let scratch = try Scratch()
        try scratch.write("config.toml", Self.config)
        try TestImages.make(scratch.path + "/a.png", width: 100)
        try TestImages.make(scratch.path + "/b.png", width: 200)
        for input in ["a.png", "b.png"] {
            #expect(try Binary.run(["ingest", "--config", "config.toml", input], in: scratch.url).status == 0)
        }
        try FileManager.default.createDirectory(atPath: scratch.path + "/elsewhere", withIntermediateDirectories: true)
        let elsewhere = scratch.url.appendingPathComponent("elsewhere")
        let environment = ["XDG_STATE_HOME": scratch.path + "/xdg", "HOME": scratch.path + "/home"]
        let undone = try Binary.run(["undo", scratch.path + "/library/All.pdf"], environment: environment, in: elsewhere)
        #expect(undone.status == 0, "\(undone.stderr)")
        #expect(try PDFReaders.pdfinfoPages(scratch.path + "/library/All.pdf") == 1)
        #expect(!FileManager.default.fileExists(atPath: scratch.path + "/xdg/pdftrapper"), "no second state folder")
        let redone = try Binary.run(["redo", "--config", "config.toml", "library/All.pdf"], in: scratch.url)
        #expect(redone.status == 0, "\(redone.stdout)\(redone.stderr)")
        try PDFReaders.requireAllAgree(scratch.path + "/library/All.pdf", pages: 2)
    }

    /// Every edit is checked against the document before any is applied, and each that fails is
    /// reported: by `apply`, and in failed/NAME.error.txt by the daemon.
    @Test func anEditScriptReportsEveryProblemAgainstTheDocument() throws {
        let scratch = try Scratch()
        try scratch.write("config.toml", Self.config)
        try TestImages.make(scratch.path + "/a.png", width: 100)
        #expect(try Binary.run(["ingest", "--config", "config.toml", "a.png"], in: scratch.url).status == 0)
        let before = try Data(contentsOf: URL(fileURLWithPath: scratch.path + "/library/All.pdf"))
        let script = """
            target = "All.pdf"
            [[edit]]
            op = "delete"
            pages = "4"
            [[edit]]
            op = "rotate"
            pages = "1"
            degrees = 90
            [[edit]]
            op = "bookmark"
            title = "Nowhere"
            page = 7
            [[edit]]
            op = "highlight"
            page = 3
            rects = [[10, 10, 50, 20]]

            """
        try scratch.write("three.toml", script)
        let run = try Binary.run(["apply", "--config", "config.toml", "three.toml"], in: scratch.url)
        #expect(run.status == 65)
        for problem in ["edit 1 (delete): ", "edit 3 (bookmark): page 7 of a 1-page document", "edit 4 (highlight): "] {
            #expect(run.stderr.contains(problem), "\(problem) is not reported: \(run.stderr)")
        }
        #expect(!run.stderr.contains("edit 2 ("), "the good edit is no problem: \(run.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: scratch.path + "/library/All.pdf")) == before)

        let daemon = try DaemonProcess(config: scratch.path + "/config.toml", in: scratch.url)
        #expect(daemon.notify.wait(for: "READY=1"), "log: \(daemon.log)")
        try scratch.write("edits/three.toml", script)
        let note = scratch.path + "/edits/failed/three.toml.error.txt"
        #expect(eventually { FileManager.default.fileExists(atPath: note) }, "log: \(daemon.log)")
        let lines = try String(contentsOfFile: note, encoding: .utf8).split(separator: "\n")
        #expect(lines.count == 3 && lines[1].contains("edit 3 (bookmark)"), "\(lines)")
        #expect(daemon.stop() == 0)
    }

    /// Every unknown placeholder is reported, each with its hint; an unknown option gets a
    /// did-you-mean as an unknown command does; `help help` is help.
    @Test func wordsThatAreWrongAreEachNamedWithAHint() throws {
        let scratch = try Scratch()
        try scratch.write("c.toml", TestConfig.folders() + """
            [[rule]]
            name = "a"
            target = "{mon}/{filename}-{yeer}.pdf"

            """)
        let checked = try Binary.run(["check-config", "c.toml"], in: scratch.url)
        #expect(checked.status == 78)
        for problem in ["c.toml:10:11: rule[1].target: unknown placeholder {mon} (did you mean {month}?)",
                        "c.toml:10:17: rule[1].target: unknown placeholder {filename} (did you mean {name}?)",
                        "c.toml:10:28: rule[1].target: unknown placeholder {yeer} (did you mean {year}?)"] {
            #expect(checked.stderr.contains(problem), "\(problem) missing from: \(checked.stderr)")
        }
        let option = try Binary.run(["history", "--thumbnail", "x.pdf"], in: scratch.url)
        #expect(option.status == 64)
        #expect(option.stderr.contains("unknown option --thumbnail (did you mean \"--thumbnails\"?)"), "\(option.stderr)")
        let help = try Binary.run(["help", "help"], in: scratch.url)
        #expect(help.status == 0 && help.stdout.contains("usage"), "\(help.stdout)\(help.stderr)")
    }

    /// A running daemon whose config has a double-sided rule for inbox/letters (a 10m window) and a
    /// rule "all" into All.pdf for the rest, with `allExtra` (one line) added to the latter.
    func lettersAndAll(allExtra: String = "") throws -> (Scratch, DaemonProcess) {
        let scratch = try Scratch()
        try scratch.write("config.toml", TestConfig.folders() + """
            [[rule]]
            name = "letters"
            target = "Letters.pdf"
            collate = "double-sided"
            collate_window = "10m"
            [rule.match]
            folder = "letters"

            [[rule]]
            name = "all"
            target = "All.pdf"
            \(allExtra)

            """)
        try FileManager.default.createDirectory(atPath: scratch.path + "/inbox/letters", withIntermediateDirectories: true)
        let daemon = try DaemonProcess(config: scratch.path + "/config.toml", in: scratch.url)
        #expect(daemon.notify.wait(for: "READY=1"), "log: \(daemon.log)")
        return (scratch, daemon)
    }

    /// Messages say each thing once and as the config wrote it.
    @Test func messagesSayEachThingOnceAndAsWritten() throws {
        let (scratch, daemon) = try lettersAndAll()
        _ = try scratch.write("inbox/oops.jpg", "not a picture")
        #expect(eventually { daemon.log.contains("oops.jpg: quarantined: ") }, "log: \(daemon.log)")
        #expect(!daemon.log.contains("quarantined: oops.jpg:"), "the name twice: \(daemon.log)")
        try TestImages.make(scratch.path + "/inbox/letters/fronts.png", width: 100)
        #expect(eventually { daemon.log.contains("fronts.png: held: front pass; waiting up to 10m for the back pass") },
                "log: \(daemon.log)")
        try TestImages.make(scratch.path + "/inbox/letters/backs.png", width: 200)
        #expect(eventually { daemon.log.contains("letters/backs.png: 1 page into") }, "log: \(daemon.log)")
        #expect(daemon.log.contains("(double-sided: the back pass of letters/fronts.png)"), "log: \(daemon.log)")
        #expect(daemon.stop() == 0)

        // A revision that took pages away says so with its sign.
        try TestImages.make(scratch.path + "/a.png", width: 100)
        try TestImages.make(scratch.path + "/b.png", width: 200)
        try TestImages.make(scratch.path + "/c.png", width: 300)
        #expect(try Binary.run(["ingest", "--config", "config.toml", "--to", "library/All.pdf", "a.png", "b.png", "c.png"],
                               in: scratch.url).status == 0)
        try scratch.write("cut.toml", "target = \"All.pdf\"\n[[edit]]\nop = \"delete\"\npages = \"1-2\"\n")
        #expect(try Binary.run(["apply", "--config", "config.toml", "cut.toml"], in: scratch.url).status == 0)
        let history = try Binary.run(["history", "library/All.pdf"], in: scratch.url).stdout
        #expect(history.contains("-2 pages") && !history.contains("+-"), "\(history)")

        // Text markup on a page with no text layer says so, and what to do.
        try scratch.write("mark.toml", "target = \"All.pdf\"\n[[edit]]\nop = \"highlight\"\npage = 1\ntext = \"whiteboard\"\n")
        let marked = try Binary.run(["apply", "--config", "config.toml", "mark.toml"], in: scratch.url)
        #expect(marked.status == 65)
        #expect(marked.stderr.contains("page 1 has no text to find \"whiteboard\" in") && marked.stderr.contains("pdftrapper ocr"),
                "\(marked.stderr)")

        // An unknown key in a rule that has a name is placed by that name.
        try scratch.write("typo.toml", TestConfig.folders() + "[[rule]]\nname = \"letters\"\ntarget = \"a.pdf\"\ntraget = \"b.pdf\"\n")
        let typo = try Binary.run(["check-config", "typo.toml"], in: scratch.url)
        #expect(typo.stderr.contains("unknown key \"traget\" in [rule \"letters\"] (did you mean \"target\"?)"), "\(typo.stderr)")
    }

    /// `root = "~Documents"` is a folder of that name beside the config: allowed, but said.
    @Test func aTildeWithoutASlashIsWarnedAbout() throws {
        let scratch = try Scratch()
        try scratch.write("c.toml", "[library]\nroot = \"~Documents\"\n[inbox]\npath = \"in\"\n[[rule]]\nname = \"a\"\ntarget = \"x.pdf\"\n")
        let run = try Binary.run(["check-config", "c.toml"], in: scratch.url)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.contains("c.toml:2:8: warning: library.root = \"~Documents\" is a folder of that name beside the config")
                && run.stderr.contains("write \"~/Documents\""), "\(run.stderr)")
    }

    /// `status` lists edit scripts and OCR among the last jobs, shows a held front pass with the time
    /// left and the OCR still to do, and says all of it as JSON with --json.
    @Test func statusSaysWhatWaitsAndWhatWasDone() throws {
        let (scratch, daemon) = try lettersAndAll(allExtra: "ocr = [\"eng\"]")
        try TestImages.make(scratch.path + "/inbox/letters/fronts.png", width: 100)
        try TestImages.make(scratch.path + "/inbox/page.png", width: 200)
        #expect(eventually { (try? PDFReaders.pdfinfoPages(scratch.path + "/library/All.pdf")) == 1 }, "log: \(daemon.log)")
        try scratch.write("edits/turn.toml", "target = \"All.pdf\"\n[[edit]]\nop = \"rotate\"\npages = \"1\"\ndegrees = 90\n")
        #expect(eventually { daemon.log.contains("edit script turn.toml: rotate applied") }, "log: \(daemon.log)")
        #expect(eventually(timeout: 60) { daemon.log.contains("OCR of 1 page") }, "log: \(daemon.log)")
        let text = try Binary.run(["status", "--config", "config.toml"], in: scratch.url).stdout
        #expect(text.contains("held: letters/fronts.png: a front pass; its back pass is awaited 9m"), "\(text)")
        #expect(text.contains("edit  edit script turn.toml: rotate applied to"), "\(text)")
        #expect(text.contains("ocr  ") && text.contains("OCR of 1 page"), "\(text)")
        let json = try Binary.run(["status", "--config", "config.toml", "--json"], in: scratch.url)
        #expect(json.status == 0)
        let report = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any]
        #expect(report?["running"] as? Bool == true && report?["pid"] as? Int == Int(daemon.process.processIdentifier), "\(json.stdout)")
        let status = report?["status"] as? [String: Any]
        #expect((status?["held"] as? [String: Any])?["letters/fronts.png"] != nil, "\(json.stdout)")
        let results = (status?["recent"] as? [[String: Any]])?.compactMap { $0["result"] as? String } ?? []
        #expect(results.contains("edit") && results.contains("ocr") && results.contains("held"), "\(results)")
        #expect(daemon.stop() == 0)
    }

    /// `explain --profile` says where a scan with that profile goes, and every explanation names the
    /// page steps and OCR, and whether a file would join an open batch.
    @Test func explainTellsScansPageStepsAndBatches() throws {
        let scratch = try Scratch()
        try scratch.write("config.toml", TestConfig.folders() + """
            [[rule]]
            name = "receipts"
            target = "Receipts.pdf"
            mode = "batch"
            batch_window = "5m"
            deskew = true
            ocr = ["eng"]

            [profile.adf]
            source = "adf"
            mode = "gray"
            resolution = 200
            target = "Feeder/{date}.pdf"

            """)
        try TestImages.make(scratch.path + "/r.png", width: 100)
        let input = try Binary.run(["explain", "--config", "config.toml", "r.png"], in: scratch.url)
        #expect(input.stdout.contains("steps:    deskew (skew over 0.3°); OCR (eng) after the capture"), "\(input.stdout)")
        #expect(input.stdout.contains("batch:    opens a batch: files this rule takes within 5m of each other join it"),
                "\(input.stdout)")
        let scan = try Binary.run(["explain", "--config", "config.toml", "--profile", "adf"], in: scratch.url)
        #expect(scan.status == 0, "\(scan.stderr)")
        #expect(scan.stdout.contains("rule:     none: the profile adf's own target") && scan.stdout.contains("/library/Feeder/"),
                "\(scan.stdout)")
        #expect(scan.stdout.contains("scan:     adf, gray, 200 dpi"), "\(scan.stdout)")
        let typo = try Binary.run(["explain", "--config", "config.toml", "--profile", "adff"], in: scratch.url)
        #expect(typo.status == 64 && typo.stderr.contains("did you mean \"adf\"?"), "\(typo.stderr)")
    }

    /// `explain` says where a file would go while the daemon has a batch open: into the batch's file,
    /// which is where the daemon then puts it.
    @Test func explainShowsTheBatchAFileWouldJoin() throws {
        let scratch = try Scratch()
        try scratch.write("config.toml", TestConfig.folders() + """
            [[rule]]
            name = "receipts"
            target = "Receipts-{seq}.pdf"
            mode = "batch"
            batch_window = "10m"

            """)
        let daemon = try DaemonProcess(config: scratch.path + "/config.toml", in: scratch.url)
        #expect(daemon.notify.wait(for: "READY=1"), "log: \(daemon.log)")
        try TestImages.make(scratch.path + "/first.png", width: 100)
        try TestImages.make(scratch.path + "/second.png", width: 120)
        let before = try Binary.run(["explain", "--config", "config.toml", "first.png"], in: scratch.url)
        #expect(before.stdout.contains("/library/Receipts-1.pdf (batch: a new file") && before.stdout.contains("opens a batch"),
                "\(before.stdout)")
        try FileManager.default.moveItem(atPath: scratch.path + "/first.png", toPath: scratch.path + "/inbox/first.png")
        #expect(eventually { daemon.log.contains("first.png: 1 page into") }, "log: \(daemon.log)")
        // Receipts-1.pdf exists now: without the batch, the next file would open Receipts-2.pdf.
        let joining = try Binary.run(["explain", "--config", "config.toml", "second.png"], in: scratch.url)
        #expect(joining.stdout.contains("/library/Receipts-1.pdf (batch: join the batch open in it)"), "\(joining.stdout)")
        #expect(joining.stdout.contains("batch:    joins the batch open for this rule: its last file came"), "\(joining.stdout)")
        try FileManager.default.moveItem(atPath: scratch.path + "/second.png", toPath: scratch.path + "/inbox/second.png")
        #expect(eventually { daemon.log.contains("second.png: 1 page into") }, "log: \(daemon.log)")
        #expect(daemon.stop() == 0)
        try PDFReaders.requireAllAgree(scratch.path + "/library/Receipts-1.pdf", pages: 2)
        #expect(!FileManager.default.fileExists(atPath: scratch.path + "/library/Receipts-2.pdf"))
    }

    /// A receipt of seven lines turned 2° is straightened; a page with no lines to go by says so.
    @Test func deskewFindsAFewLinesAndSaysWhenItCannot() throws {
        let scratch = try Scratch()
        try scratch.write("config.toml", TestConfig.folders() + "[[rule]]\nname = \"r\"\ntarget = \"R.pdf\"\ndeskew = true\n")
        _ = try Python.run("""
            import sys
            from PIL import Image, ImageDraw, ImageFont
            dpi, folder = 200, sys.argv[1]
            size = (int(80 / 25.4 * dpi), int(150 / 25.4 * dpi))
            receipt = Image.new("L", size, 255)
            draw = ImageDraw.Draw(receipt)
            font = ImageFont.load_default(size=28)
            for i, line in enumerate(["CORNER SHOP", "12/01/2026 14:02", "Milk 1L      1.29", "Bread        2.49",
                                      "Apples 1kg   3.10", "TOTAL        6.88", "Thank you!"]):
                draw.text((30, 60 + i * 60), line, fill=0, font=font)
            receipt.rotate(2, fillcolor=255).save(folder + "/receipt.png", dpi=(dpi, dpi))
            photo = Image.new("L", size, 255)
            ImageDraw.Draw(photo).ellipse([50, 50, size[0] - 50, size[1] - 50], fill=90)
            photo.save(folder + "/photo.png", dpi=(dpi, dpi))
            """, [scratch.path])
        let run = try Binary.run(["ingest", "--config", "config.toml", "receipt.png", "photo.png"], in: scratch.url)
        #expect(run.status == 0, "\(run.stderr)")
        let history = try Binary.run(["history", "library/R.pdf"], in: scratch.url).stdout
        let angle = history.firstMatch(of: /receipt\.png: deskewed by (-?\d+\.\d+)°/).flatMap { Double($0.1) }
        #expect(angle.map { abs($0 - 2) < 0.3 } == true, "the receipt's 2° found: \(history)")
        #expect(history.contains("photo.png: deskew: no reliable angle"), "\(history)")
    }

    /// OCR queued by a command's ingest is counted by `status`, from the queue itself.
    @Test func statusCountsTheOCRStillToDo() throws {
        let scratch = try Scratch()
        try scratch.write("config.toml", TestConfig.folders() + "[[rule]]\nname = \"all\"\ntarget = \"All.pdf\"\nocr = [\"eng\"]\n")
        try TestImages.make(scratch.path + "/a.png", width: 100)
        #expect(try Binary.run(["ingest", "--config", "config.toml", "a.png"], in: scratch.url).status == 0)
        let text = try Binary.run(["status", "--config", "config.toml"], in: scratch.url).stdout
        #expect(text.contains("OCR pending: 1 request"), "\(text)")
        let json = try Binary.run(["status", "--config", "config.toml", "--json"], in: scratch.url).stdout
        let report = try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any]
        #expect(report?["pendingOCR"] as? Int == 1 && report?["running"] as? Bool == false, "\(json)")
        #expect(try Binary.run(["ocr", "--queued", "--config", "config.toml"], in: scratch.url).status == 0)
        #expect(!(try Binary.run(["status", "--config", "config.toml"], in: scratch.url).stdout.contains("OCR pending")))
    }
}
