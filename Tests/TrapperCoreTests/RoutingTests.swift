import Foundation
import Testing
@testable import TrapperCore

@Suite struct GlobTests {
    @Test(arguments: [
        ("*.jpg", "IMG_0001.JPG", true), ("*.jpg", "scan.jpeg", false), ("scan-??.pdf", "scan-01.pdf", true),
        ("scan-??.pdf", "scan-1.pdf", false), ("[!.]*", ".hidden", false), ("[a-c]x", "bx", true),
        ("*", "a/b", false), ("**", "a/b", true), ("a/*.png", "a/x.png", true), ("a/*.png", "a/b/x.png", false),
        ("a/**.png", "a/b/x.png", true), ("\\*.txt", "*.txt", true), ("\\*.txt", "a.txt", false),
        (".~lock.*", ".~lock.report.odt#", true), ("Thumbs.db", "thumbs.db", true), ("[", "[", true),
    ])
    func matchesNames(pattern: String, name: String, expected: Bool) {
        #expect(Glob(pattern).matches(name: name) == expected)
    }

    @Test func patternWithoutSlashLooksAtTheNameOnly() {
        #expect(Glob("*.pdf").matches(relativePath: "letters/2026/a.pdf"))
        #expect(!Glob("letters/*.pdf").matches(relativePath: "letters/2026/a.pdf"))
    }
}

@Suite struct PathTemplateTests {
    let noon = Date(timeIntervalSince1970: 1_780_142_400)  // 2026-05-30 12:00:00 UTC

    func values(_ path: String) -> TemplateValues {
        TemplateValues(date: noon, timeZone: TimeZone(identifier: "UTC")!, relativePath: path, rule: "r",
                       source: .scanner, button: "email", profile: "adf", host: "desk")
    }

    @Test func rendersEveryPlaceholder() throws {
        let template = try PathTemplate("{year}/{month}/{day}/{date} {time} {hour}{minute}{second}/{stem}.{ext}/{name}/{folder}/{rule}-{source}-{button}-{profile}-{host}-{seq:3}.pdf")
        #expect(template.render(values("a/b/Scan One.JPG"), sequence: 7)
                == "2026/05/30/2026-05-30 120000 120000/Scan One.jpg/Scan One.JPG/a/b/r-scanner-email-adf-desk-007.pdf")
    }

    @Test func valuesCannotAddFoldersOrClimbOut() throws {
        let template = try PathTemplate("{folder}/{rule}/{stem}.pdf")
        var sneaky = values("x.pdf")
        sneaky.rule = "../../etc"
        #expect(template.render(sneaky) == ".._.._etc/x.pdf")
        sneaky.rule = ".."
        #expect(template.render(sneaky) == "__/x.pdf")
    }

    @Test func aBarcodeValueStaysOneFileName() throws {
        let template = try PathTemplate("Sorted/{barcode}/{stem}.pdf")
        var read = values("mail.tiff")
        read.barcode = "Invoices/../2026\nQ1"
        #expect(template.render(read) == "Sorted/Invoices_.._2026_Q1/mail.pdf")
        read.barcode = String(repeating: "x", count: 300)
        #expect(template.render(read) == "Sorted/" + String(repeating: "x", count: 100) + "/mail.pdf")
        read.barcode = ""
        #expect(template.render(read) == "Sorted/mail.pdf", "the document before the first barcode")
    }

    @Test func bracesCanBeLiteral() throws {
        #expect(try PathTemplate("{{draft}}.pdf").render(values("a")) == "{draft}.pdf")
    }

    @Test(arguments: [
        ("{yeer}.pdf", 0, "unknown placeholder {yeer} (did you mean {year}?)"),
        ("a/{stem", 2, "'{' is never closed (write '{{' for a literal brace)"),
        ("a}.pdf", 1, "unmatched '}' (write '}}' for a literal brace)"),
        ("a/../b.pdf", 2, "must not climb out with '..'"),
        ("/a.pdf", 0, "must be relative to its folder, not start with '/'"),
        ("~/a.pdf", 0, "must be relative to its folder, not start with '~'"),
        ("a//b.pdf", 2, "has an empty folder name ('//' or a trailing '/')"),
        ("{stem:2}.pdf", 0, "{stem:2}: only {seq} takes a width, from 1 to 9"),
        ("", 0, "is empty"),
    ])
    func refusesBadTemplates(text: String, offset: Int, message: String) {
        #expect(throws: PathTemplate.Problem(offset: offset, message: message)) { try PathTemplate(text) }
    }
}

