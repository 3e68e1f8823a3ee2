import Foundation
import TestSupport
import Testing

/// What the writer must never carry forward from a foreign target: object numbers past what readers
/// accept, a wrong page-tree /Count, numbers of 300 digits; and names past 255 bytes. Each target is
/// checked from outside, by every reader.
@Suite struct WriterBoundsTests {
    /// A one-page PDF with a classic xref table, its objects numbered `numbers` (catalog, pages,
    /// page, contents), the root's /Count and the trailer's /Size as given.
    static func craft(_ path: String, numbers: [Int] = [1, 2, 3, 4], count: String = "1", size: String? = nil) throws {
        _ = try Python.run("""
            import sys
            path, numbers, count, size = sys.argv[1], [int(n) for n in sys.argv[2].split(",")], sys.argv[3], sys.argv[4]
            catalog, pages, page, contents = numbers
            body = [
                (catalog, f"<< /Type /Catalog /Pages {pages} 0 R >>"),
                (pages, f"<< /Type /Pages /Kids [{page} 0 R] /Count {count} >>"),
                (page, f"<< /Type /Page /Parent {pages} 0 R /MediaBox [0 0 200 100] /Contents {contents} 0 R >>"),
                (contents, "<< /Length 25 >>\\nstream\\n0 0 1 rg 10 10 50 50 re f\\nendstream"),
            ]
            out = bytearray(b"%PDF-1.7\\n")
            offsets = {}
            for number, text in body:
                offsets[number] = len(out)
                out += f"{number} 0 obj\\n{text}\\nendobj\\n".encode()
            xref = len(out)
            out += b"xref\\n0 1\\n0000000000 65535 f \\n"
            for number in sorted(offsets):
                out += f"{number} 1\\n{offsets[number]:010d} 00000 n \\n".encode()
            size = size if size != "-" else str(max(numbers) + 1)
            out += f"trailer\\n<< /Size {size} /Root {catalog} 0 R >>\\nstartxref\\n{xref}\\n%%EOF\\n".encode()
            open(path, "wb").write(out)
            """, [path, numbers.map(String.init).joined(separator: ","), count, size ?? "-"])
    }

    /// A scratch folder whose config's library holds the crafted `T.pdf`.
    func world(numbers: [Int] = [1, 2, 3, 4], count: String = "1", size: String? = nil) throws -> (Scratch, target: String) {
        let scratch = try Scratch()
        try scratch.write("config.toml", TestConfig.folders())
        try FileManager.default.createDirectory(atPath: scratch.path + "/library", withIntermediateDirectories: true)
        try Self.craft(scratch.path + "/library/T.pdf", numbers: numbers, count: count, size: size)
        return (scratch, scratch.path + "/library/T.pdf")
    }

    func ingest(_ scratch: Scratch) throws -> Run {
        try TestImages.make(scratch.path + "/p.png", width: 100)
        return try Binary.run(["ingest", "--config", "config.toml", "--to", "library/T.pdf", "p.png"], in: scratch.url)
    }

    func apply(_ scratch: Scratch, _ script: String) throws -> Run {
        try scratch.write("edit.toml", "target = \"T.pdf\"\n" + script)
        return try Binary.run(["apply", "--config", "config.toml", "edit.toml"], in: scratch.url)
    }

