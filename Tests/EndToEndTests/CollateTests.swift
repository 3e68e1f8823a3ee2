import Foundation
import TestSupport
import Testing

/// `collate = "double-sided"` through the real daemon: a front pass and a back pass (last page
/// first) become one document; counts that differ keep both as they are; a lone front goes in
/// when its window closes. Pages are told apart by their widths (N·100 points).
@Suite struct CollateTests {
    /// A scratch folder whose config has one double-sided rule into Letters.pdf.
    func config(window: String) throws -> Scratch {
        let scratch = try Scratch()
        try scratch.write("config.toml", TestConfig.folders() + """
            [[rule]]
            name = "duplex"
            target = "Letters.pdf"
            collate = "double-sided"
            collate_window = "\(window)"
            one_sided = ["*-single.*"]

            """)
        return scratch
    }

    func world(window: String) throws -> (Scratch, DaemonProcess) {
        let scratch = try config(window: window)
        try FileManager.default.createDirectory(atPath: scratch.path + "/inbox", withIntermediateDirectories: true)
        let daemon = try DaemonProcess(config: scratch.path + "/config.toml", in: scratch.url)
        #expect(daemon.notify.wait(for: "READY=1"), "log: \(daemon.log)")
        return (scratch, daemon)
    }

    /// A multi-page TIFF whose pages are `widths` points wide (72 dpi), dropped into the inbox.
    /// A TIFF of white pages `widths` points wide (the widths tell pages apart), in the scratch folder.
    func tiff(_ scratch: Scratch, _ name: String, widths: [Int]) throws {
        _ = try Python.run("""
            import sys
            from PIL import Image
            widths = [int(w) for w in sys.argv[2].split(",")]
            pages = [Image.new("L", (w, 60), 255) for w in widths]
            pages[0].save(sys.argv[1], save_all=True, append_images=pages[1:], dpi=(72, 72))
            """, [scratch.path + "/" + name, widths.map(String.init).joined(separator: ",")])
    }

    func drop(_ scratch: Scratch, _ name: String, widths: [Int]) throws {
        try tiff(scratch, name, widths: widths)
        try FileManager.default.moveItem(atPath: scratch.path + "/" + name, toPath: scratch.path + "/inbox/" + name)
    }

    func widths(_ scratch: Scratch) throws -> [Int] {
        try Python.run("""
            import sys, pypdf
            print(" ".join(str(round(float(p.mediabox.width))) for p in pypdf.PdfReader(sys.argv[1]).pages))
            """, [scratch.path + "/library/Letters.pdf"]).split(separator: " ").compactMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
    }

    var target: (Scratch) -> String { { $0.path + "/library/Letters.pdf" } }

    @Test func aFrontAndABackPassBecomeOneDocumentInReadingOrder() throws {
        let (scratch, daemon) = try world(window: "30m")
        try drop(scratch, "front.tiff", widths: [100, 300, 500])
        #expect(eventually { daemon.log.contains("front.tiff: held") }, "\(daemon.log)")
        #expect(!FileManager.default.fileExists(atPath: target(scratch)), "the front waits for its back")
        // The stack turned over: the back of the last sheet comes first.
        try drop(scratch, "back.tiff", widths: [600, 400, 200])
        #expect(eventually { FileManager.default.fileExists(atPath: target(scratch)) }, "\(daemon.log)")
        #expect(try widths(scratch) == [100, 200, 300, 400, 500, 600])
        try PDFReaders.requireAllAgree(target(scratch), pages: 6)
        let history = try Binary.run(["history", "library/Letters.pdf"], in: scratch.url)
        #expect(history.stdout.split(separator: "\n").count == 1, "one revision: \(history.stdout)")
        #expect(history.stdout.contains("front.tiff") && history.stdout.contains("back.tiff"), "\(history.stdout)")
        #expect(eventually { FileManager.default.fileExists(atPath: scratch.path + "/archive") }, "both archived")
        #expect(daemon.stop() == 0)
    }

    /// `pdftrapper ingest --config`: the second input the rule takes is the first one's back pass.
    @Test func ingestCollatesTheNextInputOfTheRule() throws {
        let scratch = try config(window: "30m")
        for (name, widths) in [("front.tiff", [100, 300]), ("back.tiff", [400, 200]), ("odd.tiff", [700])] {
            try tiff(scratch, name, widths: widths)
        }
        let run = try Binary.run(["ingest", "--config", "config.toml", "front.tiff", "back.tiff", "odd.tiff"], in: scratch.url)
        #expect(run.status == 0, "\(run)")
        #expect(try widths(scratch) == [100, 200, 300, 400, 700])
        #expect(run.stderr.contains("odd.tiff: no back pass follows it for rule duplex; it goes in alone"), "\(run.stderr)")
        let history = try Binary.run(["history", "library/Letters.pdf"], in: scratch.url).stdout
        #expect(history.split(separator: "\n").count == 2, "the pair as one revision, the odd one as another: \(history)")
    }

