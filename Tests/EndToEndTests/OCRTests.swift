import Foundation
import TestSupport
import Testing

/// OCR with tesseract: `pdftrapper ocr` and the daemon's queue, checked with pdftotext (the words
/// are found, and found where the picture shows them) and the history (capture first, text later).
@Suite struct OCRTests {
    func world(rule: String = "ocr = [\"eng\"]") throws -> Scratch {
        let scratch = try Scratch()
        try scratch.write("config.toml", TestConfig.folders() + """
            [[rule]]
            name = "paper"
            target = "Paper.pdf"
            \(rule)

            """)
        for folder in ["library", "inbox"] {
            try FileManager.default.createDirectory(atPath: scratch.path + "/" + folder, withIntermediateDirectories: true)
        }
        return scratch
    }

    /// The share of the page's words (with their repeats) that pdftotext finds in the PDF's text.
    func wordsFound(_ pdf: String, truth: String) throws -> Double {
        let text = try PDFReaders.run("pdftotext", [pdf, "-"]).text
        var found = [String: Int]()
        for word in text.lowercased().split(whereSeparator: { !$0.isLetter }) { found[String(word), default: 0] += 1 }
        let expected = truth.lowercased().split(whereSeparator: { !$0.isLetter }).map(String.init)
        var hits = 0
        for word in expected where (found[word] ?? 0) > 0 {
            found[word]! -= 1
            hits += 1
        }
        return Double(hits) / Double(max(1, expected.count))
    }

    func history(_ scratch: Scratch) throws -> [String] {
        try Binary.run(["history", "library/Paper.pdf"], in: scratch.url).stdout.split(separator: "\n").map(String.init)
    }

