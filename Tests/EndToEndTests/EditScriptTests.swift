import Foundation
import Glibc
import TestSupport
import Testing

/// Edit scripts from outside: `pdftrapper apply` and the daemon's edits folder. Pages are told apart
/// by their widths (page N of the made target is 100·N pixels wide at 72 dpi, so N·100 points).
@Suite struct EditScriptTests {
    static let config = TestConfig.folders() + """
        [[rule]]
        name = "all"
        target = "All.pdf"

        """

    /// A library with `T.pdf` of `count` pages, widths 100, 200, ... points.
    func world(pages count: Int = 5) throws -> Scratch {
        let scratch = try Scratch()
        try scratch.write("config.toml", Self.config)
        try FileManager.default.createDirectory(atPath: scratch.path + "/library", withIntermediateDirectories: true)
        var images: [String] = []
        for n in 1...count {
            let image = scratch.path + "/p\(n).png"
            try TestImages.make(image, mode: "L", width: 100 * n, height: 50, options: "dpi=(72, 72)")
            images.append(image)
        }
        let made = try Binary.run(["ingest", "--config", "config.toml", "--to", "library/T.pdf"] + images, in: scratch.url)
        try #require(made.status == 0, "\(made.stderr)")
        return scratch
    }

    func apply(_ scratch: Scratch, _ script: String, name: String = "edit.toml") throws -> Run {
        try scratch.write(name, script)
        return try Binary.run(["apply", "--config", "config.toml", name], in: scratch.url)
    }

    /// Each page's width in points and its /Rotate, read by pypdf.
    func pages(_ path: String) throws -> [String] {
        let out = try Python.run("""
            import sys, pypdf
            for page in pypdf.PdfReader(sys.argv[1]).pages:
                print(f"{round(float(page.mediabox.width))}/{page.get('/Rotate', 0)}")
            """, [path])
        return out.split(separator: "\n").map(String.init)
    }

    func bytes(_ scratch: Scratch) throws -> Data { try Data(contentsOf: URL(fileURLWithPath: scratch.path + "/library/T.pdf")) }

    @Test func pageOperationsBecomeOneRevision() throws {
        let scratch = try world()
        let before = try bytes(scratch)
        let run = try apply(scratch, """
            target = "T.pdf"
            [[edit]]
            op = "rotate"
            pages = "1,3"
            degrees = 90
            [[edit]]
            op = "delete"
            pages = "2"
            [[edit]]
            op = "move"
            pages = "last"
            to = 1
            [[edit]]
            op = "duplicate"
            pages = "2"
            [[edit]]
            op = "insert-blank"
            after = 5
            size = [300, 50]
            [[edit]]
            op = "metadata"
            title = "Edited"
            """)
        #expect(run.status == 0, "\(run.stderr)")
        let target = scratch.path + "/library/T.pdf"
        // 1..5 → rotate 1,3 → delete 2 → [1r,3r,4,5] → move last first → [5,1r,3r,4] → duplicate 2 → [5,1r,1r,3r,4] → blank 300 after 5.
        #expect(try pages(target) == ["500/0", "100/90", "100/90", "300/90", "400/0", "300/0"])
        try PDFReaders.requireAllAgree(target, pages: 6)
        let after = try bytes(scratch)
        #expect(after.prefix(before.count) == before, "the old bytes stay as they were")
        let history = try Binary.run(["history", "library/T.pdf"], in: scratch.url)
        #expect(history.stdout.contains("edit"), "\(history.stdout)")
        let info = try PDFReaders.run("pdfinfo", [target])
        #expect(info.text.contains("Edited"), "\(info.text)")
    }

    @Test func undoAndRedoScriptsGiveBackTheExactBytes() throws {
        let scratch = try world(pages: 3)
        let before = try bytes(scratch)
        #expect(try apply(scratch, "target = \"T.pdf\"\n[[edit]]\nop = \"delete\"\npages = \"1\"\n").status == 0)
        let edited = try bytes(scratch)
        let undo = try apply(scratch, "target = \"T.pdf\"\n[[edit]]\nop = \"undo\"\n", name: "undo.toml")
        #expect(undo.status == 0, "\(undo.stderr)")
        #expect(try bytes(scratch) == before)
        let redo = try apply(scratch, "{\"target\": \"T.pdf\", \"edit\": [{\"op\": \"redo\"}]}", name: "redo.json")
        #expect(redo.status == 0, "\(redo.stderr)")
        #expect(try bytes(scratch) == edited)
    }