    @Test func onTheCommandLinePassesOfDifferentLengthsGoInAsTheyAreAndItSaysSo() throws {
        let scratch = try config(window: "30m")
        for (name, widths) in [("front.tiff", [100, 300]), ("back.tiff", [600, 400, 200])] {
            try tiff(scratch, name, widths: widths)
        }
        let run = try Binary.run(["ingest", "--config", "config.toml", "front.tiff", "back.tiff"], in: scratch.url)
        #expect(run.status == 0, "\(run)")
        #expect(try widths(scratch) == [100, 300, 600, 400, 200])
        #expect(run.stderr.contains("not collated: ") && run.stderr.contains("front.tiff has 2 pages and ")
                && run.stderr.contains("back.tiff 3; both went in as they are"), "\(run.stderr)")
    }

    @Test func passesOfDifferentLengthsGoInAsTheyAre() throws {
        let (scratch, daemon) = try world(window: "30m")
        try drop(scratch, "front.tiff", widths: [100, 300])
        #expect(eventually { daemon.log.contains("front.tiff: held") }, "\(daemon.log)")
        try drop(scratch, "back.tiff", widths: [600, 400, 200])
        #expect(eventually { FileManager.default.fileExists(atPath: target(scratch)) }, "\(daemon.log)")
        #expect(try widths(scratch) == [100, 300, 600, 400, 200])
        #expect(eventually { daemon.log.contains("front.tiff has 2 pages and back.tiff 3; both went in as they are") },
                "\(daemon.log)")
        #expect(daemon.stop() == 0)
    }

    @Test func aFrontWithoutABackGoesInWhenItsWindowCloses() throws {
        let (scratch, daemon) = try world(window: "1s")
        try drop(scratch, "front.tiff", widths: [100, 300])
        #expect(eventually { FileManager.default.fileExists(atPath: target(scratch)) }, "\(daemon.log)")
        #expect(try widths(scratch) == [100, 300])
        #expect(eventually { daemon.log.contains("no back pass came within 1s") }, "\(daemon.log)")
        #expect(daemon.stop() == 0)
    }

    @Test func aHeldFrontSurvivesARestart() throws {
        var (scratch, daemon) = try world(window: "30m")
        try drop(scratch, "front.tiff", widths: [100, 300])
        #expect(eventually { daemon.log.contains("front.tiff: held") }, "\(daemon.log)")
        daemon.signal(SIGKILL)
        _ = daemon.stop()
        daemon = try DaemonProcess(config: scratch.path + "/config.toml", in: scratch.url)
        #expect(daemon.notify.wait(for: "READY=1"), "log: \(daemon.log)")
        #expect(!FileManager.default.fileExists(atPath: target(scratch)), "still waiting, not taken alone on recovery")
        try drop(scratch, "back.tiff", widths: [400, 200])
        #expect(eventually { FileManager.default.fileExists(atPath: target(scratch)) }, "\(daemon.log)")
        #expect(try widths(scratch) == [100, 200, 300, 400])
        #expect(daemon.stop() == 0)
    }

    /// Two one-page letters saved as one-sided in a row stay two documents, each in a revision of
    /// its own; neither is held or interleaved.
    @Test func oneSidedLettersGoInAloneAndAreNotPaired() throws {
        let (scratch, daemon) = try world(window: "30m")
        try drop(scratch, "bill-single.tiff", widths: [100])
        #expect(eventually { daemon.log.contains("bill-single.tiff: 1 page into") }, "\(daemon.log)")
        try drop(scratch, "note-single.tiff", widths: [200])
        #expect(eventually { daemon.log.contains("note-single.tiff: 1 page into") }, "\(daemon.log)")
        #expect(!daemon.log.contains("held"), "\(daemon.log)")
        #expect(try widths(scratch) == [100, 200])
        let history = try Binary.run(["history", "library/Letters.pdf"], in: scratch.url).stdout
        #expect(history.split(separator: "\n").count == 2, "two revisions: \(history)")
        // Outside the inbox, explain judges a file as if dropped at its top.
        for name in ["x-single.tiff", "x.tiff"] { try TestImages.make(scratch.path + "/" + name, width: 100) }
        let explained = try Binary.run(["explain", "--config", "config.toml", "x-single.tiff", "x.tiff"], in: scratch.url)
        #expect(explained.stdout.contains("collate:  one-sided") && explained.stdout.contains("collate:  double-sided: held"),
                "\(explained.stdout)\(explained.stderr)")
        #expect(daemon.stop() == 0)
    }
}
