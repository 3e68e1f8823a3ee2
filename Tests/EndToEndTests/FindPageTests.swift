import Foundation
import TestSupport
import Testing

/// `find_page` and `clean = "auto"`: phone photos of a page on a table (made here, warped in
/// perspective by ImageMagick, turned up to 30 degrees, with a shadow and uneven light) become
/// pages of the sheet alone, with its proportions, looking like the page, its text read by OCR.
/// Checked from outside: pdfinfo's page size, a render against the page as drawn, tesseract.
@Suite struct FindPageTests {
    /// A rule with these steps into library/Out.pdf (the page steps tests' world).
    func world(_ steps: String = "find_page = true\nclean = \"auto\"") throws -> Scratch { try PageStepsTests().world(steps) }

    var out: (Scratch) -> String { PageStepsTests().out }

    /// The page as rendered (poppler, grey) against the page as drawn, both at the drawing's size
    /// and blurred a little (the photo's own blur): the mean difference, 0 to 255.
    func difference(_ pdf: String, _ page: String) throws -> Double {
        let text = try Python.run("""
            import subprocess, sys
            from PIL import Image, ImageChops, ImageFilter, ImageStat
            page = Image.open(sys.argv[2]).convert("L")
            subprocess.run(["pdftoppm", "-r", "150", "-gray", "-singlefile", "-png", sys.argv[1], sys.argv[1] + ".render"], check=True)
            shown = Image.open(sys.argv[1] + ".render.png").convert("L").resize(page.size, Image.BILINEAR)
            blur = ImageFilter.GaussianBlur(2)
            print(ImageStat.Stat(ImageChops.difference(shown.filter(blur), page.filter(blur))).mean[0])
            """, [pdf, page])
        return Double(text.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 999
    }

    func pageSize(_ pdf: String) throws -> (Double, Double) {
        let info = try PDFReaders.succeeded("pdfinfo", [pdf], hint: "poppler-utils").text
        let match = try #require(info.firstMatch(of: #/Page size:\s+([0-9.]+) x ([0-9.]+) pts/#))
        return (Double(match.1)!, Double(match.2)!)
    }

    static var scenes: [(String, [String: Any])] { [
        ("A4 square on, wood", ["angle": 0, "tilt": 0, "size": [1600, 1200]]),
        ("A4 tilted, wood, shadow", ["angle": 8, "tilt": 22, "shadow": true, "size": [2000, 1500]]),
        ("A4 turned 30, cloth, shadow", ["angle": -30, "tilt": 15, "shadow": true, "table": "cloth", "size": [2000, 1500]]),
        ("A4 in a portrait photo", ["angle": 20, "tilt": 25, "size": [1500, 2000]]),
        ("Letter, cloth", ["paper": [215.9, 279.4], "angle": 12, "tilt": 18, "table": "cloth", "size": [2000, 1500]]),
        ("receipt 80 x 200 mm", ["paper": [80, 200], "angle": -15, "tilt": 12, "shadow": true, "size": [1500, 2000]]),
    ] }

    @Test(arguments: scenes.indices)
    func aPhotoOfASheetBecomesThePageItself(_ index: Int) throws {
        let (name, spec) = Self.scenes[index]
        let scratch = try world()
        try PhotoScenes.make(scratch.path + "/photo.jpg", spec)
        let run = try Binary.run(["ingest", "--config", "config.toml", "photo.jpg"], in: scratch.url)
        #expect(run.status == 0, "\(name): \(run.stderr)")
        try PDFReaders.requireAllAgree(out(scratch), pages: 1)
        let paper = (spec["paper"] as? [NSNumber])?.map(\.doubleValue) ?? [210, 297]
        let (width, height) = try pageSize(out(scratch))
        let shape = (height / width) / (paper[1] / paper[0])
        #expect(abs(shape - 1) < 0.02, "\(name): the page is \(width) x \(height) pt, its shape \(shape) of the paper's")
        if paper[0] == 210 {
            // Snapped to A4: A4's own size.
            #expect(abs(width - 595.3) < 3 && abs(height - 841.9) < 3, "\(name): \(width) x \(height)")
            #expect(run.stdout.contains("find_page: A4 sheet found"), "\(name): \(run.stdout)")
        }
        let difference = try difference(out(scratch), scratch.path + "/photo.jpg.page.png")
        #expect(difference < 12, "\(name): the page differs from the drawing by \(difference) on average")
        let history = try Binary.run(["history", "library/Out.pdf"], in: scratch.url).stdout
        #expect(history.contains("perspective undone and cropped") && history.contains("cleaned"), "\(history)")
    }

    @Test func theTextOfAPhotographedLetterIsReadByOCR() throws {
        let scratch = try world()
        try PhotoScenes.make(scratch.path + "/photo.jpg", ["angle": -20, "tilt": 20, "shadow": true, "size": [2400, 1800]])
        #expect(try Binary.run(["ingest", "--config", "config.toml", "photo.jpg"], in: scratch.url).status == 0)
        _ = try PDFReaders.succeeded("pdftoppm", ["-r", "150", "-gray", "-singlefile", "-png", out(scratch), scratch.path + "/page"],
                                     hint: "poppler-utils")
        let text = try PDFReaders.succeeded("tesseract", [scratch.path + "/page.png", "-"], hint: "tesseract-ocr").text
        #expect(text.contains("Invoice 2026-118"), "\(text)")
        let lines = text.split(separator: "\n").filter { $0.contains("quick brown fox") }
        #expect(lines.count >= 4, "tesseract read: \(text)")
    }

    @Test func anIPhonesHEICOfALetterBecomesTheLetterToo() throws {
        let scratch = try world()
        try PhotoScenes.make(scratch.path + "/scene.jpg", ["angle": 10, "tilt": 18, "shadow": true, "size": [2000, 1500]])
        try PhotoMaker.encode(scratch.path + "/scene.jpg", to: scratch.path + "/IMG_0042.heic", quality: 90, dpi: 72)
        let run = try Binary.run(["ingest", "--config", "config.toml", "IMG_0042.heic"], in: scratch.url)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("HEIC stored as JPEG (quality 90)") && run.stdout.contains("find_page: A4 sheet found"),
                "\(run.stdout)")
        let (width, height) = try pageSize(out(scratch))
        #expect(abs(width - 595.3) < 1 && abs(height - 841.9) < 1, "A4, whatever the phone's 72 dpi says: \(width) x \(height)")
        #expect(try difference(out(scratch), scratch.path + "/scene.jpg.page.png") < 12)
        try PDFReaders.requireAllAgree(out(scratch), pages: 1)
    }

