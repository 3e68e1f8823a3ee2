import Foundation
import TestSupport
import Testing

/// Undo gives back the exact earlier bytes, redo the exact later ones, across processes; both refuse
/// when another program has changed the file.
@Suite struct UndoRedoTests {
    func run(_ scratch: Scratch, _ arguments: [String]) throws -> Run {
        try Binary.run(arguments + ["--state-dir", scratch.path + "/state"], in: scratch.url)
    }

    func bytes(_ scratch: Scratch, _ name: String = "T.pdf") throws -> Data {
        try Data(contentsOf: scratch.url.appendingPathComponent(name))
    }

    @Test func undoAndRedoAreExactAcrossProcesses() throws {
        let scratch = try Scratch()
        try TestImages.make(scratch.path + "/a.jpg")
        try TestImages.make(scratch.path + "/b.png", mode: "L")
        #expect(try run(scratch, ["ingest", "--to", "T.pdf", "a.jpg"]).status == 0)
        let one = try bytes(scratch)
        #expect(try run(scratch, ["ingest", "--to", "T.pdf", "b.png"]).status == 0)
        let two = try bytes(scratch)
        #expect(try run(scratch, ["ingest", "--to", "T.pdf", "--prepend", "a.jpg"]).status == 0)
        let three = try bytes(scratch)

        let undo = try run(scratch, ["undo", "T.pdf", "--steps", "2"])
        #expect(undo.status == 0, "stderr: \(undo.stderr)")
        #expect(undo.stdout.split(separator: "\n").count == 2)
        #expect(try bytes(scratch) == one)
        try PDFReaders.requireAllAgree(scratch.path + "/T.pdf", pages: 1)

        #expect(try run(scratch, ["redo", "T.pdf"]).status == 0)
        #expect(try bytes(scratch) == two)
        #expect(try run(scratch, ["redo", "T.pdf"]).status == 0)
        #expect(try bytes(scratch) == three)
        try PDFReaders.requireAllAgree(scratch.path + "/T.pdf", pages: 3)
        let nothing = try run(scratch, ["redo", "T.pdf"])
        #expect(nothing.status == 65)
        #expect(nothing.stderr.contains("nothing to redo"))
    }

    @Test func aNewRevisionClearsRedo() throws {
        let scratch = try Scratch()
        try TestImages.make(scratch.path + "/a.jpg")
        #expect(try run(scratch, ["ingest", "--to", "T.pdf", "a.jpg"]).status == 0)
        #expect(try run(scratch, ["ingest", "--to", "T.pdf", "a.jpg"]).status == 0)
        #expect(try run(scratch, ["undo", "T.pdf"]).status == 0)
        #expect(try run(scratch, ["ingest", "--to", "T.pdf", "a.jpg", "a.jpg"]).status == 0)
        #expect(try run(scratch, ["redo", "T.pdf"]).stderr.contains("nothing to redo"))
    }

    @Test func refusesWhenAnotherProgramChangedTheFile() throws {
        let scratch = try Scratch()
        try TestImages.make(scratch.path + "/a.jpg")
        #expect(try run(scratch, ["ingest", "--to", "T.pdf", "a.jpg"]).status == 0)
        #expect(try run(scratch, ["ingest", "--to", "T.pdf", "a.jpg"]).status == 0)
        // qpdf rewrites the file whole, as any editor would.
        _ = try PDFReaders.run("qpdf", [scratch.path + "/T.pdf", "--replace-input"])
        let rewritten = try bytes(scratch)
        let undo = try run(scratch, ["undo", "T.pdf"])
        #expect(undo.status == 65)
        #expect(undo.stderr.contains("changed by another program since PDFTrapper's last revision"))
        #expect(try bytes(scratch) == rewritten)
    }

