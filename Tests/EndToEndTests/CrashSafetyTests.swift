import Foundation
import TestSupport
import Testing

/// The process is killed (SIGKILL, like a power cut) at every named step of a commit; whatever the
/// step, after recovery the target is byte for byte the old revision or the new one.
@Suite struct CrashSafetyTests {
    static let steps = ["after-journal", "mid-append", "before-sync", "after-sync", "after-state"]

    func run(_ scratch: Scratch, _ arguments: [String], crashAt step: String? = nil) throws -> Run {
        try Binary.run(arguments + ["--state-dir", scratch.path + "/state"],
                       environment: step.map { ["PDFTRAPPER_CRASH_AT": $0] } ?? [:], in: scratch.url)
    }

    @Test(arguments: steps)
    func anAppendKilledAtAnyStepEndsOldOrNew(step: String) throws {
        let scratch = try Scratch()
        try TestImages.make(scratch.path + "/a.jpg")
        try TestImages.make(scratch.path + "/b.png", mode: "L")
        #expect(try run(scratch, ["ingest", "--to", "T.pdf", "a.jpg"]).status == 0)
        let old = try Data(contentsOf: scratch.url.appendingPathComponent("T.pdf"))

        let killed = try run(scratch, ["ingest", "--to", "T.pdf", "b.png"], crashAt: step)
        #expect(killed.status == 9, "expected SIGKILL at \(step), got \(killed.status): \(killed.stderr)")
        #expect(try run(scratch, ["recover"]).status == 0)
        let after = try Data(contentsOf: scratch.url.appendingPathComponent("T.pdf"))
        if step == "after-state" {
            #expect(after.starts(with: old) && after.count > old.count, "the finished revision stays")
            try PDFReaders.requireAllAgree(scratch.path + "/T.pdf", pages: 2)
        } else {
            #expect(after == old, "rolled back to the old revision byte for byte")
        }
        // And the next ingest works as if nothing happened.
        #expect(try run(scratch, ["ingest", "--to", "T.pdf", "b.png"]).status == 0)
        try PDFReaders.requireAllAgree(scratch.path + "/T.pdf", pages: step == "after-state" ? 3 : 2)
    }

    @Test(arguments: steps + ["after-rename"])
    func aNewTargetKilledAtAnyStepIsWholeOrAbsent(step: String) throws {
        let scratch = try Scratch()
        try TestImages.make(scratch.path + "/a.jpg")
        let killed = try run(scratch, ["ingest", "--to", "New.pdf", "a.jpg"], crashAt: step)
        #expect(killed.status == 9)
        #expect(try run(scratch, ["recover"]).status == 0)
        let target = scratch.path + "/New.pdf"
        if step == "after-state" {
            try PDFReaders.requireAllAgree(target, pages: 1)
        } else {
            #expect(!FileManager.default.fileExists(atPath: target), "no half-made target may stay")
        }
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: scratch.path).filter { $0.contains("pdftrapper-") }
        #expect(leftovers.isEmpty, "temporary files left: \(leftovers)")
    }

    /// A power cut that kept only the first sectors of a revision: the old trailer is still within
    /// the last 2 KB a reader looks in, so the torn bytes after it must not pass for another
    /// program's (found by `make powerloss`: 512 bytes kept of a markup revision were left in place).
    @Test(arguments: [1, 512, 1500])
    func aRevisionTornAfterItsFirstBytesIsRolledBack(kept: Int) throws {
        let scratch = try Scratch()
        try TestImages.make(scratch.path + "/a.jpg")
        try TestImages.make(scratch.path + "/b.png", mode: "L")
        #expect(try run(scratch, ["ingest", "--to", "T.pdf", "a.jpg"]).status == 0)
        let target = scratch.url.appendingPathComponent("T.pdf")
        let old = try Data(contentsOf: target)
        #expect(try run(scratch, ["ingest", "--to", "T.pdf", "b.png"], crashAt: "after-sync").status == 9)
        let whole = try Data(contentsOf: target)
        try whole.prefix(old.count + kept).write(to: target)
        let recovered = try run(scratch, ["recover"])
        #expect(recovered.status == 0, "\(recovered.stderr)")
        #expect(try Data(contentsOf: target) == old, "rolled back to the old revision byte for byte: \(recovered.stderr)")
    }

    @Test func recoveryHappensBeforeTheNextCommandToo() throws {
        let scratch = try Scratch()
        try TestImages.make(scratch.path + "/a.jpg")
        #expect(try run(scratch, ["ingest", "--to", "T.pdf", "a.jpg"]).status == 0)
        let old = try Data(contentsOf: scratch.url.appendingPathComponent("T.pdf"))
        #expect(try run(scratch, ["ingest", "--to", "T.pdf", "a.jpg"], crashAt: "before-sync").status == 9)
        let next = try run(scratch, ["undo", "T.pdf"])
        #expect(next.stderr.contains("rolled back an unfinished revision"))
        #expect(next.status == 65, "only the creating revision is left, so undo refuses: \(next.stderr)")
        #expect(try Data(contentsOf: scratch.url.appendingPathComponent("T.pdf")) == old)
    }
}