    @Test func aFlatScanIsNeverCroppedAndAPhotoWithoutASheetIsLeftAsItIs() throws {
        let scratch = try world("find_page = true")
        try PhotoScenes.make(scratch.path + "/scan.jpg", ["flat": true])
        try PhotoScenes.make(scratch.path + "/table.jpg", ["sheet": false, "size": [1600, 1200]])
        let run = try Binary.run(["ingest", "--config", "config.toml", "scan.jpg", "table.jpg"], in: scratch.url)
        #expect(run.status == 0, "\(run.stderr)")
        try PDFReaders.requireAllAgree(out(scratch), pages: 2)
        let pdf = try Data(contentsOf: URL(fileURLWithPath: out(scratch)))
        for name in ["scan.jpg", "table.jpg"] {
            let original = try Data(contentsOf: URL(fileURLWithPath: scratch.path + "/" + name))
            #expect(pdf.range(of: original) != nil, "\(name) went in as it was, byte for byte")
        }
        #expect(!run.stdout.contains("scan.jpg: find_page"), "nothing said of the scan: \(run.stdout)")
        #expect(run.stdout.contains("table.jpg: find_page: no sheet found"), "\(run.stdout)")
        let history = try Binary.run(["history", "library/Out.pdf"], in: scratch.url).stdout
        #expect(history.contains("no sheet found") && history.contains("the photo is left as it is"), "\(history)")
    }
}
