import Foundation
import TestSupport
import Testing

/// A rule's page steps (deskew, orientation, blank pages, bilevel) on pictures of text pages,
/// through `pdftrapper ingest` and the daemon, checked from outside: renders, pypdf, pdfimages.
@Suite struct PageStepsTests {
    func world(_ steps: String) throws -> Scratch {
        let scratch = try Scratch()
        try scratch.write("config.toml", TestConfig.folders() + """
            [[rule]]
            name = "scans"
            target = "Out.pdf"
            \(steps)

            """)
        return scratch
    }

    func ingest(_ scratch: Scratch, _ files: [String]) throws -> Run {
        try Binary.run(["ingest", "--config", "config.toml"] + files, in: scratch.url)
    }

    var out: (Scratch) -> String { { $0.path + "/library/Out.pdf" } }

    /// Each page's /Rotate, as pypdf reads it.
    func rotations(_ path: String) throws -> [Int] {
        try Python.run("""
            import sys, pypdf
            print(" ".join(str(p.get("/Rotate", 0)) for p in pypdf.PdfReader(sys.argv[1]).pages))
            """, [path]).split(separator: " ").compactMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
    }

    /// pdfimages' encoding of each image ("jpeg", "ccitt", ...).
    func encodings(_ path: String) throws -> [String] {
        let listed = try PDFReaders.run("pdfimages", ["-list", path]).text
        return listed.split(separator: "\n").dropFirst(2).map { String($0.split(separator: " ", omittingEmptySubsequences: true)[8]) }
    }

