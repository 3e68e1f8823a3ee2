import Foundation
import TestSupport
import Testing

/// Markup, signatures and erase through `pdftrapper apply`, checked from outside: pypdf reads the
/// annotations' dictionaries, and poppler, pdfium and mupdf render their pixels.
@Suite struct MarkupScriptTests {
    /// A library with `T.pdf`: one 400×300 pt page, "Invoice 2026" at (50, 200) in 20 pt Helvetica
    /// and "Total due" at (50, 100) in 14 pt; and a signatures folder.
    func world(rotate: Int = 0) throws -> Scratch {
        let scratch = try Scratch()
        try scratch.write("config.toml", EditScriptTests.config)
        for folder in ["library", "signatures"] {
            try FileManager.default.createDirectory(atPath: scratch.path + "/" + folder, withIntermediateDirectories: true)
        }
        try TextPDF.make(scratch.path + "/library/T.pdf", rotate: rotate,
                         lines: [(50, 200, 20, "Invoice 2026"), (50, 100, 14, "Total due")])
        return scratch
    }

    var target: (Scratch) -> String { { $0.path + "/library/T.pdf" } }

    func apply(_ scratch: Scratch, _ script: String, name: String = "edit.toml") throws -> Run {
        try scratch.write(name, script)
        return try Binary.run(["apply", "--config", "config.toml", name], in: scratch.url)
    }

    /// Every annotation of page 1 as pypdf reads it: subtype, rect, quad points, and whether it
    /// has a normal appearance and the print flag.
    func annotations(_ path: String) throws -> [[String: String]] {
        let out = try Python.run("""
            import json, sys, pypdf
            page = pypdf.PdfReader(sys.argv[1]).pages[0]
            result = []
            for ref in page.get("/Annots", []):
                a = ref.get_object()
                r = lambda v: " ".join("%g" % round(float(x), 1) for x in v)
                result.append({"subtype": a["/Subtype"], "rect": r(a["/Rect"]),
                    "quads": r(a["/QuadPoints"]) if "/QuadPoints" in a else "",
                    "ap": str("/AP" in a and "/N" in a["/AP"]), "print": str(int(a.get("/F", 0)) & 4 == 4),
                    "nm": str(a.get("/NM", "")), "contents": str(a.get("/Contents", ""))})
            print(json.dumps(result))
            """, [path])
        return try JSONDecoder().decode([[String: String]].self, from: Data(out.utf8))
    }

    /// Within `tolerance` of `rgb` on every channel, for every renderer.
    func expectColor(_ pixels: [String: [String]], _ index: Int, _ rgb: (Int, Int, Int), tolerance: Int = 60,
                     _ what: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(pixels.count == 3, "three renderers", sourceLocation: sourceLocation)
        for (renderer, values) in pixels {
            let channels = values[index].split(separator: ",").compactMap { Int($0) }
            let close = channels.count == 3 && abs(channels[0] - rgb.0) <= tolerance && abs(channels[1] - rgb.1) <= tolerance
                && abs(channels[2] - rgb.2) <= tolerance
            #expect(close, "\(what): \(renderer) shows \(values[index]), expected about \(rgb)", sourceLocation: sourceLocation)
        }
    }

