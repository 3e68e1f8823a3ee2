import Foundation
import TestSupport
import Testing

/// `op = "loupe"`: a round window showing the page under it larger, as Notes' loupe does. Checked
/// from outside: inside its circle, poppler's and mupdf's renders of the page at 72 dpi show what
/// the page alone shows at 72 × zoom dpi around the same centre.
@Suite struct LoupeTests {
    let markup = MarkupScriptTests()

    @Test func theLoupeShowsThePageUnderItMagnified() throws {
        let scratch = try markup.world()
        let original = scratch.path + "/original.pdf"
        try FileManager.default.copyItem(atPath: markup.target(scratch), toPath: original)
        // Centred on "Invoice 2026" (20 pt Helvetica at (50, 200)), twice as large.
        let run = try markup.apply(scratch, """
            target = "T.pdf"
            [[edit]]
            op = "loupe"
            page = 1
            at = [100, 207]
            radius = 40
            zoom = 2
            """)
        #expect(run.status == 0, "\(run.stderr)")
        let listed = try Binary.run(["annotations", "library/T.pdf", "--json"], in: scratch.url)
        let list = try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as! [[String: Any]]
        #expect(list.map { $0["kind"] as? String } == ["Stamp"])
        #expect((list.first?["contents"] as? String)?.hasPrefix("Loupe") == true)
        try PDFReaders.requireAllAgree(markup.target(scratch), pages: 1)

        // Mean difference per channel inside the circle (its rim left out), for each renderer:
        // against the page at 144 dpi shifted by the centre (what a 2× loupe shows), and against
        // the page at 72 dpi (what was there before).
        try expectMagnified(scratch, original: original, centre: (100, 300 - 207))

        // Moved 100 points down (onto "Total due"), it shows the page where it now is.
        let id = list.first?["id"] as! String
        let moved = try markup.apply(scratch, "target = \"T.pdf\"\n[[edit]]\nop = \"change\"\npage = 1\nid = \"\(id)\"\nmove = [0, -100]\n")
        #expect(moved.status == 0, "\(moved.stderr)")
        try expectMagnified(scratch, original: original, centre: (100, 300 - 107))
    }

    func expectMagnified(_ scratch: Scratch, original: String, centre: (Int, Int), sourceLocation: SourceLocation = #_sourceLocation) throws {
        let out = try Python.run("""
            import subprocess, sys, tempfile, os
            from PIL import Image, ImageChops
            after, original = sys.argv[1], sys.argv[2]
            def render(tool, path, dpi):
                d = tempfile.mkdtemp()
                if tool == "poppler":
                    subprocess.run(["pdftoppm", "-r", str(dpi), "-png", "-singlefile", path, d + "/p"], check=True)
                else:
                    subprocess.run(["mutool", "draw", "-q", "-r", str(dpi), "-o", d + "/p.png", path, "1"], check=True, capture_output=True)
                return Image.open(d + "/p.png").convert("L")
            cx, cy = int(sys.argv[3]), int(sys.argv[4])
            for tool in ("poppler", "mupdf"):
                a, big, small = render(tool, after, 72), render(tool, original, 144), render(tool, original, 72)
                near = far = count = 0
                for y in range(cy - 34, cy + 35):
                    for x in range(cx - 34, cx + 35):
                        if (x - cx) ** 2 + (y - cy) ** 2 > 34 ** 2: continue
                        near += abs(a.getpixel((x, y)) - big.getpixel((x + cx, y + cy)))
                        far += abs(a.getpixel((x, y)) - small.getpixel((x, y)))
                        count += 1
                print(tool, round(near / count, 1), round(far / count, 1))
            """, [markup.target(scratch), original, String(centre.0), String(centre.1)])
        for line in out.split(separator: "\n") where !line.isEmpty {
            let parts = line.split(separator: " ")
            let (magnified, before) = (Double(parts[1])!, Double(parts[2])!)
            #expect(magnified < 12 && before > 3 * magnified, "\(parts[0]): inside the loupe, \(magnified) from the page at 2×, \(before) from the page as it was",
                    sourceLocation: sourceLocation)
        }
        #expect(out.split(separator: "\n").count == 2, "\(out)", sourceLocation: sourceLocation)
    }
}