    @Test func aBadScriptLeavesTheTargetAsItWas() throws {
        let scratch = try world(pages: 3)
        let before = try bytes(scratch)
        let outOfRange = try apply(scratch, "target = \"T.pdf\"\n[[edit]]\nop = \"rotate\"\ndegrees = 90\n[[edit]]\nop = \"delete\"\npages = \"9\"\n")
        #expect(outOfRange.status == 65)
        #expect(outOfRange.stderr.contains("edit 2 (delete): page 9 of a 3-page document"), "\(outOfRange.stderr)")
        #expect(try bytes(scratch) == before)
        let typo = try apply(scratch, "target = \"T.pdf\"\n[[edit]]\nop = \"rotat\"\n")
        #expect(typo.status == 65)
        #expect(typo.stderr.contains("edit.toml:3:6:"), "\(typo.stderr)")
        #expect(typo.stderr.contains("did you mean \"rotate\""), "\(typo.stderr)")
        let outside = try apply(scratch, "target = \"../T.pdf\"\n[[edit]]\nop = \"rotate\"\ndegrees = 90\n")
        #expect(outside.status == 65, "\(outside.stderr)")
        let everything = try apply(scratch, "target = \"T.pdf\"\n[[edit]]\nop = \"delete\"\npages = \"all\"\n")
        #expect(everything.status == 65, "\(everything.stderr)")
        #expect(try bytes(scratch) == before)
    }

    @Test func aScriptWrittenAgainstAnOldRevisionIsRefused() throws {
        let scratch = try world(pages: 2)
        let base = try bytes(scratch).count
        #expect(try apply(scratch, "target = \"T.pdf\"\nbase_end = \(base)\n[[edit]]\nop = \"rotate\"\ndegrees = 90\n").status == 0)
        let now = try bytes(scratch)
        let stale = try apply(scratch, "target = \"T.pdf\"\nbase_revision = \(base)\n[[edit]]\nop = \"delete\"\npages = \"1\"\n")
        #expect(stale.status == 65)
        // base_revision, base_end's old name, is still read; a byte offset is called one.
        #expect(stale.stderr.contains("the target has changed since it ended at byte \(base)"), "\(stale.stderr)")
        #expect(try bytes(scratch) == now)
        let anyway = try apply(scratch, "target = \"T.pdf\"\nbase_revision = \(base)\non_conflict = \"apply\"\n[[edit]]\nop = \"delete\"\npages = \"1\"\n")
        #expect(anyway.status == 0, "\(anyway.stderr)")
        #expect(try pages(scratch.path + "/library/T.pdf") == ["200/90"])
    }

    @Test func theDaemonAppliesScriptsFromTheEditsFolderAndFilesThem() throws {
        let scratch = try world(pages: 3)
        let daemon = try DaemonProcess(config: scratch.path + "/config.toml", in: scratch.url)
        #expect(daemon.notify.wait(for: "READY=1"), "log: \(daemon.log)")
        let before = try bytes(scratch)
        try scratch.write("edits/bad.toml", "target = \"T.pdf\"\n[[edit]]\nop = \"delete\"\npages = \"7\"\n")
        try scratch.write("edits/sub/turn.json", #"{"target": "T.pdf", "edit": [{"op": "rotate", "pages": "2", "degrees": 180}]}"#)
        let done = scratch.path + "/edits/done/sub/turn.json"
        #expect(eventually { FileManager.default.fileExists(atPath: done + ".report.json") }, "log: \(daemon.log)")
        #expect(eventually { FileManager.default.fileExists(atPath: scratch.path + "/edits/failed/bad.toml.error.txt") },
                "log: \(daemon.log)")
        let error = try String(contentsOfFile: scratch.path + "/edits/failed/bad.toml.error.txt", encoding: .utf8)
        #expect(error.contains("edit 1 (delete): page 7 of a 3-page document"), "\(error)")
        let report = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: done + ".report.json"))) as? [String: Any]
        let after = try bytes(scratch)
        #expect(report?["end"] as? Int == after.count, "\(String(describing: report))")
        #expect(report?["operations"] as? [String] == ["rotate"])
        #expect(after.prefix(before.count) == before)
        #expect(try pages(scratch.path + "/library/T.pdf") == ["100/0", "200/180", "300/0"])
        #expect(eventually { daemon.log.contains("bad.toml: failed") }, "\(daemon.log)")
        #expect(daemon.stop() == 0)
    }
}

