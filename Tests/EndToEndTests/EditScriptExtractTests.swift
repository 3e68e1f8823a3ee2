import Foundation
import TestSupport
import Testing

/// `extract`, the config's purge default, and scripts for different targets side by side.
extension EditScriptTests {
    @Test func extractCopiesPagesIntoANewFileThatRendersTheSame() throws {
        let scratch = try world(pages: 4)
        let target = scratch.path + "/library/T.pdf"
        let run = try apply(scratch, """
            target = "T.pdf"
            [[edit]]
            op = "rotate"
            pages = "3"
            degrees = 90
            [[edit]]
            op = "ink"
            page = 2
            strokes = [[[10, 10], [150, 40]]]
            [[edit]]
            op = "extract"
            pages = "2-3"
            into = "parts/{stem}-{seq}.pdf"
            [[edit]]
            op = "delete"
            pages = "2-3"
            """)
        #expect(run.status == 0, "\(run.stderr)")
        let part = scratch.path + "/library/parts/T-1.pdf"
        try PDFReaders.requireAllAgree(part, pages: 2)
        try PDFReaders.qpdfCheck(part)
        // The pages as they stood when extracted: page 3 turned, page 2 with its ink.
        #expect(try pages(part) == ["200/0", "300/90"])
        #expect(try pages(target) == ["100/0", "400/0"], "split off: the target lost them afterwards")
        let annotations = try Binary.run(["annotations", "library/parts/T-1.pdf"], in: scratch.url)
        #expect(annotations.stdout.contains("Ink"), "\(annotations.stdout)")
        // Page 3 of the original and page 2 of the part are the same picture.
        #expect(try Binary.run(["undo", "library/T.pdf"], in: scratch.url).status == 0)
        _ = try apply(scratch, "target = \"T.pdf\"\n[[edit]]\nop = \"rotate\"\npages = \"3\"\ndegrees = 90\n", name: "again.toml")
        #expect(try PDFReaders.renderPPM(part, page: 2) == PDFReaders.renderPPM(target, page: 3))
        let history = try Binary.run(["history", "library/parts/T-1.pdf"], in: scratch.url)
        #expect(history.stdout.contains("extract pages 2-3 of T.pdf"), "\(history.stdout)")
        // A second extract with the same template takes the next number; without {seq} an existing file is refused.
        #expect(try apply(scratch, "target = \"T.pdf\"\n[[edit]]\nop = \"extract\"\npages = \"1\"\ninto = \"parts/{stem}-{seq}.pdf\"\n").status == 0)
        #expect(FileManager.default.fileExists(atPath: scratch.path + "/library/parts/T-2.pdf"))
        let before = try bytes(scratch)
        let taken = try apply(scratch, "target = \"T.pdf\"\n[[edit]]\nop = \"rotate\"\ndegrees = 90\n[[edit]]\nop = \"extract\"\npages = \"1\"\ninto = \"parts/T-1.pdf\"\n")
        #expect(taken.status == 65)
        #expect(taken.stderr.contains("exists already"), "\(taken.stderr)")
        #expect(try bytes(scratch) == before, "the whole script is refused")
    }

