import Foundation
import TestSupport
import Testing

/// `op = "change"`: an annotation already saved, moved, resized, turned, recoloured or given new
/// words, in place. Checked from outside: pypdf reads the dictionaries (same object, same /NM, the
/// other keys kept), three renderers show the pixels, every reader opens the file, and undo gives
/// back the bytes.
@Suite struct AnnotationChangeTests {
    let markup = MarkupScriptTests()

    /// Page 1's annotations as pypdf reads them: object number, subtype, rect, and the keys given.
    func objects(_ path: String, keys: [String] = []) throws -> [[String: String]] {
        let out = try Python.run("""
            import json, sys, pypdf
            page = pypdf.PdfReader(sys.argv[1]).pages[0]
            result = []
            for ref in page.get("/Annots", []):
                a = ref.get_object()
                item = {"object": str(ref.idnum), "subtype": a["/Subtype"],
                        "rect": " ".join("%g" % round(float(x)) for x in a["/Rect"])}
                for key in sys.argv[2:]:
                    if key in a: item[key] = str(a[key])
                result.append(item)
            print(json.dumps(result))
            """, [path] + keys)
        return try JSONDecoder().decode([[String: String]].self, from: Data(out.utf8))
    }

    func ids(_ scratch: Scratch) throws -> [String] {
        let listed = try Binary.run(["annotations", "library/T.pdf", "--json"], in: scratch.url)
        let list = try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as! [[String: Any]]
        return list.map { $0["id"] as! String }
    }

    @Test func ourOwnMarksMoveResizeRecolourAndTakeNewWordsInPlace() throws {
        let scratch = try markup.world()
        try scratch.write("signatures/initials.toml", "width = 4\ncolor = \"#0000cc\"\nstrokes = [[[0, 0], [100, 100]], [[0, 100], [100, 0]]]\n")
        let made = try markup.apply(scratch, """
            target = "T.pdf"
            [[edit]]
            op = "ink"
            page = 1
            strokes = [[[20, 20], [60, 60]]]
            width = 6
            [[edit]]
            op = "rect"
            page = 1
            box = [300, 200, 380, 280]
            author = "Ann"
            [[edit]]
            op = "textbox"
            page = 1
            box = [200, 230, 295, 290]
            text = "Paid"
            [[edit]]
            op = "signature"
            page = 1
            name = "initials"
            box = [300, 20, 360, 80]
            """)
        #expect(made.status == 0, "\(made.stderr)")
        let before = try Data(contentsOf: URL(fileURLWithPath: markup.target(scratch)))
        let objectsBefore = try objects(markup.target(scratch), keys: ["/NM", "/T", "/CreationDate"])
        let listed = try ids(scratch)
        #expect(listed.count == 4)

        let run = try markup.apply(scratch, """
            target = "T.pdf"
            [[edit]]
            op = "change"
            page = 1
            id = "\(listed[0])"
            move = [100, 150]
            color = "#00aa00"
            [[edit]]
            op = "change"
            page = 1
            id = "\(listed[1])"
            box = [20, 120, 100, 160]
            color = "#0000ff"
            width = 4
            [[edit]]
            op = "change"
            page = 1
            id = "\(listed[2])"
            text = "Paid in full on the third of December, thank you"
            size = 14
            [[edit]]
            op = "change"
            page = 1
            id = "\(listed[3])"
            rotate = 45
            """)
        #expect(run.status == 0, "\(run.stderr)")
        let after = try Data(contentsOf: URL(fileURLWithPath: markup.target(scratch)))
        #expect(after.prefix(before.count) == before, "one incremental update: the old bytes stay")
        #expect(try ids(scratch) == listed, "each keeps its id and its place")
        let objectsAfter = try objects(markup.target(scratch), keys: ["/NM", "/T", "/CreationDate", "/Contents", "/DA"])
        #expect(objectsAfter.map { $0["object"] } == objectsBefore.map { $0["object"] }, "rewritten under their own numbers")
        for (old, new) in zip(objectsBefore, objectsAfter) {
            #expect(new["/NM"] == old["/NM"] && new["/CreationDate"] == old["/CreationDate"], "\(new)")
        }
        #expect(objectsAfter[1]["/T"] == "Ann", "the author stays")
        #expect(objectsAfter[1]["rect"] == "20 120 100 160")
        #expect(objectsAfter[2]["/Contents"] == "Paid in full on the third of December, thank you")
        #expect(objectsAfter[2]["/DA"]?.contains("/Helv 14 Tf") == true, "\(objectsAfter[2])")
        let stampRect = objectsAfter[3]["rect"]!.split(separator: " ").compactMap { Double($0) }
        // 60 pt square turned 45°: its bounds are 60·√2 ≈ 85 pt across, about the same centre (330, 50).
        #expect(abs(stampRect[2] - stampRect[0] - 85) < 2 && abs((stampRect[0] + stampRect[2]) / 2 - 330) < 1, "\(stampRect)")
        try PDFReaders.requireAllAgree(markup.target(scratch), pages: 1)

        // Shown from the top-left at 72 dpi: y = 300 - PDF y.
        let pixels = try TextPDF.pixels(markup.target(scratch), at: [
            (140, 300 - 190), (40, 300 - 40),           // the ink: moved by (100, 150), now green; gone from where it was
            (20 + 2, 300 - 140), (340, 300 - 240),      // the rect's left edge at its new place, blue; nothing at its old place
            (330, 300 - 50 - 30), (330 - 21, 300 - 50 + 21), // the stamp turned: its strokes now upright and level through the centre
        ])
        markup.expectColor(pixels, 0, (0, 170, 0), "the moved ink, recoloured")
        markup.expectColor(pixels, 1, (255, 255, 255), tolerance: 10, "where the ink was")
        markup.expectColor(pixels, 2, (0, 0, 255), "the rect's new outline")
        markup.expectColor(pixels, 3, (255, 255, 255), tolerance: 10, "where the rect was")
        markup.expectColor(pixels, 4, (0, 0, 204), tolerance: 90, "the initials' stroke turned upright")
        markup.expectColor(pixels, 5, (255, 255, 255), tolerance: 10, "where a diagonal stroke of the initials was")

        let undo = try Binary.run(["undo", "library/T.pdf"], in: scratch.url)
        #expect(undo.status == 0, "\(undo.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: markup.target(scratch))) == before, "undo gives back the exact bytes")
    }