extension EditScriptTests {
    /// What a script does to a 2-page document, once: pages as "width/rotation" after it.
    struct OnceCase: Sendable, CustomTestStringConvertible {
        var name: String
        var script: String
        var after: [String]
        /// The script's modification time from now (a phone or share with a fast or slow clock).
        var clockSkew: TimeInterval
        /// Scripts applied first (`pdftrapper apply`), each one revision.
        var before: [String] = []
        var testDescription: String { name }
    }

    static let onceCases = [
        OnceCase(name: "rotate", script: "[[edit]]\nop = \"rotate\"\npages = \"1\"\ndegrees = 90\n",
                 after: ["100/90", "200/0"], clockSkew: 0),
        OnceCase(name: "insert a blank page, the script's clock a day ahead",
                 script: "[[edit]]\nop = \"insert-blank\"\nafter = 1\nsize = [300, 300]\n",
                 after: ["100/0", "300/0", "200/0"], clockSkew: 86_400),
        OnceCase(name: "undo, the script's clock an hour behind", script: "[[edit]]\nop = \"undo\"\n",
                 after: ["100/90", "200/0"], clockSkew: -3_600,
                 before: ["[[edit]]\nop = \"rotate\"\npages = \"1\"\ndegrees = 90\n",
                          "[[edit]]\nop = \"rotate\"\npages = \"2\"\ndegrees = 180\n"]),
    ]