@Suite struct RouterTests {
    func rule(_ name: String, _ target: String, mode: IngestMode = .append, _ configure: (inout RuleMatch) -> Void = { _ in }) throws -> Rule {
        var match = RuleMatch()
        configure(&match)
        return Rule(name: name, match: match, target: try PathTemplate(target), mode: mode)
    }

    func input(_ path: String, kind: FileKind = .jpeg, bytes: Int64 = 1000, source: InputSource = .inbox, button: String? = nil,
               profile: String? = nil) -> RouteInput {
        RouteInput(relativePath: path, bytes: bytes, kind: kind, source: source, button: button, profile: profile,
                   date: Date(timeIntervalSince1970: 1_780_142_400))
    }

    @Test func firstMatchingRuleWins() throws {
        let router = Router(rules: [
            try rule("receipts", "R/{stem}.pdf") { $0.folder = "receipts" },
            try rule("pdfs", "P.pdf") { $0.kinds = [.pdf] },
            try rule("big", "B.pdf") { $0.minBytes = 5000 },
            try rule("scanner", "S/{button}.pdf") { $0.source = .scanner; $0.button = "email" },
            try rule("receipt-scans", "S/receipts.pdf") { $0.source = .scanner; $0.profile = "receipts" },
            try rule("regex", "X.pdf") { $0.regex = "^notes/.*\\.png$" },
        ], libraryRoot: "/lib", archiveRoot: "/arch", timeZone: TimeZone(identifier: "UTC")!)
        #expect(router.plan(for: input("receipts/2026/a.jpg"))?.rule == "receipts")
        #expect(router.plan(for: input("receiptsX/a.jpg")) == nil)
        #expect(router.plan(for: input("receipts/a.pdf", kind: .pdf))?.rule == "receipts")
        #expect(router.plan(for: input("a.pdf", kind: .pdf))?.targetPath == "/lib/P.pdf")
        #expect(router.plan(for: input("a.jpg", bytes: 9000))?.rule == "big")
        #expect(router.plan(for: input("scan.pnm", kind: .pnm, source: .scanner, button: "email"))?.target == "S/email.pdf")
        #expect(router.plan(for: input("scan.pnm", kind: .pnm, source: .scanner, button: "copy")) == nil)
        #expect(router.plan(for: input("scan-1.jpg", source: .scanner, profile: "receipts"))?.rule == "receipt-scans")
        #expect(router.plan(for: input("scan-1.jpg", source: .scanner, profile: "letters")) == nil)
        #expect(router.plan(for: input("notes/x.png", kind: .png))?.rule == "regex")
        #expect(router.plan(for: input("a.jpg")) == nil)
    }

    @Test func newModeFindsAFreeName() throws {
        let taken: Set = ["/lib/L/letter-01.pdf", "/lib/L/letter-02.pdf", "/lib/plain.pdf", "/lib/plain-2.pdf"]
        let router = Router(rules: [try rule("seq", "L/letter-{seq:2}.pdf", mode: .new) { $0.kinds = [.pdf] },
                                    try rule("plain", "plain.pdf", mode: .new)],
                            libraryRoot: "/lib", archiveRoot: "/arch")
        #expect(router.plan(for: input("a.pdf", kind: .pdf)) { taken.contains($0) }?.target == "L/letter-03.pdf")
        #expect(router.plan(for: input("a.jpg")) { taken.contains($0) }?.target == "plain-3.pdf")
    }

