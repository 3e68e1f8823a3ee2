import Foundation
import TestSupport
import Testing

/// `pdftrapper ingest` on real files, checked as a user would: every reader opens the result, the
/// old bytes are untouched, old pages look the same, JPEG bytes go in as they are.
@Suite struct IngestTests {
    func ingest(_ scratch: Scratch, _ arguments: [String]) throws -> Run {
        try Binary.run(["ingest", "--state-dir", scratch.path + "/state"] + arguments, in: scratch.url)
    }

    /// A PDF input is hashed on another thread while its pages are copied: the history still names
    /// it by the digest `sha256sum` gives.
    @Test func aPDFInputIsNamedByItsRealDigest() throws {
        let scratch = try Scratch()
        try TestImages.make(scratch.path + "/a.jpg")
        #expect(try ingest(scratch, ["--to", "Source.pdf", "a.jpg", "a.jpg", "a.jpg"]).status == 0)
        #expect(try ingest(scratch, ["--to", "Target.pdf", "Source.pdf"]).status == 0)
        // history shows the first 12 hex digits.
        let digest = try PDFReaders.succeeded("sha256sum", [scratch.path + "/Source.pdf"]).text.prefix(12)
        let history = try Binary.run(["history", "Target.pdf"], in: scratch.url)
        #expect(history.stdout.contains("Source.pdf (sha256 \(digest))"), "\(history.stdout)")
        try PDFReaders.requireAllAgree(scratch.path + "/Target.pdf", pages: 3)
    }

    @Test func createsThenAppendsAndPrependsAsRevisions() throws {
        let scratch = try Scratch()
        try TestImages.make(scratch.path + "/a.jpg", options: "quality=90, dpi=(150, 150)")
        try TestImages.make(scratch.path + "/b.png", mode: "L", width: 200, height: 200, options: "dpi=(72, 72)")
        let target = scratch.path + "/Target.pdf"

        let first = try ingest(scratch, ["--to", "Target.pdf", "a.jpg"])
        #expect(first.status == 0, "stderr: \(first.stderr)")
        #expect(first.stdout.hasPrefix("\(target): created with 1 page"))
        try PDFReaders.requireAllAgree(target, pages: 1)
        // 300 x 400 pixels at 150 dpi is 144 x 192 points.
        #expect(try PDFReaders.succeeded("pdfinfo", [target]).text.contains(" 144 x 192 pts"))
        let jpeg = try Data(contentsOf: scratch.url.appendingPathComponent("a.jpg"))
        let before = try Data(contentsOf: URL(fileURLWithPath: target))
        #expect(before.range(of: jpeg) != nil, "the JPEG's bytes must be in the PDF unchanged")
        let firstPage = try PDFReaders.renderPPM(target, page: 1)

        let second = try ingest(scratch, ["--to", "Target.pdf", "b.png", "a.jpg"])
        #expect(second.status == 0, "stderr: \(second.stderr)")
        let after = try Data(contentsOf: URL(fileURLWithPath: target))
        #expect(after.starts(with: before), "an append must leave the old bytes as they were")
        try PDFReaders.requireAllAgree(target, pages: 3)
        #expect(try PDFReaders.renderPPM(target, page: 1) == firstPage)

        let third = try ingest(scratch, ["--to", "Target.pdf", "--prepend", "b.png"])
        #expect(third.status == 0, "stderr: \(third.stderr)")
        try PDFReaders.requireAllAgree(target, pages: 4)
        #expect(try PDFReaders.renderPPM(target, page: 2) == firstPage, "the old first page is now second")
        let sizes = try Python.run("""
            import sys, pypdf
            print(" ".join(str(round(float(p.mediabox.width))) for p in pypdf.PdfReader(sys.argv[1]).pages))
            """, [target])
        #expect(sizes == "200 144 200 144\n")
    }

    @Test func pdfInputsAreImportedWithTheirPages() throws {
        let scratch = try Scratch()
        let source = try ProducedCorpus.file("ghostscript-4-pages.pdf")
        let run = try ingest(scratch, ["--to", "Book.pdf", source, source])
        #expect(run.status == 0, "stderr: \(run.stderr)")
        let target = scratch.path + "/Book.pdf"
        try PDFReaders.requireAllAgree(target, pages: 8)
        for page in 1...4 {
            #expect(try PDFReaders.renderPPM(target, page: page) == PDFReaders.renderPPM(source, page: page))
            #expect(try PDFReaders.renderPPM(target, page: page + 4) == PDFReaders.renderPPM(source, page: page))
        }
    }