    /// Annotations made by another program (mupdf, through its own scripting), with a key of its own.
    @Test func anotherProgramsAnnotationKeepsItsOtherKeys() throws {
        let scratch = try markup.world()
        let script = scratch.path + "/annotate.js"
        try """
            var doc = new PDFDocument(scriptArgs[0]);
            var page = doc.loadPage(0);
            var box = page.createAnnotation("Square");
            box.setRect([50, 50, 150, 120]);
            box.setColor([0, 0, 1]);
            box.setBorder(3);
            box.setAuthor("mupdf user");
            box.setContents("a blue box");
            box.update();
            box.getObject().put("PTOtherKey", "kept");
            var stamp = page.createAnnotation("Stamp");
            stamp.setRect([250, 200, 370, 260]);
            stamp.setIcon("Approved");
            stamp.update();
            doc.save(scriptArgs[1], "");
            """.write(toFile: script, atomically: true, encoding: .utf8)
        let made = try PDFReaders.run("mutool", ["run", script, markup.target(scratch), scratch.path + "/elsewhere.pdf"], hint: "apt-get install mupdf-tools")
        #expect(made.status == 0, "\(made.stderr)")
        try FileManager.default.removeItem(atPath: markup.target(scratch))
        try FileManager.default.copyItem(atPath: scratch.path + "/elsewhere.pdf", toPath: markup.target(scratch))
        let before = try Data(contentsOf: URL(fileURLWithPath: markup.target(scratch)))
        let keys = ["/T", "/Contents", "/PTOtherKey", "/F", "/Name"]
        let original = try objects(markup.target(scratch), keys: keys)
        #expect(original.map { $0["subtype"] } == ["/Square", "/Stamp"], "\(original)")
        let listed = try ids(scratch)

        let run = try markup.apply(scratch, """
            target = "T.pdf"
            [[edit]]
            op = "change"
            page = 1
            id = "\(listed[0])"
            move = [200, 0]
            color = "red"
            [[edit]]
            op = "change"
            page = 1
            id = "\(listed[1])"
            box = [20, 20, 140, 80]
            rotate = 90
            opacity = 0.5
            """)
        #expect(run.status == 0, "\(run.stderr)")
        let changed = try objects(markup.target(scratch), keys: keys)
        #expect(changed.map { $0["object"] } == original.map { $0["object"] })
        for key in keys { #expect(changed[0][key] == original[0][key], "\(key) stays: \(changed[0])") }
        #expect(changed[1]["/Name"] == original[1]["/Name"], "the stamp keeps its name")
        #expect(try ids(scratch) == listed)
        try PDFReaders.requireAllAgree(markup.target(scratch), pages: 1)
        let undo = try Binary.run(["undo", "library/T.pdf"], in: scratch.url)
        #expect(undo.status == 0, "\(undo.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: markup.target(scratch))) == before)
    }

    @Test func aCopyIsANewAnnotationAndTheOriginalStays() throws {
        let scratch = try markup.world()
        let made = try markup.apply(scratch, "target = \"T.pdf\"\n[[edit]]\nop = \"oval\"\npage = 1\nbox = [20, 20, 80, 60]\nfill = \"#00ff00\"\n")
        #expect(made.status == 0, "\(made.stderr)")
        let original = try ids(scratch)
        let run = try markup.apply(scratch, "target = \"T.pdf\"\n[[edit]]\nop = \"change\"\npage = 1\nid = \"\(original[0])\"\ncopy = true\nmove = [200, 0]\n")
        #expect(run.status == 0, "\(run.stderr)")
        let now = try ids(scratch)
        #expect(now.count == 2 && now[0] == original[0] && now[1] != original[0] && now[1].hasPrefix("pdftrapper-"), "\(now)")
        let pixels = try TextPDF.pixels(markup.target(scratch), at: [(50, 300 - 40), (250, 300 - 40)])
        markup.expectColor(pixels, 0, (0, 255, 0), "the original")
        markup.expectColor(pixels, 1, (0, 255, 0), "the copy, 200 pt to the right")
    }

    /// A star (what the workspace makes of a star drawn and held): /Polygon with its /Vertices, filled and outlined.
    @Test func aPolygonIsDrawnAndChangedLikeTheOthers() throws {
        let scratch = try markup.world()
        let made = try markup.apply(scratch, """
            target = "T.pdf"
            [[edit]]
            op = "polygon"
            page = 1
            points = "100 150 112 185 150 185 119 207 131 243 100 221 69 243 81 207 50 185 88 185"
            color = "#0000ff"
            fill = "#ffff00"
            """)
        #expect(made.status == 0, "\(made.stderr)")
        let found = try objects(markup.target(scratch), keys: ["/Vertices", "/IC"])
        #expect(found.map { $0["subtype"] } == ["/Polygon"])
        #expect(found[0]["/Vertices"]?.split(separator: ",").count == 20, "\(found)")
        try PDFReaders.requireAllAgree(markup.target(scratch), pages: 1)
        var pixels = try TextPDF.pixels(markup.target(scratch), at: [(100, 300 - 200), (30, 300 - 200)])
        markup.expectColor(pixels, 0, (255, 255, 0), "the star's yellow middle")
        markup.expectColor(pixels, 1, (255, 255, 255), tolerance: 10, "outside it")
        let moved = try markup.apply(scratch, "target = \"T.pdf\"\n[[edit]]\nop = \"change\"\npage = 1\nid = \"\(try ids(scratch)[0])\"\nmove = [200, 0]\n")
        #expect(moved.status == 0, "\(moved.stderr)")
        pixels = try TextPDF.pixels(markup.target(scratch), at: [(300, 300 - 200), (100, 300 - 200)])
        markup.expectColor(pixels, 0, (255, 255, 0), "the star moved 200 pt right")
        markup.expectColor(pixels, 1, (255, 255, 255), tolerance: 10, "where it was")
        let refused = try markup.apply(scratch, "target = \"T.pdf\"\n[[edit]]\nop = \"polygon\"\npage = 1\npoints = [[1, 1], [2, 2]]\n")
        #expect(refused.status != 0 && refused.stderr.contains("must have from 3 to 10000 corners, not 2"), "\(refused.stderr)")
    }

    @Test func aChangeThatCannotBeMadeLeavesTheTargetAsItWas() throws {
        let scratch = try markup.world()
        try scratch.write("signatures/me.toml", "strokes = [[[0, 0], [30, 20], [60, 0]]]\n")
        let made = try markup.apply(scratch, """
            target = "T.pdf"
            [[edit]]
            op = "ink"
            page = 1
            strokes = [[[20, 20], [60, 60]]]
            [[edit]]
            op = "signature"
            page = 1
            name = "me"
            box = [300, 20, 360, 80]
            """)
        #expect(made.status == 0, "\(made.stderr)")
        let (ink, stamp) = try { let l = try ids(scratch); return (l[0], l[1]) }()
        let before = try Data(contentsOf: URL(fileURLWithPath: markup.target(scratch)))
        let cases: [(script: String, reason: String)] = [
            ("id = \"pdftrapper-nope\"\ncolor = \"red\"\n", "no annotation has the id \"pdftrapper-nope\""),
            ("id = \"\(ink)\"\nrotate = 90\n", "only a stamp or signature turns"),
            ("id = \"\(stamp)\"\ncolor = \"red\"\n", "a stamp or signature keeps its own colours"),
            ("id = \"\(ink)\"\nmove = [500, 0]\n", "the changed annotation reaches outside the page"),
            ("id = \"\(ink)\"\n", "changes nothing"),
            ("id = \"\(ink)\"\nbox = [0, 0, 10, 10]\nmove = [1, 1]\n", "takes box (where the annotation goes) or move"),
        ]
        for (script, reason) in cases {
            let run = try markup.apply(scratch, "target = \"T.pdf\"\n[[edit]]\nop = \"change\"\npage = 1\n" + script)
            #expect(run.status != 0 && run.stderr.contains(reason), "\(script): \(run.stderr)")
            #expect(try Data(contentsOf: URL(fileURLWithPath: markup.target(scratch))) == before, "\(script)")
        }
    }
}