    @Test func theConfigCanPurgeByDefault() throws {
        let scratch = try world(pages: 3)
        try scratch.write("config.toml", Self.config + "[edits]\npurge = true\n")
        let marker = Data("/Width 200".utf8)
        let run = try apply(scratch, "target = \"T.pdf\"\n[[edit]]\nop = \"delete\"\npages = \"2\"\n")
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("purge"), "\(run.stdout)")
        let uncompressed = scratch.path + "/plain.pdf"
        try PDFReaders.qpdfUncompressedObjectStreams(scratch.path + "/library/T.pdf", to: uncompressed)
        #expect(try Data(contentsOf: URL(fileURLWithPath: uncompressed)).range(of: marker) == nil)
        // A script may still keep its history.
        let keep = try apply(scratch, "target = \"T.pdf\"\npurge = false\n[[edit]]\nop = \"rotate\"\ndegrees = 90\n")
        #expect(keep.status == 0 && !keep.stdout.contains("purge"), "\(keep.stdout)")
    }

    /// Two targets of two pages, T.pdf and U.pdf, T's lock held by another program (`holder`, until
    /// it is killed) as a long inbox job would hold it, and a daemon running on them.
    func busyT() throws -> (scratch: Scratch, holder: Process, daemon: DaemonProcess) {
        let scratch = try world(pages: 2)
        try FileManager.default.copyItem(atPath: scratch.path + "/library/T.pdf", toPath: scratch.path + "/library/U.pdf")
        // T touched once, so that its lock file exists
        #expect(try apply(scratch, "target = \"T.pdf\"\n[[edit]]\nop = \"rotate\"\ndegrees = 90\n").status == 0)
        let locks = scratch.path + "/library/.pdftrapper/locks"
        let lockFiles = try FileManager.default.contentsOfDirectory(atPath: locks).filter { $0.hasSuffix(".lock") }
        try #require(lockFiles.count == 1, "\(lockFiles)")
        let holder = Process()
        holder.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        holder.arguments = ["-c", "import fcntl, sys, time\nf = open(sys.argv[1], 'a')\nfcntl.flock(f, fcntl.LOCK_EX)\nprint('held', flush=True)\ntime.sleep(30)",
                            locks + "/" + lockFiles[0]]
        let held = Pipe()
        holder.standardOutput = held
        try holder.run()
        #expect(held.fileHandleForReading.availableData.starts(with: Data("held".utf8)))
        // The scripts waiting on the lock wait inside their workers, under limits.edit_seconds: far
        // more than the waits here, so that a loaded machine cannot make them overrun (that is
        // EditLimitsTests').
        try scratch.write("config.toml", EditScriptTests.config + "[limits]\nedit_seconds = \"600s\"\n")
        let daemon = try DaemonProcess(config: scratch.path + "/config.toml", in: scratch.url)
        #expect(daemon.notify.wait(for: "READY=1"), "log: \(daemon.log)")
        return (scratch, holder, daemon)
    }

    @Test func scriptsForAnotherTargetDoNotWaitBehindABusyOne() throws {
        let (scratch, holder, daemon) = try busyT()
        defer { if holder.isRunning { kill(holder.processIdentifier, SIGKILL) } }
        try scratch.write("edits/1-t.toml", "target = \"T.pdf\"\n[[edit]]\nop = \"metadata\"\ntitle = \"first\"\n")
        try scratch.write("edits/2-t.toml", "target = \"T.pdf\"\n[[edit]]\nop = \"metadata\"\ntitle = \"second\"\n")
        try scratch.write("edits/3-u.toml", "target = \"U.pdf\"\n[[edit]]\nop = \"rotate\"\ndegrees = 180\n")
        #expect(eventually { FileManager.default.fileExists(atPath: scratch.path + "/edits/done/3-u.toml.report.json") },
                "U's script is not held up by T's: \(daemon.log)")
        #expect(!FileManager.default.fileExists(atPath: scratch.path + "/edits/done/1-t.toml"), "T's scripts wait for its lock")
        kill(holder.processIdentifier, SIGKILL)
        holder.waitUntilExit()
        #expect(eventually { FileManager.default.fileExists(atPath: scratch.path + "/edits/done/2-t.toml.report.json") },
                "\(daemon.log)")
        if !FileManager.default.fileExists(atPath: scratch.path + "/edits/done/1-t.toml.report.json") {
            // Order broken: say whether the first script comes late or not at all, and where it is.
            let late = eventually(timeout: 5) { FileManager.default.fileExists(atPath: scratch.path + "/edits/done/1-t.toml.report.json") }
            let below = FileManager.default.subpaths(atPath: scratch.path + "/edits") ?? []
            Issue.record("1-t.toml's report is not there when 2-t.toml's is (\(late ? "it came later" : "nor 5 s later")); edits/: \(below); \(daemon.log)")
        }
        let info = try PDFReaders.run("pdfinfo", [scratch.path + "/library/T.pdf"])
        #expect(info.text.contains("second"), "T's scripts in the order they arrived: \(info.text)")
        #expect(try pages(scratch.path + "/library/U.pdf") == ["100/180", "200/180"])
        #expect(daemon.stop() == 0)
    }

    /// A script saved under the name of one that is claimed and still waiting for its target (the
    /// same `cp rotate.toml edits/` twice) is a script of its own: applied after the first, not
    /// left in the edits folder unseen.
    @Test func aScriptSavedAgainUnderTheNameOfOneWaitingIsAppliedAfterIt() throws {
        let (scratch, holder, daemon) = try busyT()
        defer { if holder.isRunning { kill(holder.processIdentifier, SIGKILL) } }
        let edits = scratch.path + "/edits"
        try scratch.write("edits/title.toml", "target = \"T.pdf\"\n[[edit]]\nop = \"metadata\"\ntitle = \"first\"\n")
        try #require(eventually { !FileManager.default.fileExists(atPath: edits + "/title.toml") }, "claimed: \(daemon.log)")
        try scratch.write("edits/title.toml", "target = \"T.pdf\"\n[[edit]]\nop = \"metadata\"\ntitle = \"second\"\n")
        // Files are handed over in the order they were saved: once U's script, saved after, is done,
        // the second title.toml has been handed over too, while the first still waits.
        try scratch.write("edits/u.toml", "target = \"U.pdf\"\n[[edit]]\nop = \"rotate\"\ndegrees = 180\n")
        #expect(eventually { FileManager.default.fileExists(atPath: edits + "/done/u.toml.report.json") }, "\(daemon.log)")
        kill(holder.processIdentifier, SIGKILL)
        holder.waitUntilExit()
        let reports = { (try? FileManager.default.contentsOfDirectory(atPath: edits + "/done")) ?? [] }
        #expect(eventually { Set(reports()).isSuperset(of: ["title.toml.report.json", "title-2.toml.report.json"]) },
                "both scripts named title.toml applied, the second filed as title-2.toml: \(reports()); left: \((try? FileManager.default.contentsOfDirectory(atPath: edits)) ?? []); \(daemon.log)")
        #expect(!FileManager.default.fileExists(atPath: edits + "/title.toml"), "nothing left behind in the edits folder")
        let info = try PDFReaders.run("pdfinfo", [scratch.path + "/library/T.pdf"])
        #expect(info.text.contains("second"), "the one saved last applied last: \(info.text)")
        #expect(daemon.stop() == 0)
    }
}
