import Foundation
import TestSupport
import Testing

/// `explain` tells, for real files, the rule and target the daemon would use, and changes nothing.
@Suite struct ExplainTests {
    static let config = """
    [library]
    root = "docs"
    [inbox]
    path = "inbox"

    [[rule]]
    name = "receipts"
    target = "Receipts/{year}/{stem}-{ext}.pdf"
    match = { folder = "receipts", type = "image" }

    [[rule]]
    name = "letters"
    target = "Letters/letter-{seq:2}.pdf"
    mode = "new"
    original = "delete"
    match = { glob = "*.pdf" }

    [[rule]]
    name = "from-scanner"
    target = "Scans/{button}.pdf"
    original = "keep"
    match = { source = "scanner" }

    """

    static let jpegHead = Data([0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10]) + Data("JFIF".utf8)

    @Test func explainsEachInputAndWritesNothing() throws {
        let scratch = try Scratch()
        try scratch.write("config.toml", Self.config)
        try scratch.write("inbox/receipts/IMG_0001.JPG", Self.jpegHead)
        try scratch.write("inbox/letter.pdf", Data("%PDF-1.7\n".utf8))
        try scratch.write("docs/Letters/letter-01.pdf", Data("%PDF-1.7\n".utf8))
        try scratch.write("inbox/notes.txt", Data("hello".utf8))
        let before = try FileManager.default.subpathsOfDirectory(atPath: scratch.path).sorted()

        let run = try Binary.run(["explain", "--config", "config.toml", "inbox/receipts/IMG_0001.JPG",
                                  "inbox/letter.pdf", "inbox/notes.txt"], in: scratch.url)
        #expect(run.status == 0, "stderr: \(run.stderr)")
        let year = Calendar(identifier: .gregorian).component(.year, from: Date())
        #expect(run.stdout == """
        inbox/receipts/IMG_0001.JPG
          as:       receipts/IMG_0001.JPG (jpeg, 10 bytes)
          rule:     #1 "receipts"
          target:   \(scratch.path)/docs/Receipts/\(year)/IMG_0001-jpg.pdf (append: create, then append)
          steps:    none; no OCR
          original: archived to \(scratch.path)/archive/\(year)/\(twoDigitMonth())/IMG_0001.JPG
        inbox/letter.pdf
          as:       letter.pdf (pdf, 9 bytes)
          rule:     #2 "letters"
          target:   \(scratch.path)/docs/Letters/letter-02.pdf (new: a new file)
          steps:    none; no OCR
          original: deleted once the pages are safe in the target
        inbox/notes.txt
          as:       notes.txt (unknown, 5 bytes)
          note:     not a JPEG, PNG, TIFF, PNM, HEIC, AVIF, WebP or PDF by its content; it would be quarantined
          rule:     none matches; the file would stay in the inbox

        """)
        #expect(try FileManager.default.subpathsOfDirectory(atPath: scratch.path).sorted() == before)
    }

    @Test func scannerInputsMatchOnSourceAndButton() throws {
        let scratch = try Scratch()
        try scratch.write("config.toml", Self.config)
        let page = try scratch.write("page.pnm", Data("P6\n1 1\n255\n\0\0\0".utf8))
        let run = try Binary.run(["explain", "--config", "config.toml", "--source", "scanner", "--button", "email", page],
                                 in: scratch.url)
        #expect(run.status == 0, "stderr: \(run.stderr)")
        #expect(run.stdout.contains("rule:     #3 \"from-scanner\""))
        #expect(run.stdout.contains("target:   \(scratch.path)/docs/Scans/email.pdf"))
    }

    /// A size rule judges a scan by its pages' bytes, which a scan not yet made does not have: a
    /// profile whose scans such a rule sends apart is shown both ways.
    @Test func aProfileASizeRuleSendsApartIsShownForASmallAndALargeScan() throws {
        let scratch = try Scratch()
        try scratch.write("config.toml", """
            [library]
            root = "docs"
            [inbox]
            path = "inbox"

            [[rule]]
            name = "large"
            target = "Large.pdf"
            match = { source = "scanner", min_size = "1MB" }

            [[rule]]
            name = "small"
            target = "Small.pdf"
            match = { source = "scanner" }

            [profile.feeder]
            source = "adf"

            """)
        let run = try Binary.run(["explain", "--config", "config.toml", "--profile", "feeder"], in: scratch.url)
        #expect(run.status == 0, "stderr: \(run.stderr)")
        let lines = run.stdout.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        #expect(lines.contains("rule:     #2 \"small\"") && lines.contains("rule:     #1 \"large\""), "\(run.stdout)")
        #expect(lines.contains("size:     a size rule decides by the scan's bytes (its pages as stored); a large scan goes as:"),
                "\(run.stdout)")
    }

    @Test func missingInputIsReportedAndTheRestExplained() throws {
        let scratch = try Scratch()
        try scratch.write("config.toml", Self.config)
        try scratch.write("inbox/a.pdf", Data("%PDF-1.4\n".utf8))
        let run = try Binary.run(["explain", "--config", "config.toml", "inbox/gone.jpg", "inbox/a.pdf"], in: scratch.url)
        #expect(run.status == 66)
        #expect(run.errorLines == ["pdftrapper explain: inbox/gone.jpg: no such file"])
        #expect(run.stdout.contains("rule:     #2 \"letters\""))
    }

    @Test func invalidConfigStopsBeforeAnyInput() throws {
        let scratch = try Scratch()
        try scratch.write("config.toml", "[library]\nroot = 1\n[inbox]\npath = \"in\"\n")
        let run = try Binary.run(["explain", "--config", "config.toml", "x.jpg"], in: scratch.url)
        #expect(run.status == 78)
        #expect(run.errorLines == ["config.toml:2:8: library.root must be a string, not the integer 1"])
    }

    private func twoDigitMonth() -> String {
        let month = Calendar(identifier: .gregorian).component(.month, from: Date())
        return month < 10 ? "0\(month)" : "\(month)"
    }
}