    @Test func aBadInputLeavesTheTargetUntouched() throws {
        let scratch = try Scratch()
        try TestImages.make(scratch.path + "/good.jpg")
        #expect(try ingest(scratch, ["--to", "T.pdf", "good.jpg"]).status == 0)
        let before = try Data(contentsOf: scratch.url.appendingPathComponent("T.pdf"))
        try scratch.write("notes.jpg", "just text, named like a photo")
        let jpeg = try Data(contentsOf: scratch.url.appendingPathComponent("good.jpg"))
        try scratch.write("cut.jpg", jpeg.prefix(jpeg.count / 2))

        for bad in ["notes.jpg", "cut.jpg"] {
            let run = try ingest(scratch, ["--to", "T.pdf", "good.jpg", bad])
            #expect(run.status == 65, "\(bad): \(run.stderr)")
            #expect(run.errorLines.count == 1, "one line: \(run.stderr)")
            #expect(run.stderr.hasPrefix("pdftrapper ingest: \(bad): "))
            #expect(try Data(contentsOf: scratch.url.appendingPathComponent("T.pdf")) == before)
        }
    }

    /// Encrypted with a user password, or with only an owner password (which any reader opens):
    /// either way an update would have to be encrypted too, which PDFTrapper does not write.
    @Test(arguments: ["qpdf-password.pdf", "qpdf-owner-password.pdf"])
    func anEncryptedTargetIsRefusedUntouched(name: String) throws {
        let scratch = try Scratch()
        let locked = try ProducedCorpus.file(name)
        try FileManager.default.copyItem(atPath: locked, toPath: scratch.path + "/Locked.pdf")
        try TestImages.make(scratch.path + "/a.jpg")
        let run = try ingest(scratch, ["--to", "Locked.pdf", "a.jpg"])
        #expect(run.status == 65)
        #expect(run.stderr.contains("encrypted"))
        #expect(FileManager.default.contentsEqual(atPath: locked, andPath: scratch.path + "/Locked.pdf"))
    }

    @Test func aDamagedTargetIsRepairedFirstAndTheLogSaysSo() throws {
        let scratch = try Scratch()
        let source = try ProducedCorpus.file("mutool-create-images.pdf")
        // startxref points into the middle of nowhere: the xref can only be rebuilt by scanning.
        var bytes = try Data(contentsOf: URL(fileURLWithPath: source))
        let marker = try #require(bytes.range(of: Data("startxref".utf8), options: .backwards))
        bytes.replaceSubrange(marker.upperBound..., with: Data("\n17\n%%EOF\n".utf8))
        try scratch.write("Damaged.pdf", bytes)
        try TestImages.make(scratch.path + "/a.jpg")
        let run = try ingest(scratch, ["--to", "Damaged.pdf", "a.jpg"])
        #expect(run.status == 0, "stderr: \(run.stderr)")
        #expect(run.stderr.contains("damaged; repaired by a full rewrite"))
        try PDFReaders.requireAllAgree(scratch.path + "/Damaged.pdf", pages: 2)
    }

    /// `--rule NAME`: that rule takes the inputs whatever its match says; an unknown name is a
    /// usage error that names the nearest rule.
    @Test func aNamedRuleTakesEveryInput() throws {
        let scratch = try Scratch()
        try scratch.write("config.toml", TestConfig.folders() + """
            [[rule]]
            name = "receipts"
            target = "Receipts.pdf"
            match = { folder = "receipts" }
            [[rule]]
            name = "everything"
            target = "Inbox.pdf"

            """)
        try TestImages.make(scratch.path + "/a.jpg")
        let run = try Binary.run(["ingest", "--config", "config.toml", "--rule", "receipts", "a.jpg"], in: scratch.url)
        #expect(run.status == 0, "\(run)")
        #expect(try PDFReaders.pdfinfoPages(scratch.path + "/library/Receipts.pdf") == 1)
        #expect(!FileManager.default.fileExists(atPath: scratch.path + "/library/Inbox.pdf"), "the match did not decide")
        let wrong = try Binary.run(["ingest", "--config", "config.toml", "--rule", "receipt", "a.jpg"], in: scratch.url)
        #expect(wrong.status == 64, "\(wrong)")
        #expect(wrong.stderr.contains("--rule receipt: no rule of that name (did you mean \"receipts\"?)"), "\(wrong.stderr)")
    }
}