    @Test func appendKeepsTheRenderedNameEvenWhenItExists() throws {
        let router = Router(rules: [try rule("a", "Inbox.pdf")], libraryRoot: "/lib", archiveRoot: "/arch")
        #expect(router.plan(for: input("a.jpg")) { _ in true }?.targetPath == "/lib/Inbox.pdf")
    }

    @Test func archivePathUsesTheRulesTemplate() throws {
        var archived = try rule("a", "A.pdf")
        archived.archiveAs = try PathTemplate("{rule}/{date}-{name}")
        let router = Router(rules: [archived], libraryRoot: "/lib", archiveRoot: "/arch/", timeZone: TimeZone(identifier: "UTC")!)
        #expect(router.plan(for: input("x/IMG.JPG"))?.archivePath == "/arch/a/2026-05-30-IMG.JPG")
        #expect(Rule.defaultArchiveAs.text == "{year}/{month}/{name}")
    }

    /// The plan is complete: an open batch is joined in routing (so `explain` shows it), collation
    /// and separators are in it, and nobody needs to look at the rule again.
    @Test func thePlanJoinsAnOpenBatchAndCarriesCollation() throws {
        var batch = try rule("batch", "Batch-{seq}.pdf", mode: .batch) { $0.folder = "b" }
        batch.batchWindowSeconds = 60
        var duplex = try rule("duplex", "Duplex.pdf") { $0.folder = "d" }
        duplex.collate = .doubleSided
        duplex.collateWindowSeconds = 600
        duplex.oneSided = [Glob("*-letter.jpg")]
        let router = Router(rules: [batch, duplex], libraryRoot: "/lib", archiveRoot: "/arch")
        let arrived = input("b/x.jpg").date
        let taken: Set = ["/lib/Batch-1.pdf", "/lib/Batch-2.pdf"]

        let opening = try #require(router.plan(for: input("b/x.jpg")) { taken.contains($0) })
        #expect(opening.targetPath == "/lib/Batch-3.pdf" && opening.batch == RoutePlan.Batch(window: 60, joins: false))
        let open = ["batch": OpenBatch(target: "/lib/Batch-1.pdf", last: arrived.addingTimeInterval(-59))]
        let joining = try #require(router.plan(for: input("b/x.jpg"), batches: open) { taken.contains($0) })
        #expect(joining.targetPath == "/lib/Batch-1.pdf" && joining.target == "Batch-1.pdf" && joining.batch?.joins == true)
        let closed = ["batch": OpenBatch(target: "/lib/Batch-1.pdf", last: arrived.addingTimeInterval(-61))]
        #expect(router.plan(for: input("b/x.jpg"), batches: closed) { taken.contains($0) }?.targetPath == "/lib/Batch-3.pdf")
        // A batch under another library root (a reload moved it) is not joined.
        let elsewhere = ["batch": OpenBatch(target: "/old/Batch-1.pdf", last: arrived)]
        #expect(router.plan(for: input("b/x.jpg"), batches: elsewhere) { taken.contains($0) }?.batch?.joins == false)

        #expect(router.plan(for: input("d/scan.jpg"))?.collateWindow == 600)
        #expect(router.plan(for: input("d/scan-letter.jpg"))?.collateWindow == nil, "one-sided: in alone")
        #expect(router.plan(for: input("b/x.jpg"))?.collateWindow == nil)
    }

    @Test func openBatchesSurviveTheirFile() {
        let batches = ["r": OpenBatch(target: "/lib/B-1.pdf", last: Date(timeIntervalSince1970: 1_780_142_400))]
        #expect(OpenBatch.decode(OpenBatch.encode(batches)) == batches)
        #expect(OpenBatch.decode(Data("not json".utf8)).isEmpty)
    }
}