    @Test func everyMarkupOpIsAnAnnotationWithAnAppearance() throws {
        let scratch = try world()
        let before = try Data(contentsOf: URL(fileURLWithPath: target(scratch)))
        let run = try apply(scratch, """
            target = "T.pdf"
            [[edit]]
            op = "highlight"
            page = 1
            rects = [[50, 195, 170, 220]]
            [[edit]]
            op = "underline"
            page = 1
            rects = [[50, 96, 120, 112]]
            [[edit]]
            op = "strikeout"
            page = 1
            rects = [[50, 96, 120, 112]]
            [[edit]]
            op = "squiggly"
            page = 1
            rects = [[50, 96, 120, 112]]
            [[edit]]
            op = "ink"
            page = 1
            preset = "marker"
            strokes = [[[200, 50], [250, 80], [300, 50]]]
            [[edit]]
            op = "rect"
            page = 1
            box = [300, 200, 380, 280]
            [[edit]]
            op = "oval"
            page = 1
            box = [300, 120, 380, 190]
            fill = "#00ff00"
            [[edit]]
            op = "line"
            page = 1
            from = [20, 20]
            to = [120, 40]
            [[edit]]
            op = "arrow"
            page = 1
            from = [20, 60]
            to = [120, 80]
            [[edit]]
            op = "textbox"
            page = 1
            box = [200, 230, 295, 290]
            text = "Paid in full"
            [[edit]]
            op = "note"
            page = 1
            at = [370, 40]
            contents = "Ask about the discount"
            """)
        #expect(run.status == 0, "\(run.stderr)")
        let found = try annotations(target(scratch))
        #expect(found.map { $0["subtype"]! } == ["/Highlight", "/Underline", "/StrikeOut", "/Squiggly", "/Ink", "/Square",
                                                 "/Circle", "/Line", "/Line", "/FreeText", "/Text"])
        #expect(found.allSatisfy { $0["ap"] == "True" && $0["print"] == "True" }, "\(found)")
        #expect(found.allSatisfy { $0["nm"]!.hasPrefix("pdftrapper-") }, "\(found)")
        #expect(found[0]["rect"] == "50 195 170 220")
        // Upper-left, upper-right, lower-left, lower-right.
        #expect(found[0]["quads"] == "50 220 170 220 50 195 170 195")
        #expect(found[5]["rect"] == "300 200 380 280")
        #expect(found[9]["contents"] == "Paid in full")
        #expect(found[10]["contents"] == "Ask about the discount")
        #expect(found[10]["rect"] == "370 20 390 40", "the note's icon hangs from its top-left corner at [370, 40]")
        try PDFReaders.requireAllAgree(target(scratch), pages: 1)
        let after = try Data(contentsOf: URL(fileURLWithPath: target(scratch)))
        #expect(after.prefix(before.count) == before, "one incremental update: the old bytes stay")

        // Shown from the top-left at 72 dpi: y = 300 - PDF y.
        let pixels = try TextPDF.pixels(target(scratch), at: [(110, 300 - 197), (60, 300 - 28), (340, 300 - 155),
                                                              (300, 300 - 240), (340, 300 - 240), (250, 300 - 79)])
        expectColor(pixels, 0, (255, 230, 25), "the highlight's yellow below the words")
        expectColor(pixels, 1, (0, 0, 0), tolerance: 110, "the black line")
        expectColor(pixels, 2, (0, 255, 0), "the oval's green fill")
        expectColor(pixels, 3, (0, 0, 0), tolerance: 110, "the rect's black outline")
        expectColor(pixels, 4, (255, 255, 255), tolerance: 10, "inside the unfilled rect")
        expectColor(pixels, 5, (255, 240, 160), tolerance: 70, "the translucent marker")
    }

    @Test func textHighlightsLandOnTheWordsPopplerFinds() throws {
        let scratch = try world()
        let run = try apply(scratch, """
            target = "T.pdf"
            [[edit]]
            op = "highlight"
            page = 1
            text = "invoice"
            [[edit]]
            op = "strikeout"
            page = 1
            text = "due"
            """)
        #expect(run.status == 0, "\(run.stderr)")
        let found = try annotations(target(scratch))
        #expect(found.count == 2)
        // "Invoice" in 20 pt Helvetica from x = 50: I n v o i c e = 278+556+500+556+222+500+556 = 3168/1000 × 20 = 63.4 pt.
        let quads = found[0]["quads"]!.split(separator: " ").compactMap { Double($0) }
        #expect(quads.count == 8)
        #expect(abs(quads[0] - 50) < 1.5 && abs(quads[2] - 113.4) < 1.5, "left and right of the word: \(quads)")
        #expect(quads[5] < 200 && quads[1] > 212, "from below the baseline to above the capitals: \(quads)")
        // "due" after "Total " (14 pt): T o t a l space = 611+556+278+556+222+278 = 2501/1000 × 14 = 35 pt.
        let due = found[1]["quads"]!.split(separator: " ").compactMap { Double($0) }
        #expect(abs(due[0] - 85) < 1.5, "\(due)")
        let pixels = try TextPDF.pixels(target(scratch), at: [(52, 300 - 198), (150, 300 - 198)])
        expectColor(pixels, 0, (255, 230, 25), "highlighted")
        expectColor(pixels, 1, (255, 255, 255), tolerance: 10, "past the word")
    }

    @Test func aPhraseFoundAcrossALineBreakIsOneHighlight() throws {
        let scratch = try Scratch()
        try scratch.write("config.toml", EditScriptTests.config)
        try FileManager.default.createDirectory(atPath: scratch.path + "/library", withIntermediateDirectories: true)
        try TextPDF.make(scratch.path + "/library/T.pdf", lines: [(50, 200, 14, "Please pay the total"), (50, 183, 14, "due by Friday")])
        let run = try apply(scratch, "target = \"T.pdf\"\n[[edit]]\nop = \"highlight\"\npage = 1\ntext = \"total due\"\n")
        #expect(run.status == 0, "\(run.stderr)")
        let found = try annotations(target(scratch))
        #expect(found.count == 1, "one place, one annotation: \(found)")
        let quads = found.first?["quads"]?.split(separator: " ").compactMap { Double($0) } ?? []
        #expect(quads.count == 16, "a quad on each of the two lines: \(quads)")
    }

    @Test func onARotatedPageTheScriptMeasuresThePageAsShown() throws {
        // /Rotate 90: shown 300 wide and 400 tall.
        let scratch = try world(rotate: 90)
        let run = try apply(scratch, """
            target = "T.pdf"
            origin = "top-left"
            [[edit]]
            op = "rect"
            page = 1
            box = [10, 20, 60, 50]
            color = "none"
            fill = "red"
            [[edit]]
            op = "highlight"
            page = 1
            text = "2026"
            """)
        #expect(run.status == 0, "\(run.stderr)")
        let pixels = try TextPDF.pixels(target(scratch), at: [(35, 35), (100, 35), (35, 100)])
        expectColor(pixels, 0, (230, 25, 25), "red where the script put it, as shown")
        expectColor(pixels, 1, (255, 255, 255), tolerance: 10, "right of it")
        expectColor(pixels, 2, (255, 255, 255), tolerance: 10, "below it")
        // The words' place in user space does not move: "2026" follows "Invoice " at x ≈ 50 + 63.4 + 5.6.
        let quads = try annotations(target(scratch))[1]["quads"]!.split(separator: " ").compactMap { Double($0) }
        let xs = stride(from: 0, to: 8, by: 2).map { quads[$0] }
        #expect(abs(xs.min()! - 119) < 2 && abs(xs.max()! - 163.5) < 2, "\(quads)")
    }

    @Test func savedSignaturesAsStampsOrDrawnIntoThePage() throws {
        let scratch = try world()
        // A 200×100 PNG: transparent, with a blue bar across its middle.
        _ = try Python.run("""
            import sys
            from PIL import Image, ImageDraw
            image = Image.new("RGBA", (200, 100), (0, 0, 0, 0))
            ImageDraw.Draw(image).rectangle([0, 40, 199, 59], fill=(0, 0, 200, 255))
            image.save(sys.argv[1])
            """, [scratch.path + "/signatures/Jane Doe.png"])
        try scratch.write("signatures/initials.toml", """
            width = 4
            color = "#cc0000"
            strokes = [[[0, 0], [100, 100]], [[0, 100], [100, 0]]]
            """)
        let run = try apply(scratch, """
            target = "T.pdf"
            [[edit]]
            op = "signature"
            page = 1
            name = "Jane Doe"
            box = [200, 20, 400, 120]
            [[edit]]
            op = "signature"
            page = 1
            name = "initials"
            box = [20, 220, 80, 280]
            flatten = true
            """)
        #expect(run.status == 0, "\(run.stderr)")
        let found = try annotations(target(scratch))
        #expect(found.map { $0["subtype"]! } == ["/Stamp"], "the flattened one is content, not an annotation")
        #expect(found[0]["rect"] == "200 20 400 120", "2:1 into a 2:1 box")
        try PDFReaders.requireAllAgree(target(scratch), pages: 1)
        let pixels = try TextPDF.pixels(target(scratch), at: [(300, 300 - 70), (300, 300 - 30), (50, 300 - 250), (75, 300 - 250)])
        expectColor(pixels, 0, (0, 0, 200), "the signature's blue bar")
        expectColor(pixels, 1, (255, 255, 255), tolerance: 10, "the PNG's transparent part shows the page")
        expectColor(pixels, 2, (204, 0, 0), "the crossing of the drawn initials")
        expectColor(pixels, 3, (255, 255, 255), tolerance: 10, "between the initials' strokes")
    }

    @Test func eraseRemovesByIdKindAndMakerAndUndoBringsThemBack() throws {
        let scratch = try world()
        let marked = try apply(scratch, """
            target = "T.pdf"
            [[edit]]
            op = "highlight"
            page = 1
            text = "invoice"
            [[edit]]
            op = "note"
            page = 1
            at = [10, 290]
            contents = "first"
            [[edit]]
            op = "note"
            page = 1
            at = [40, 290]
            contents = "second"
            author = "Ann"
            [[edit]]
            op = "ink"
            page = 1
            strokes = [[[200, 50], [250, 80]]]
            """)
        #expect(marked.status == 0, "\(marked.stderr)")
        let listed = try Binary.run(["annotations", "library/T.pdf", "--json"], in: scratch.url)
        #expect(listed.status == 0, "\(listed.stderr)")
        let list = try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as! [[String: Any]]
        #expect(list.map { $0["kind"] as! String } == ["Highlight", "Text", "Text", "Ink"])
        let firstNote = list[1]["id"] as! String
        let before = try Data(contentsOf: URL(fileURLWithPath: target(scratch)))

        let byID = try apply(scratch, "target = \"T.pdf\"\n[[edit]]\nop = \"erase\"\nids = [\"\(firstNote)\"]\n")
        #expect(byID.status == 0, "\(byID.stderr)")
        #expect(try annotations(target(scratch)).map { $0["contents"]! } == ["", "second", ""])
        let byKindAndAuthor = try apply(scratch, "target = \"T.pdf\"\n[[edit]]\nop = \"erase\"\nkind = \"note\"\nauthor = \"ann\"\n")
        #expect(byKindAndAuthor.status == 0, "\(byKindAndAuthor.stderr)")
        #expect(try annotations(target(scratch)).map { $0["subtype"]! } == ["/Highlight", "/Ink"])
        let inRegion = try apply(scratch, "target = \"T.pdf\"\n[[edit]]\nop = \"erase\"\nregion = [190, 40, 260, 90]\n")
        #expect(inRegion.status == 0, "\(inRegion.stderr)")
        #expect(try annotations(target(scratch)).map { $0["subtype"]! } == ["/Highlight"])
        let missing = try apply(scratch, "target = \"T.pdf\"\n[[edit]]\nop = \"erase\"\nids = [\"pdftrapper-nope\"]\n")
        #expect(missing.status == 65)
        #expect(missing.stderr.contains("no annotation has the id \"pdftrapper-nope\""), "\(missing.stderr)")

        let undo = try Binary.run(["undo", "library/T.pdf", "--steps", "2"], in: scratch.url)
        #expect(undo.status == 0, "\(undo.stderr)")
        #expect(try annotations(target(scratch)).map { $0["subtype"]! } == ["/Highlight", "/Text", "/Ink"])
        let undoAll = try Binary.run(["undo", "library/T.pdf"], in: scratch.url)
        #expect(undoAll.status == 0, "\(undoAll.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: target(scratch))) == before, "undo gives back the exact bytes")
        let mine = try apply(scratch, "target = \"T.pdf\"\n[[edit]]\nop = \"erase\"\nmade_by_pdftrapper = true\n")
        #expect(mine.status == 0, "\(mine.stderr)")
        #expect(try annotations(target(scratch)).isEmpty)
        try PDFReaders.requireAllAgree(target(scratch), pages: 1)
        // Nothing left to erase: no revision, not even an empty one.
        let settled = try Data(contentsOf: URL(fileURLWithPath: target(scratch)))
        let again = try apply(scratch, "target = \"T.pdf\"\n[[edit]]\nop = \"erase\"\nmade_by_pdftrapper = true\n")
        #expect(again.status == 0, "\(again.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: target(scratch))) == settled)
    }

    @Test func markupThatCannotBePlacedLeavesTheTargetAsItWas() throws {
        let scratch = try world()
        let before = try Data(contentsOf: URL(fileURLWithPath: target(scratch)))
        let cases: [(script: String, reason: String)] = [
            ("op = \"rect\"\npage = 1\nbox = [300, 200, 500, 280]\n", "box reaches outside the page"),
            ("op = \"highlight\"\npage = 1\ntext = \"refund\"\n", "text \"refund\" is not on page 1"),
            ("op = \"signature\"\npage = 1\nname = \"nobody\"\nbox = [0, 0, 100, 50]\n", "no saved signature \"nobody\""),
            ("op = \"textbox\"\npage = 1\nbox = [10, 10, 60, 30]\ntext = \"far too much text for so small a box\"\n",
             "make the box taller or the size smaller"),
            ("op = \"note\"\npage = 2\nat = [10, 10]\ncontents = \"x\"\n", "page 2 of a 1-page document"),
            ("op = \"ink\"\npage = 1\nstrokes = [[[1, 2]]]\ncolor = \"mauve\"\n", "edit.toml:9:9: edit[2].color must be a colour"),
            ("op = \"signature\"\npage = 1\nname = \"../etc/passwd\"\nbox = [0, 0, 10, 10]\n", "must be a signature's name"),
            ("op = \"erase\"\n", "names nothing to erase"),
        ]
        for (script, reason) in cases {
            // Each after a good edit, so a half-applied script would show.
            let run = try apply(scratch, "target = \"T.pdf\"\n[[edit]]\nop = \"rotate\"\ndegrees = 90\n[[edit]]\n" + script)
            #expect(run.status == 65, "\(script)")
            #expect(run.stderr.contains(reason), "\(script): \(run.stderr)")
            #expect(try Data(contentsOf: URL(fileURLWithPath: target(scratch))) == before, "\(script)")
        }
    }
}