    @Test(arguments: [2.5, -1.7, 4.0])
    func skewedPagesComeOutStraight(degrees: Double) throws {
        let scratch = try world("deskew = true")
        try TextPages.make(scratch.path + "/skewed.jpg", skew: degrees)
        let before = try Scratch()
        try TextPages.make(before.path + "/a.jpg", skew: degrees)
        let plain = try Binary.run(["ingest", "--to", before.path + "/plain.pdf", before.path + "/a.jpg"], in: before.url)
        try #require(plain.status == 0, "\(plain.stderr)")
        #expect(abs(try TextPages.ruleSlant(before.path + "/plain.pdf") - degrees) < 0.3, "the measure itself")

        let run = try ingest(scratch, ["skewed.jpg"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("deskewed by"), "\(run.stdout)")
        #expect(run.stdout.contains("encoded again as JPEG"), "said in the log: \(run.stdout)")
        let slant = try TextPages.ruleSlant(out(scratch))
        #expect(abs(slant) < 0.2, "within 0.2° of straight, not \(slant)°")
        #expect(try encodings(out(scratch)) == ["jpeg"])
        try PDFReaders.requireAllAgree(out(scratch), pages: 1)
        let history = try Binary.run(["history", "library/Out.pdf"], in: scratch.url)
        #expect(history.stdout.contains("deskewed by"), "\(history.stdout)")
    }

    @Test func aStraightJPEGGoesInUntouched() throws {
        let scratch = try world("deskew = true")
        try TextPages.make(scratch.path + "/straight.jpg")
        let run = try ingest(scratch, ["straight.jpg"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(!run.stdout.contains("deskewed"), "\(run.stdout)")
        let original = try Data(contentsOf: URL(fileURLWithPath: scratch.path + "/straight.jpg"))
        let pdf = try Data(contentsOf: URL(fileURLWithPath: out(scratch)))
        #expect(pdf.range(of: original) != nil, "the JPEG's bytes are in the PDF as they were")
    }

    @Test func sidewaysAndUpsideDownPagesGetTheirRotate() throws {
        let scratch = try world("orient = true")
        for turn in [0, 90, 180, 270] { try TextPages.make(scratch.path + "/t\(turn).jpg", quarterTurn: turn) }
        let files = ["t0.jpg", "t90.jpg", "t180.jpg", "t270.jpg"]
        let originals = try files.map { try Data(contentsOf: URL(fileURLWithPath: scratch.path + "/" + $0)) }
        let run = try ingest(scratch, files)
        #expect(run.status == 0, "\(run.stderr)")
        // Pillow turns counterclockwise; /Rotate turns the page back clockwise.
        #expect(try rotations(out(scratch)) == [0, 90, 180, 270])
        let pdf = try Data(contentsOf: URL(fileURLWithPath: out(scratch)))
        #expect(originals.allSatisfy { pdf.range(of: $0) != nil }, "turned with /Rotate, never encoded again")
        // Shown upright: every page renders portrait with the rule at the top.
        for page in 1...4 {
            #expect(abs(try TextPages.ruleSlant(out(scratch), page: page)) < 0.3, "page \(page)")
        }
        let sizes = try Python.run("""
            import sys, pypdf
            for p in pypdf.PdfReader(sys.argv[1]).pages:
                box = p.mediabox
                w, h = float(box.width), float(box.height)
                print("portrait" if (h > w) == (p.get("/Rotate", 0) % 180 == 0) else "landscape")
            """, [out(scratch)])
        #expect(sizes.split(separator: "\n") == ["portrait", "portrait", "portrait", "portrait"])
    }

    @Test func noisyBlankPagesAreDroppedAndAOneLinePageIsKept() throws {
        let scratch = try world("blank = \"drop\"")
        try TextPages.make(scratch.path + "/batch.tiff", pages: ["text", "noisy-blank", "one-line", "noisy-blank"])
        let run = try ingest(scratch, ["batch.tiff"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try PDFReaders.pdfinfoPages(out(scratch)) == 2)
        #expect(run.stdout.contains("2 blank pages dropped"), "\(run.stdout)")
        let history = try Binary.run(["history", "library/Out.pdf"], in: scratch.url)
        #expect(history.stdout.contains("2 blank pages dropped"), "\(history.stdout)")
        // The kept pages are the text page and the one-line page, in that order: by their ink.
        let ink = try Python.run("""
            import io, subprocess, sys
            from PIL import Image
            for page in (1, 2):
                ppm = subprocess.run(["pdftoppm", "-r", "50", "-gray", "-f", str(page), "-l", str(page), sys.argv[1]],
                                     check=True, capture_output=True).stdout
                im = Image.open(io.BytesIO(ppm)).convert("L")
                print(sum(1 for v in im.getdata() if v < 128))
            """, [out(scratch)]).split(separator: "\n").compactMap { Int($0) }
        #expect(ink.count == 2 && ink[0] > 10 * ink[1] && ink[1] > 0, "\(ink)")
    }

    @Test func aWhollyBlankInputIsQuarantinedWithTheReasonWhileTheDaemonGoesOn() throws {
        let scratch = try world("blank = \"drop\"")
        try FileManager.default.createDirectory(atPath: scratch.path + "/inbox", withIntermediateDirectories: true)
        let daemon = try DaemonProcess(config: scratch.path + "/config.toml", in: scratch.url)
        #expect(daemon.notify.wait(for: "READY=1"), "log: \(daemon.log)")
        try TextPages.make(scratch.path + "/blank.jpg", pages: ["noisy-blank"])
        try TextPages.make(scratch.path + "/text.jpg")
        try FileManager.default.moveItem(atPath: scratch.path + "/blank.jpg", toPath: scratch.path + "/inbox/blank.jpg")
        try FileManager.default.moveItem(atPath: scratch.path + "/text.jpg", toPath: scratch.path + "/inbox/text.jpg")
        #expect(eventually { (try? PDFReaders.pdfinfoPages(out(scratch))) == 1 }, "\(daemon.log)")
        #expect(eventually { daemon.log.contains("blank.jpg: quarantined: the page is blank") }, "\(daemon.log)")
        let notes = try FileManager.default.subpathsOfDirectory(atPath: scratch.path + "/quarantine")
        #expect(notes.contains { $0.hasSuffix("blank.jpg") }, "\(notes)")
        #expect(daemon.stop() == 0)
    }

    @Test func textPagesBecomeBilevelG4AndRenderLikeTheOriginal() throws {
        let scratch = try world("compress = \"auto\"")
        try TextPages.make(scratch.path + "/text.jpg")
        _ = try Python.run("""
            import sys
            from PIL import Image, ImageDraw
            im = Image.new("RGB", (1654, 2338), "white")
            d = ImageDraw.Draw(im)
            for i in range(20):
                d.ellipse([50 + i * 60, 300 + i * 50, 400 + i * 60, 700 + i * 50], fill=(i * 12, 100, 200 - i * 8))
            im.save(sys.argv[1], quality=85, dpi=(200, 200))
            """, [scratch.path + "/photo.jpg"])
        let run = try ingest(scratch, ["text.jpg", "photo.jpg"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try encodings(out(scratch)) == ["ccitt", "jpeg"], "text as G4, the photo as it was")
        let jpegBytes = try FileManager.default.attributesOfItem(atPath: scratch.path + "/text.jpg")[.size] as! Int
        let sizes = try PDFReaders.run("pdfimages", ["-list", out(scratch)]).text.split(separator: "\n")[2]
        let g4Size = String(sizes.split(separator: " ", omittingEmptySubsequences: true)[14])
        #expect(g4Size.hasSuffix("K") && Double(g4Size.dropLast())! * 1024 * 5 < Double(jpegBytes),
                "G4 \(g4Size) against the JPEG's \(jpegBytes) bytes")
        // Rendered at 50 dpi, the G4 page and the original JPEG differ by little on average.
        let plain = try Binary.run(["ingest", "--to", "plain.pdf", "text.jpg"], in: scratch.url)
        try #require(plain.status == 0)
        let difference = try Python.run("""
            import io, subprocess, sys
            from PIL import Image, ImageChops, ImageStat
            def render(path):
                ppm = subprocess.run(["pdftoppm", "-r", "50", "-gray", "-f", "1", "-l", "1", path], check=True, capture_output=True).stdout
                return Image.open(io.BytesIO(ppm)).convert("L")
            print(ImageStat.Stat(ImageChops.difference(render(sys.argv[1]), render(sys.argv[2]))).mean[0])
            """, [out(scratch), scratch.path + "/plain.pdf"])
        #expect(Double(difference.trimmingCharacters(in: .whitespacesAndNewlines))! < 8, "mean difference \(difference)")
        try PDFReaders.requireAllAgree(out(scratch), pages: 2)
    }
}

/// `[limits]`: what one input or script may cost, refused with the reason and the key to change.
@Suite struct LimitsTests {
    @Test func inputsOverTheConfiguredLimitsAreRefusedWithTheKey() throws {
        let scratch = try Scratch()
        try scratch.write("config.toml", TestConfig.folders() + """
            [[rule]]
            name = "all"
            target = "All.pdf"
            [limits]
            max_pixels = 10000
            max_pages = 2
            max_input_size = "2MB"
            max_script_size = "100B"

            """)
        try TestImages.make(scratch.path + "/big.png", width: 200, height: 100)
        try TestImages.make(scratch.path + "/small.png", width: 50, height: 50)
        _ = try Python.run("""
            import sys
            from PIL import Image
            pages = [Image.new("L", (40, 40), 255) for _ in range(3)]
            pages[0].save(sys.argv[1], save_all=True, append_images=pages[1:])
            """, [scratch.path + "/three.tiff"])
        let pixels = try Binary.run(["ingest", "--config", "config.toml", "big.png"], in: scratch.url)
        #expect(pixels.status == 65)
        #expect(pixels.stderr.contains("200 x 100 pixels, over the limit of 0.01 megapixels (limits.max_pixels)"), "\(pixels.stderr)")
        let pages = try Binary.run(["ingest", "--config", "config.toml", "three.tiff"], in: scratch.url)
        #expect(pages.status == 65)
        #expect(pages.stderr.contains("3 pages, more than limits.max_pages = 2"), "\(pages.stderr)")
        #expect(try Binary.run(["ingest", "--config", "config.toml", "small.png"], in: scratch.url).status == 0)
        try scratch.write("long.toml", "target = \"All.pdf\"\n[[edit]]\nop = \"metadata\"\ntitle = \"" + String(repeating: "x", count: 200) + "\"\n")
        let script = try Binary.run(["apply", "--config", "config.toml", "long.toml"], in: scratch.url)
        #expect(script.status == 65)
        #expect(script.stderr.contains("an edit script may have at most 100 bytes (limits.max_script_size)"), "\(script.stderr)")
        try scratch.write("bad.toml", TestConfig.folders() + "[limits]\nmax_pixels = 0\nmax_script_size = \"65MiB\"\nmax_pagse = 3\n")
        let check = try Binary.run(["check-config", "bad.toml"], in: scratch.url)
        #expect(check.status == 78)
        #expect(check.stderr.contains("limits.max_pixels must be an integer from 1 to 4000000000"), "\(check.stderr)")
        #expect(check.stderr.contains("limits.max_script_size can be at most 64MiB"), "\(check.stderr)")
        #expect(check.stderr.contains("did you mean \"max_pages\""), "\(check.stderr)")
    }
}

extension PageStepsTests {
    @Test func aDeskewedPNGStaysLossless() throws {
        let scratch = try world("deskew = true")
        try TextPages.make(scratch.path + "/skewed.png", skew: 2)
        let run = try ingest(scratch, ["skewed.png"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("encoded again losslessly (PNG)"), "\(run.stdout)")
        #expect(try encodings(out(scratch)) == ["image"], "Flate, not JPEG")
        #expect(abs(try TextPages.ruleSlant(out(scratch))) < 0.2)
    }
}

/// The same page steps on phone photos (HEIC, AVIF, WebP), which are decoded before the steps and
/// stored as JPEG at quality 90 (or as the rule says).
@Suite struct PhotoPageStepsTests {
    let steps = PageStepsTests()

    /// A text page drawn by TextPages (at 200 dpi), then encoded by the format's own encoder, its
    /// EXIF saying 200 dpi (the steps look at text at its size on paper).
    func photo(_ scratch: Scratch, _ name: String, skew: Double = 0, quarterTurn: Int = 0) throws {
        try TextPages.make(scratch.path + "/source.png", skew: skew, quarterTurn: quarterTurn)
        try PhotoMaker.encode(scratch.path + "/source.png", to: scratch.path + "/" + name, quality: 92, dpi: 200)
    }

    @Test(arguments: ["skewed.heic", "skewed.avif", "skewed.webp"])
    func aSkewedPhotoComesOutStraightAsAJPEG(_ name: String) throws {
        let scratch = try steps.world("deskew = true")
        try photo(scratch, name, skew: 2.5)
        let run = try steps.ingest(scratch, [name])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("deskewed by") && run.stdout.contains("encoded again as JPEG (quality 90)"), "\(run.stdout)")
        #expect(abs(try TextPages.ruleSlant(steps.out(scratch))) < 0.2)
        #expect(try steps.encodings(steps.out(scratch)) == ["jpeg"])
        try PDFReaders.requireAllAgree(steps.out(scratch), pages: 1)
        let format = ["heic": "HEIC", "avif": "AVIF", "webp": "WebP"][(name as NSString).pathExtension]!
        let history = try Binary.run(["history", "library/Out.pdf"], in: scratch.url).stdout
        #expect(history.contains("\(format) stored as JPEG (quality 90)") && history.contains("deskewed by"), "\(history)")
    }

    @Test func aSidewaysPhotoGetsItsRotateAndBilevelMakesItG4() throws {
        let scratch = try steps.world("orient = true\ncompress = \"bilevel\"")
        try photo(scratch, "t90.heic", quarterTurn: 90)
        try photo(scratch, "t270.webp", quarterTurn: 270)
        let run = try steps.ingest(scratch, ["t90.heic", "t270.webp"])
        #expect(run.status == 0, "\(run.stderr)")
        let rotations = try steps.rotations(steps.out(scratch))
        #expect(rotations == [90, 270], "\(run.stdout)")
        #expect(try steps.encodings(steps.out(scratch)) == ["ccitt", "ccitt"])
        for page in 1...2 { #expect(abs(try TextPages.ruleSlant(steps.out(scratch), page: page)) < 0.3, "page \(page)") }
        try PDFReaders.requireAllAgree(steps.out(scratch), pages: 2)
    }

    @Test func jpegQualityAndLosslessAreTheRulesToSay() throws {
        let scratch = try steps.world("jpeg_quality = 60")
        try photo(scratch, "page.heic")
        let run = try steps.ingest(scratch, ["page.heic"])
        #expect(run.status == 0, "\(run.stderr)")
        let lossless = try steps.world("compress = \"lossless\"")
        try photo(lossless, "page.heic")
        #expect(try steps.ingest(lossless, ["page.heic"]).status == 0)
        #expect(try steps.encodings(steps.out(scratch)) == ["jpeg"])
        #expect(try steps.encodings(steps.out(lossless)) == ["image"], "Flate: pdfimages says image")
        let histories = try [scratch, lossless].map { try Binary.run(["history", "library/Out.pdf"], in: $0.url).stdout }
        #expect(histories[0].contains("HEIC stored as JPEG (quality 60)"), "\(histories[0])")
        #expect(histories[1].contains("HEIC stored losslessly (Flate)"), "\(histories[1])")
        try PDFReaders.requireAllAgree(steps.out(lossless), pages: 1)
    }
}