    @Test func aPictureOfTextBecomesSearchableWithTheWordsWhereTheyStand() throws {
        let scratch = try world()
        try TextPages.make(scratch.path + "/page.jpg", quarterTurn: 0)
        #expect(try Binary.run(["ingest", "--to", "library/Paper.pdf", "page.jpg"], in: scratch.url).status == 0)
        let before = try Data(contentsOf: URL(fileURLWithPath: scratch.path + "/library/Paper.pdf"))
        let run = try Binary.run(["ocr", "library/Paper.pdf", "--config", "config.toml"], in: scratch.url)
        #expect(run.status == 0, "\(run.stderr)")
        let pdf = scratch.path + "/library/Paper.pdf"
        let truth = try String(contentsOfFile: scratch.path + "/page.jpg.txt", encoding: .utf8)
        let share = try wordsFound(pdf, truth: truth)
        #expect(share >= 0.95, "pdftotext finds \(Int(share * 100))% of the words")
        try PDFReaders.requireAllAgree(pdf, pages: 1)
        let after = try Data(contentsOf: URL(fileURLWithPath: pdf))
        #expect(after.prefix(before.count) == before, "a revision of its own; the picture is untouched")
        #expect(try history(scratch).last?.contains("ocr") == true)

        // Each word's box, as pdftotext -bbox reads the layer, lies on ink in the picture.
        let onInk = try Python.run("""
            import io, re, subprocess, sys
            from PIL import Image
            pdf = sys.argv[1]
            html = subprocess.run(["pdftotext", "-bbox", pdf, "-"], check=True, capture_output=True, text=True).stdout
            boxes = [tuple(float(v) for v in m) for m in re.findall(r'xMin="([\\d.]+)" yMin="([\\d.]+)" xMax="([\\d.]+)" yMax="([\\d.]+)"', html)]
            words = boxes
            ppm = subprocess.run(["pdftoppm", "-r", "72", "-gray", pdf], check=True, capture_output=True).stdout
            im = Image.open(io.BytesIO(ppm)).convert("L")
            def inked(b):
                x0, y0, x1, y1 = (int(round(v)) for v in b)
                region = im.crop((x0, y0, max(x1, x0 + 1), max(y1, y0 + 1)))
                return sum(1 for v in region.getdata() if v < 128) >= 2
            first = words[0]
            print(len(words), sum(1 for b in words if inked(b)), round(first[0], 1), round(first[1], 1))
            """, [pdf]).split(separator: " ").compactMap { Double($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
        try #require(onInk.count == 4)
        #expect(onInk[1] >= onInk[0] * 0.97, "\(Int(onInk[1])) of \(Int(onInk[0])) word boxes lie on ink")
        // The first line is drawn from x = 0.8 in (57.6 pt), its text from 1.3 in (93.6 pt) below the top.
        #expect(abs(onInk[2] - 57.6) < 3 && onInk[3] > 92 && onInk[3] < 102, "first word at \(onInk[2]), \(onInk[3])")

        // Pages with text are left alone: a second run writes nothing.
        let again = try Binary.run(["ocr", "library/Paper.pdf", "--config", "config.toml"], in: scratch.url)
        #expect(again.status == 0 && again.stdout.contains("1 skipped"), "\(again.stdout)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: pdf)) == after)
    }

    @Test func theDaemonCapturesFirstAndAddsTheTextLayerAsALaterRevision() throws {
        let scratch = try world()
        let daemon = try DaemonProcess(config: scratch.path + "/config.toml", in: scratch.url)
        #expect(daemon.notify.wait(for: "READY=1"), "log: \(daemon.log)")
        try TextPages.make(scratch.path + "/sideways.jpg", quarterTurn: 90)
        try FileManager.default.moveItem(atPath: scratch.path + "/sideways.jpg", toPath: scratch.path + "/inbox/sideways.jpg")
        // The page is in the target, searchable or not yet, before OCR ends: one revision, the ingest.
        #expect(eventually { (try? history(scratch))?.count == 1 }, "\(daemon.log)")
        let first = try history(scratch)
        #expect(first.count == 1 && first[0].contains("ingest"), "\(first)")
        #expect(eventually(timeout: 120) { (try? history(scratch))?.count == 2 }, "\(daemon.log)")
        #expect(try history(scratch)[1].contains("ocr"))
        #expect(eventually { daemon.log.contains("OCR of 1 page") }, "\(daemon.log)")
        #expect(daemon.stop() == 0)
        // A sideways photo is read too: the rule turns nothing, so OCR reads the picture upright by itself.
        let truth = try String(contentsOfFile: scratch.path + "/sideways.jpg.txt", encoding: .utf8)
        let share = try wordsFound(scratch.path + "/library/Paper.pdf", truth: truth)
        #expect(share >= 0.95, "pdftotext finds \(Int(share * 100))% of the words")
    }

    @Test func queuedOCRSurvivesAKilledDaemonAndTheLayerIsWrittenOnce() throws {
        let scratch = try world(rule: "ocr = [\"eng\"]\norient = true")
        try TextPages.make(scratch.path + "/page.jpg")
        // Queued by a one-off ingest, as when the daemon dies right after a capture.
        let ingest = try Binary.run(["ingest", "--config", "config.toml", "page.jpg"], in: scratch.url)
        #expect(ingest.status == 0 && ingest.stdout.contains("OCR (eng) queued"), "\(ingest.stdout)")
        var daemon = try DaemonProcess(config: scratch.path + "/config.toml", in: scratch.url)
        #expect(daemon.notify.wait(for: "READY=1"), "log: \(daemon.log)")
        // Killed while it reads the page.
        usleep(700_000)
        daemon.signal(SIGKILL)
        _ = daemon.stop()
        daemon = try DaemonProcess(config: scratch.path + "/config.toml", in: scratch.url)
        #expect(eventually(timeout: 120) { (try? history(scratch))?.count == 2 }, "\(daemon.log)")
        #expect(daemon.stop() == 0)
        let queue = (try? FileManager.default.contentsOfDirectory(atPath: scratch.path + "/library/.pdftrapper/ocr")) ?? []
        #expect(queue.isEmpty, "\(queue)")
        let truth = try String(contentsOfFile: scratch.path + "/page.jpg.txt", encoding: .utf8)
        let text = try PDFReaders.run("pdftotext", [scratch.path + "/library/Paper.pdf", "-"]).text
        let words = text.split(whereSeparator: { !$0.isLetter }).count
        let expected = truth.split(whereSeparator: { !$0.isLetter }).count
        #expect(Double(words) < Double(expected) * 1.1, "one text layer, not two: \(words) words for \(expected)")
        #expect(try wordsFound(scratch.path + "/library/Paper.pdf", truth: truth) >= 0.95)
    }

    @Test func aPDFWithTextIsLeftAloneAndOneOfPicturesIsRead() throws {
        let scratch = try world()
        let words = (0..<8).map { _ in "Quarterly report of the office with figures" }
        try TextPDF.make(scratch.path + "/text.pdf", width: 595, height: 842,
                         lines: words.enumerated().map { (50, 780 - 20 * $0.offset, 12, $0.element) })
        try TextPages.make(scratch.path + "/page.jpg")
        #expect(try Binary.run(["ingest", "--to", "pictures.pdf", "page.jpg"], in: scratch.url).status == 0)
        let ingest = try Binary.run(["ingest", "--config", "config.toml", "text.pdf", "pictures.pdf"], in: scratch.url)
        #expect(ingest.status == 0, "\(ingest.stderr)")
        let run = try Binary.run(["ocr", "--queued", "--config", "config.toml"], in: scratch.url)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("OCR of 0 pages, 0 words, 1 skipped"), "the PDF with text: \(run.stdout)")
        #expect(run.stdout.contains("OCR of 1 page"), "the PDF of a picture: \(run.stdout)")
        let truth = try String(contentsOfFile: scratch.path + "/page.jpg.txt", encoding: .utf8)
        #expect(try wordsFound(scratch.path + "/library/Paper.pdf", truth: truth) >= 0.95)
    }

    @Test func aLanguageWithoutDataIsAClearRefusal() throws {
        let scratch = try world()
        try TextPages.make(scratch.path + "/page.jpg")
        #expect(try Binary.run(["ingest", "--to", "library/Paper.pdf", "page.jpg"], in: scratch.url).status == 0)
        let run = try Binary.run(["ocr", "library/Paper.pdf", "--lang", "xyz", "--config", "config.toml"], in: scratch.url)
        #expect(run.status == 69)
        #expect(run.stderr.contains("no data for language \"xyz\""), "\(run.stderr)")
    }
}
