import Foundation
import TestSupport
import Testing

/// `pdftrapper preview` and `history --thumbnails`, checked against poppler's own pdftoppm.
@Suite struct PreviewTests {
    /// A target of two revisions: a colour photo-like page, then a wider page appended.
    func world() throws -> Scratch {
        let scratch = try Scratch()
        try TestImages.make(scratch.path + "/a.png", width: 300, height: 400, options: "dpi=(72, 72)")
        try TestImages.make(scratch.path + "/b.png", mode: "L", width: 500, height: 200, options: "dpi=(72, 72)")
        for input in ["a.png", "b.png"] {
            let run = try Binary.run(["ingest", "--to", "T.pdf", "--state-dir", "state", input], in: scratch.url)
            try #require(run.status == 0, "\(run)")
        }
        return scratch
    }

    /// Width, height and the mean difference per channel (0-255) of two PNG or PPM files.
    func compare(_ ours: String, _ theirs: String) throws -> (size: String, theirSize: String, difference: Double) {
        let out = try Python.run("""
            import sys
            from PIL import Image, ImageChops, ImageStat
            a, b = Image.open(sys.argv[1]).convert("RGB"), Image.open(sys.argv[2]).convert("RGB")
            d = sum(ImageStat.Stat(ImageChops.difference(a, b)).mean) / 3 if a.size == b.size else 255
            print(f"{a.width}x{a.height} {b.width}x{b.height} {d:.3f}")
            """, [ours, theirs]).split(separator: " ").map(String.init)
        return (out[0], out[1], Double(out[2].trimmingCharacters(in: .whitespacesAndNewlines)) ?? 255)
    }

    @Test func aPageRendersLikePdftoppm() throws {
        let scratch = try world()
        let run = try Binary.run(["preview", "T.pdf", "--page", "2", "--dpi", "150", "--out", "p2.png"], in: scratch.url)
        #expect(run.status == 0, "\(run)")
        #expect(run.stdout.contains("p2.png: page 2 of T.pdf at 150 dpi"), "\(run.stdout)")
        _ = try PDFReaders.succeeded("pdftoppm", ["-r", "150", "-f", "2", "-l", "2", "-png", "-singlefile",
                                                  scratch.path + "/T.pdf", scratch.path + "/reference"])
        let seen = try compare(scratch.path + "/p2.png", scratch.path + "/reference.png")
        #expect(seen.size == "1042x417" && seen.size == seen.theirSize, "\(seen)")
        #expect(seen.difference < 2, "mean difference \(seen.difference) from pdftoppm")
    }

    @Test func aRevisionShowsThePageAsItWasThen() throws {
        let scratch = try world()
        // Revision 1 had one page; asking for page 2 of it is a usage error.
        let early = try Binary.run(["preview", "T.pdf", "--revision", "1", "--page", "2"], in: scratch.url)
        #expect(early.status == 64, "\(early)")
        #expect(early.stderr.contains("--page 2: a number from 1 to 1"), "\(early.stderr)")
        let first = try Binary.run(["preview", "T.pdf", "--revision", "1"], in: scratch.url)
        #expect(first.status == 0 && FileManager.default.fileExists(atPath: scratch.path + "/T-p1-r1.png"), "\(first)")
        _ = try PDFReaders.succeeded("pdftoppm", ["-r", "100", "-f", "1", "-l", "1", "-png", "-singlefile",
                                                  scratch.path + "/T.pdf", scratch.path + "/reference"])
        #expect(try compare(scratch.path + "/T-p1-r1.png", scratch.path + "/reference.png").difference < 2)
        #expect(try Binary.run(["preview", "T.pdf", "--revision", "3"], in: scratch.url).status == 64)
        #expect(try Binary.run(["preview", "Missing.pdf"], in: scratch.url).status == 66)
    }

    @Test func historyWritesAThumbnailPerRevision() throws {
        let scratch = try world()
        let run = try Binary.run(["history", "T.pdf", "--thumbnails", "thumbs"], in: scratch.url)
        #expect(run.status == 0, "\(run)")
        #expect(run.stdout.contains("thumbs: 2 thumbnails"), "\(run.stdout)")
        let sizes = try Python.run("""
            import sys
            from PIL import Image
            print(" ".join("%dx%d" % Image.open(f"{sys.argv[1]}/revision-{n}.png").size for n in (1, 2)))
            """, [scratch.path + "/thumbs"]).trimmingCharacters(in: .whitespacesAndNewlines)
        // Revision 1 shows its page (300 x 400 pt), revision 2 the page it added (500 x 200 pt).
        #expect(sizes == "120x160 160x64", "\(sizes)")
    }
}
