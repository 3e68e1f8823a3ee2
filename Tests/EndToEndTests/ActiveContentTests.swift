import Foundation
import TestSupport
import Testing

/// A dropped PDF whose page asks a viewer to run programs: an open action that launches /bin/sh,
/// page and field /AA, links that run JavaScript or launch (with a JavaScript /Next), a button that
/// submits the form, a JavaScript name tree. Imported, it keeps what it shows and loses what runs,
/// unless the rule says `active_content = "keep"`. Checked with `qpdf --json` of the target.
@Suite struct ActiveContentTests {
    static let hostile = """
        import sys
        objects = {
            1: "<< /Type /Catalog /Pages 2 0 R /OpenAction << /S /Launch /F (/bin/sh) >> "
               "/Names << /JavaScript 9 0 R >> /AcroForm << /Fields [8 0 R] >> >>",
            2: "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
            3: "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 100] /Contents 4 0 R "
               "/AA << /O << /S /JavaScript /JS (app.alert\\\\(1\\\\)) >> >> /Annots [5 0 R 6 0 R 7 0 R 8 0 R] >>",
            4: "<< /Length 25 >>\\nstream\\n0 0 1 rg 10 10 50 50 re f\\nendstream",
            5: "<< /Type /Annot /Subtype /Link /Rect [10 10 50 30] /A << /S /JavaScript /JS (this.print\\\\(\\\\)) >> >>",
            6: "<< /Type /Annot /Subtype /Link /Rect [60 10 100 30] /A << /S /URI /URI (https://example.org/) >> >>",
            7: "<< /Type /Annot /Subtype /Link /Rect [110 10 150 30] "
               "/A << /S /Launch /F (/bin/sh) /Next << /S /JavaScript /JS (1) >> >> >>",
            8: "<< /Type /Annot /Subtype /Widget /FT /Btn /Ff 65536 /T (send) /Rect [160 10 190 30] /P 3 0 R "
               "/A << /S /SubmitForm /F (http://127.0.0.1/) >> /AA << /U << /S /JavaScript /JS (2) >> >> >>",
            9: "<< /Names [(a) << /S /JavaScript /JS (3) >>] >>",
        }
        out = bytearray(b"%PDF-1.7\\n")
        offsets = {}
        for number, text in objects.items():
            offsets[number] = len(out)
            out += f"{number} 0 obj\\n{text}\\nendobj\\n".encode()
        xref = len(out)
        out += f"xref\\n0 {len(objects) + 1}\\n0000000000 65535 f \\n".encode()
        for number in sorted(offsets):
            out += f"{offsets[number]:010d} 00000 n \\n".encode()
        out += f"trailer\\n<< /Size {len(objects) + 1} /Root 1 0 R >>\\nstartxref\\n{xref}\\n%%EOF\\n".encode()
        open(sys.argv[1], "wb").write(out)
        """

    /// Every object of the PDF as qpdf sees it, as one JSON text.
    func objects(_ path: String) throws -> String {
        try PDFReaders.run("qpdf", ["--json=2", "--json-key=qpdf", path]).text
    }

    func world(rule extra: String) throws -> (Scratch, DaemonProcess) {
        let scratch = try Scratch()
        try scratch.write("config.toml", TestConfig.folders() + """
            [[rule]]
            name = "all"
            target = "All.pdf"
            \(extra)

            """)
        try FileManager.default.createDirectory(atPath: scratch.path + "/inbox", withIntermediateDirectories: true)
        _ = try Python.run(Self.hostile, [scratch.path + "/hostile.pdf"])
        let before = try objects(scratch.path + "/hostile.pdf")
        try #require(["/JavaScript", "/Launch", "/SubmitForm", "/AA", "/OpenAction"].allSatisfy(before.contains), "the input has them")
        let daemon = try DaemonProcess(config: scratch.path + "/config.toml", in: scratch.url)
        #expect(daemon.notify.wait(for: "READY=1"), "log: \(daemon.log)")
        try FileManager.default.moveItem(atPath: scratch.path + "/hostile.pdf", toPath: scratch.path + "/inbox/hostile.pdf")
        #expect(eventually { daemon.log.contains("hostile.pdf: 1 page into") }, "log: \(daemon.log)")
        return (scratch, daemon)
    }

    @Test func whatRunsCodeIsLeftOutAndWhatShowsStays() throws {
        let (scratch, daemon) = try world(rule: "")
        let target = scratch.path + "/library/All.pdf"
        try PDFReaders.requireAllAgree(target, pages: 1)
        let json = try objects(target)
        for active in ["/JavaScript", "/Launch", "/SubmitForm", "/AA", "/OpenAction", "/JS", "/bin/sh"] {
            #expect(!json.contains(active), "\(active) is still in the target")
        }
        #expect(json.contains("https://example.org/"), "the URI link stays")
        let rects = try Python.run("""
            import sys, pypdf
            page = pypdf.PdfReader(sys.argv[1]).pages[0]
            print(sorted([float(v) for v in a.get_object()["/Rect"]] for a in page["/Annots"]))
            """, [target])
        #expect(rects.contains("[60.0, 10.0, 100.0, 30.0]"), "\(rects)")
        #expect(rects.contains("[10.0, 10.0, 50.0, 30.0]"), "a link whose action went keeps its place: \(rects)")
        let said = "removed 7 actions: OpenAction (Launch), JavaScript name tree"
        #expect(daemon.log.contains(said) && daemon.log.contains("SubmitForm"), "log: \(daemon.log)")
        let history = try Binary.run(["history", "library/All.pdf"], in: scratch.url).stdout
        #expect(history.contains("removed 7 actions") && history.contains("Launch"), "\(history)")
        #expect(daemon.stop() == 0)
    }

    @Test func aRuleMayKeepIt() throws {
        let (scratch, daemon) = try world(rule: "active_content = \"keep\"")
        let json = try objects(scratch.path + "/library/All.pdf")
        #expect(json.contains("/JavaScript") && json.contains("/Launch") && json.contains("/SubmitForm"))
        #expect(!daemon.log.contains("removed"), "log: \(daemon.log)")
        #expect(daemon.stop() == 0)
    }
}