    /// The largest object number in the file, as qpdf lists them.
    func largestObject(_ path: String) throws -> Int {
        let text = try Python.run("""
            import sys, re, subprocess
            out = subprocess.run(["qpdf", "--show-xref", sys.argv[1]], capture_output=True, text=True).stdout
            print(max(int(m.group(1)) for m in re.finditer(r"^(\\d+)/\\d+:", out, re.M)))
            """, [path])
        return Int(text.trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
    }

    @Test(arguments: [
        ("a /Size of 2^40", [1, 2, 3, 4], "1099511627776"),
        ("an object numbered near 2^31", [1, 2, 3, 2_147_483_000], nil),
    ])
    func aTargetNumberedPastWhatReadersAcceptIsRenumberedFirst(_ what: String, _ numbers: [Int], _ size: String?) throws {
        let (scratch, target) = try world(numbers: numbers, size: size)
        let run = try ingest(scratch)
        #expect(run.status == 0, "\(what): \(run.stderr)")
        #expect(run.stderr.contains("repaired"), "\(what): the log says the target was rewritten: \(run.stderr)")
        try PDFReaders.requireAllAgree(target, pages: 2)
        #expect(try largestObject(target) < 8_388_607, "\(what)")
    }

    /// 2147483647 says the root; it holds one page. An append and an edit each write what it holds.
    @Test func aWrongCountInAForeignTreeIsRecountedWhereTheWriterTouchesIt() throws {
        let (scratch, target) = try world(count: "2147483647")
        let run = try ingest(scratch)
        #expect(run.status == 0, "\(run.stderr)")
        try PDFReaders.requireAllAgree(target, pages: 2)
        let count = { try Python.run("import sys, pypdf\nprint(pypdf.PdfReader(sys.argv[1]).trailer['/Root']['/Pages']['/Count'])", [target]) }
        #expect(try count().trimmingCharacters(in: .whitespacesAndNewlines) == "2")

        let (other, edited) = try world(count: "2147483647")
        let applied = try apply(other, "[[edit]]\nop = \"duplicate\"\npages = \"1\"\n")
        #expect(applied.status == 0, "\(applied.stderr)")
        try PDFReaders.requireAllAgree(edited, pages: 2)
    }

    @Test func tinyBoxesAreRefusedWithTheirPlaceAndNumbersStaySixDecimalsAtMost() throws {
        let (scratch, target) = try world()
        let crop = try apply(scratch, "[[edit]]\nop = \"crop\"\npages = \"1\"\nbox = [0, 0, 1e-300, 1e-300]\n")
        #expect(crop.status == 65)
        #expect(crop.stderr.contains("edit.toml:5:7: ") && crop.stderr.contains("no area"), "\(crop.stderr)")

        let rect = try apply(scratch, """
            [[edit]]
            op = "rect"
            page = 1
            box = [1e-300, 1e-300, 100.1234567891, 50]
            [[edit]]
            op = "crop"
            pages = "1"
            box = [1e-300, 0, 150.333333333333, 90]

            """)
        #expect(rect.status == 0, "\(rect.stderr)")
        try PDFReaders.requireAllAgree(target, pages: 1)
        let plain = scratch.path + "/plain.pdf"
        try PDFReaders.qpdfUncompressedObjectStreams(target, to: plain)
        let text = String(decoding: try Data(contentsOf: URL(fileURLWithPath: plain)), as: UTF8.self)
        #expect(text.firstMatch(of: /\d\.\d{7,}/) == nil, "a number with more than 6 decimals")
        #expect(text.contains("150.333333"))
    }

    /// A 246-byte stem with `{date} {time}` added is cut to fit 255 bytes, its extension kept; in the
    /// archive and the quarantine too, each note beside its file.
    @Test func namesPast255BytesAreShortenedAndNeverStuck() throws {
        let scratch = try Scratch()
        try scratch.write("config.toml", TestConfig.folders() + """
            [[rule]]
            name = "long"
            target = "{stem} {date} {time}.pdf"
            mode = "new"
            archive_as = "{stem} {date} {time}.{ext}"

            """)
        try FileManager.default.createDirectory(atPath: scratch.path + "/inbox", withIntermediateDirectories: true)
        let stem = String(repeating: "é", count: 123)
        #expect(stem.utf8.count == 246)
        let daemon = try DaemonProcess(config: scratch.path + "/config.toml", in: scratch.url)
        #expect(daemon.notify.wait(for: "READY=1"), "log: \(daemon.log)")
        try TestImages.make(scratch.path + "/inbox/\(stem).png", width: 100)
        try TestImages.make(scratch.path + "/inbox/\(stem)-2.png", width: 200)
        _ = try scratch.write("inbox/\(String(repeating: "b", count: 251)).jpg", "not a picture")
        func names(_ folder: String) -> [String] {
            ((try? FileManager.default.contentsOfDirectory(atPath: scratch.path + "/" + folder)) ?? []).filter { !$0.hasPrefix(".") }
        }
        #expect(eventually { names("library").count == 2 && names("archive").count == 2 && names("quarantine").count == 2 },
                "log: \(daemon.log)")
        for name in names("library") + names("archive") + names("quarantine") {
            #expect(name.utf8.count <= 255, "\(name.utf8.count) bytes")
        }
        #expect(names("library").allSatisfy { $0.hasSuffix(".pdf") && $0.hasPrefix("éééé") })
        #expect(Set(names("library")).count == 2, "two documents, two names")
        #expect(names("archive").allSatisfy { $0.hasSuffix(".png") })
        #expect(names("quarantine").contains { $0.hasSuffix(".jpg.why.txt") } && names("quarantine").contains { $0.hasSuffix(".jpg") })
        for name in names("library") { try PDFReaders.requireAllAgree(scratch.path + "/library/" + name, pages: 1) }
        #expect(!daemon.log.contains("will retry"), "log: \(daemon.log)")
        #expect(daemon.stop() == 0)
    }
}