    /// Killed after the script's change is durable but before the script is filed: the next run
    /// files it in done/ without applying it a second time (the page turns once, one blank page
    /// goes in, one revision is undone), whatever the script's modification time says: it is
    /// known by its claim, whose id the store keeps with the change.
    @Test(arguments: onceCases) func aScriptCutShortByACrashIsAppliedOnce(_ once: OnceCase) throws {
        let scratch = try world(pages: 2)
        for (n, script) in once.before.enumerated() {
            let applied = try apply(scratch, "target = \"T.pdf\"\n" + script, name: "before-\(n).toml")
            try #require(applied.status == 0, "\(applied.stderr)")
        }
        let killed = try DaemonProcess(config: scratch.path + "/config.toml", in: scratch.url,
                                       environment: ["PDFTRAPPER_CRASH_AT": "edit-committed"])
        #expect(killed.notify.wait(for: "READY=1"), "log: \(killed.log)")
        try scratch.write("once.toml", "target = \"T.pdf\"\n" + once.script)
        try FileManager.default.setAttributes([.modificationDate: Date().addingTimeInterval(once.clockSkew)],
                                              ofItemAtPath: scratch.path + "/once.toml")
        try FileManager.default.moveItem(atPath: scratch.path + "/once.toml", toPath: scratch.path + "/edits/once.toml")
        #expect(eventually { !killed.process.isRunning }, "\(killed.log)")
        #expect(killed.process.terminationStatus == SIGKILL)
        #expect(try pages(scratch.path + "/library/T.pdf") == once.after, "the change is in")
        #expect(!FileManager.default.fileExists(atPath: scratch.path + "/edits/once.toml"), "claimed, not left where it was")

        let daemon = try DaemonProcess(config: scratch.path + "/config.toml", in: scratch.url)
        #expect(daemon.notify.wait(for: "READY=1"), "log: \(daemon.log)")
        #expect(eventually { FileManager.default.fileExists(atPath: scratch.path + "/edits/done/once.toml.report.json") },
                "\(daemon.log)")
        #expect(try pages(scratch.path + "/library/T.pdf") == once.after, "applied once")
        #expect(eventually { daemon.log.contains("(applied before a restart)") }, "\(daemon.log)")
        #expect(daemon.stop() == 0)
    }

    /// The config file edited on disk but not reloaded: edit scripts still run with the config
    /// the daemon runs (its worker processes get it from the daemon, not from the file); after
    /// SIGHUP both use the new one.
    @Test func editWorkersRunWithTheDaemonsConfigNotTheFileOnDisk() throws {
        let scratch = try world(pages: 2)
        let daemon = try DaemonProcess(config: scratch.path + "/config.toml", in: scratch.url)
        #expect(daemon.notify.wait(for: "READY=1"), "log: \(daemon.log)")
        try scratch.write("config.toml", Self.config + "[limits]\nmax_pages_after_edit = 3\n")
        let insert = "target = \"T.pdf\"\n[[edit]]\nop = \"insert-blank\"\nafter = 1\nsize = [300, 300]\n"
        for name in ["first", "second"] {
            try scratch.write(name + ".toml", insert)
            try FileManager.default.moveItem(atPath: scratch.path + "/\(name).toml", toPath: scratch.path + "/edits/\(name).toml")
            #expect(eventually { FileManager.default.fileExists(atPath: scratch.path + "/edits/done/\(name).toml.report.json") },
                    "applied under the running config (no page limit of 3): \(daemon.log)")
        }
        #expect(try pages(scratch.path + "/library/T.pdf").count == 4)

        daemon.signal(SIGHUP)
        #expect(eventually { daemon.log.contains("reloaded") }, "log: \(daemon.log)")
        try scratch.write("third.toml", insert)
        try FileManager.default.moveItem(atPath: scratch.path + "/third.toml", toPath: scratch.path + "/edits/third.toml")
        #expect(eventually { FileManager.default.fileExists(atPath: scratch.path + "/edits/failed/third.toml.error.txt") },
                "refused under the reloaded config: \(daemon.log)")
        let reason = try String(contentsOfFile: scratch.path + "/edits/failed/third.toml.error.txt", encoding: .utf8)
        #expect(reason.contains("max_pages_after_edit"), "\(reason)")
        #expect(try pages(scratch.path + "/library/T.pdf").count == 4)
        #expect(daemon.stop() == 0)
    }

    @Test func purgeRewritesTheFileSoDeletedPagesAreGone() throws {
        let scratch = try world(pages: 3)
        // Page 2's image is the only 200-pixel-wide one: its bytes are findable by its /Width.
        let marker = Data("/Width 200".utf8)
        #expect(try bytes(scratch).range(of: marker) != nil)
        let kept = try apply(scratch, "target = \"T.pdf\"\n[[edit]]\nop = \"delete\"\npages = \"2\"\n")
        #expect(kept.status == 0, "\(kept.stderr)")
        #expect(try bytes(scratch).range(of: marker) != nil, "without purge the page stays in an earlier revision")
        #expect(try apply(scratch, "target = \"T.pdf\"\n[[edit]]\nop = \"undo\"\n", name: "u.toml").status == 0)
        let purged = try apply(scratch, "target = \"T.pdf\"\npurge = true\n[[edit]]\nop = \"delete\"\npages = \"2\"\n")
        #expect(purged.status == 0, "\(purged.stderr)")
        #expect(purged.stdout.contains("purge"), "\(purged.stdout)")
        try PDFReaders.requireAllAgree(scratch.path + "/library/T.pdf", pages: 2)
        #expect(try pages(scratch.path + "/library/T.pdf") == ["100/0", "300/0"])
        // qpdf compresses the rewritten objects, so look for the image by decompressing them all.
        let uncompressed = scratch.path + "/plain.pdf"
        try PDFReaders.qpdfUncompressedObjectStreams(scratch.path + "/library/T.pdf", to: uncompressed)
        #expect(try Data(contentsOf: URL(fileURLWithPath: uncompressed)).range(of: marker) == nil, "the deleted page's bytes are gone")
    }
}