@Suite struct FileKindTests {
    @Test(arguments: [
        ([0xFF, 0xD8, 0xFF, 0xE1], FileKind.jpeg), ([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A], .png),
        ([0x49, 0x49, 0x2A, 0x00], .tiff), ([0x4D, 0x4D, 0x00, 0x2A], .tiff), (Array("P4\n8 1\n".utf8), .pnm),
        (Array("%PDF-1.7".utf8), .pdf), (Array("junk\n%PDF-1.4".utf8), .pdf), (Array("<html>".utf8), .unknown),
        ([], .unknown), (Array("P9\n".utf8), .unknown),
        // BigTIFF is TIFF (its reader says why it is refused); a PNM may start with a comment; P7 (PAM) is not read.
        ([0x49, 0x49, 0x2B, 0x00], .tiff), ([0x4D, 0x4D, 0x00, 0x2B], .tiff), (Array("P5#x\n".utf8), .pnm),
        (Array("P7\nWIDTH 1\n".utf8), .unknown),
    ] as [([UInt8], FileKind)])
    func sniffsByContent(head: [UInt8], kind: FileKind) {
        #expect(FileKind.sniff(head) == kind)
    }

    /// An `ftyp` box of `size` bytes: major brand, minor version, compatible brands.
    static func ftyp(_ major: String, _ compatible: [String], size: Int? = nil) -> [UInt8] {
        let body = Array(major.utf8) + [0, 0, 0, 0] + compatible.flatMap { Array($0.utf8) }
        let length = size ?? 8 + body.count
        return [UInt8(length >> 24), UInt8(length >> 16 & 0xFF), UInt8(length >> 8 & 0xFF), UInt8(length & 0xFF)]
            + Array("ftyp".utf8) + body + Array("....meta".utf8)
    }

    @Test(arguments: [
        (ftyp("heic", ["mif1", "heic"]), FileKind.heic), (ftyp("heix", ["mif1"]), .heic), (ftyp("mif1", ["heic"]), .heic),
        (ftyp("avif", ["mif1", "miaf"]), .avif), (ftyp("mif1", ["avif", "miaf"]), .avif), (ftyp("avis", []), .avif),
        // A bare image file brand is HEIF (libheif says what is inside); an MP4 is not a photo.
        (ftyp("mif1", []), .heic), (ftyp("isom", ["iso2", "mp41"]), .unknown), (ftyp("mp42", ["mif1x"]), .unknown),
        (Array("RIFF\u{10}\0\0\0WEBPVP8 ".utf8), .webp), (Array("RIFF\u{10}\0\0\0WAVEfmt ".utf8), .unknown),
    ] as [([UInt8], FileKind)])
    func sniffsPhoneFormatsByTheirBrands(head: [UInt8], kind: FileKind) {
        #expect(FileKind.sniff(head) == kind)
        #expect(FileKind.sniff(head).isImage == (kind != .unknown))
    }
}

@Suite struct FileNameTests {
    @Test func aLongNameKeepsItsExtensionAndNumber() {
        let stem = String(repeating: "a", count: 300)
        #expect(FileName.fitted(stem + ".pdf") == String(repeating: "a", count: 251) + ".pdf")
        #expect(FileName.numbered(stem + ".pdf", 12) == String(repeating: "a", count: 248) + "-12.pdf")
        #expect(FileName.fitted("short.pdf") == "short.pdf")
        #expect(FileName.fitted(String(repeating: "é", count: 200)).utf8.count == 254, "cut between characters")
        #expect(FileName.temporary(for: stem + ".pdf", tag: ".tmp-1").utf8.count == 255)
        #expect(FileName.fittedPath("a/" + stem + ".pdf").hasSuffix(".pdf"))
    }

    @Test func theNamesToTryForANewFileAreTheNameThenNumberedOnesEachFitted() {
        #expect(Array(FileName.candidates("scan.jpg").prefix(4)) == ["scan.jpg", "scan-2.jpg", "scan-3.jpg", "scan-4.jpg"])
        let stem = String(repeating: "b", count: 300)
        // Room kept for a note's suffix: every candidate stays within 255 bytes less it.
        #expect(FileName.candidates(stem + ".png", reserve: 10).prefix(12).allSatisfy { $0.utf8.count <= 245 && $0.hasSuffix(".png") })
        #expect(Array(FileName.candidates(stem + ".png", reserve: 10).prefix(12)).last?.hasSuffix("-12.png") == true)
    }
}