    @Test func undoStopsAtTheForeignOriginal() throws {
        let scratch = try Scratch()
        let source = try ProducedCorpus.file("ghostscript-outline.pdf")
        try FileManager.default.copyItem(atPath: source, toPath: scratch.path + "/T.pdf")
        try TestImages.make(scratch.path + "/a.jpg")
        #expect(try run(scratch, ["ingest", "--to", "T.pdf", "a.jpg"]).status == 0)
        #expect(try run(scratch, ["ingest", "--to", "T.pdf", "a.jpg"]).status == 0)
        let history = try Binary.run(["history", "T.pdf"], in: scratch.url)
        let lines = history.stdout.split(separator: "\n")
        #expect(lines.count == 3)
        #expect(lines.first?.contains("foreign  written by another program") == true)
        #expect(lines.last?.contains("ingest") == true && lines.last?.contains("a.jpg (sha256 ") == true)

        let undo = try run(scratch, ["undo", "T.pdf", "--steps", "3"])
        #expect(undo.status == 65)
        #expect(undo.stderr.contains("undid 2 of 3"))
        #expect(undo.stderr.contains("written by another program"))
        #expect(FileManager.default.contentsEqual(atPath: source, andPath: scratch.path + "/T.pdf"))
    }
}

@Suite struct CompactTests {
    @Test func compactionSquashesHistoryAndKeepsThePages() throws {
        let scratch = try Scratch()
        try TestImages.make(scratch.path + "/a.jpg")
        let state = ["--state-dir", scratch.path + "/state"]
        for _ in 0..<4 {
            #expect(try Binary.run(["ingest", "--to", "T.pdf", "a.jpg"] + state, in: scratch.url).status == 0)
        }
        let target = scratch.path + "/T.pdf"
        let renders = try (1...4).map { try PDFReaders.renderPPM(target, page: $0) }
        #expect(try Binary.run(["undo", "T.pdf"] + state, in: scratch.url).status == 0)
        let before = try Data(contentsOf: URL(fileURLWithPath: target)).count

        let uncompacted = try Data(contentsOf: URL(fileURLWithPath: target))
        let run = try Binary.run(["compact", "T.pdf"] + state, in: scratch.url)
        #expect(run.status == 0, "stderr: \(run.stderr)")
        #expect(run.stdout.contains("pdftrapper undo` puts it back"))
        try PDFReaders.requireAllAgree(target, pages: 3)
        #expect(try Data(contentsOf: URL(fileURLWithPath: target)).count < before, "the undone revision's bytes are gone")
        #expect(!(try isLinearized(target)))
        let compacted = try Data(contentsOf: URL(fileURLWithPath: target))

        #expect(try Binary.run(["compact", "T.pdf", "--linearize"] + state, in: scratch.url).status == 0)
        #expect(try isLinearized(target))
        try PDFReaders.requireAllAgree(target, pages: 3)
        for page in 1...3 { #expect(try PDFReaders.renderPPM(target, page: page) == renders[page - 1]) }
        let history = try Binary.run(["history", "T.pdf"], in: scratch.url)
        #expect(history.stdout.split(separator: "\n").count == 1)
        #expect(!history.stdout.contains("ingest"), "the rewrite must not carry a stale record: \(history.stdout)")
        #expect(try Binary.run(["redo", "T.pdf"] + state, in: scratch.url).stderr.contains("nothing to redo"))

        // Each rewrite kept the file it replaced: undo gives each back, byte for byte, and redo the rewrites.
        let linearized = try Data(contentsOf: URL(fileURLWithPath: target))
        #expect(try Binary.run(["undo", "T.pdf"] + state, in: scratch.url).status == 0)
        #expect(try Data(contentsOf: URL(fileURLWithPath: target)) == compacted)
        #expect(try Binary.run(["undo", "T.pdf"] + state, in: scratch.url).status == 0)
        #expect(try Data(contentsOf: URL(fileURLWithPath: target)) == uncompacted)
        #expect(try Binary.run(["undo", "T.pdf"] + state, in: scratch.url).status == 0, "the ingests before it undo as before")
        try PDFReaders.requireAllAgree(target, pages: 2)
        for _ in 0..<3 { #expect(try Binary.run(["redo", "T.pdf"] + state, in: scratch.url).status == 0) }
        #expect(try Data(contentsOf: URL(fileURLWithPath: target)) == linearized)
        try PDFReaders.requireAllAgree(target, pages: 3)
    }

    func isLinearized(_ path: String) throws -> Bool {
        try Data(contentsOf: URL(fileURLWithPath: path)).prefix(1024).range(of: Data("/Linearized".utf8)) != nil
    }
}
