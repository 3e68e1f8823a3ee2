import Foundation
import TestSupport
import Testing

/// `reframe`: a page `find_page` cut from a phone photo is cut again along corners a person gives,
/// from the photo the file keeps, so that a crop that went wrong (or a page of a photo in which no
/// sheet was found) can be redone, and redone again. Checked from outside: pdfinfo's page size, a
/// render against the page as drawn, the readers, pdftotext, and the bytes after undo.
@Suite struct ReframeTests {
    let photoTests = FindPageTests()

    /// The scene's corners (pixels) as a script's `corners`: fractions of the photo, y down.
    func fractions(_ corners: [[Double]], width: Double, height: Double) -> String {
        "[" + corners.map { "[\(($0[0] + 0.5) / width), \(($0[1] + 0.5) / height)]" }.joined(separator: ", ") + "]"
    }

    func reframe(_ scratch: Scratch, corners: String, page: Int = 1) throws -> Run {
        _ = try scratch.write("reframe.toml", """
            target = "Out.pdf"
            [[edit]]
            op = "reframe"
            page = \(page)
            corners = \(corners)

            """)
        return try Binary.run(["apply", "--config", "config.toml", "reframe.toml"], in: scratch.url)
    }

    static let whole = "[[0, 0], [1, 0], [1, 1], [0, 1]]"

    /// A photo kept as a JPEG's own bytes, and one kept as samples under Flate (a PNG).
    @Test(arguments: ["jpg", "png"])
    func aPageIsCutAgainFromItsPhotoAsOftenAsAsked(_ format: String) throws {
        let scratch = try photoTests.world()
        let corners = try PhotoScenes.make(scratch.path + "/scene.jpg", ["angle": 8, "tilt": 22, "shadow": true, "size": [2000, 1500]])
        let photo = "photo." + format
        if format == "png" {
            _ = try PDFReaders.succeeded("convert", [scratch.path + "/scene.jpg", scratch.path + "/" + photo], hint: "imagemagick")
        } else {
            try FileManager.default.copyItem(atPath: scratch.path + "/scene.jpg", toPath: scratch.path + "/" + photo)
        }
        #expect(try Binary.run(["ingest", "--config", "config.toml", photo], in: scratch.url).status == 0)
        let ingested = try Data(contentsOf: URL(fileURLWithPath: photoTests.out(scratch)))

        // The whole photo, table and all: only the kept photo can give that, not the page cut from it.
        var run = try reframe(scratch, corners: Self.whole)
        #expect(run.status == 0, "\(run.stderr)")
        let (width, height) = try photoTests.pageSize(photoTests.out(scratch))
        #expect(abs(width - 480) < 1 && abs(height - 360) < 1, "2000 x 1500 pixels at 300 dpi: \(width) x \(height)")

        // And back to the sheet, along its true corners: the page as drawn, A4.
        run = try reframe(scratch, corners: fractions(corners, width: 2000, height: 1500))
        #expect(run.status == 0, "\(run.stderr)")
        let (sheetWidth, sheetHeight) = try photoTests.pageSize(photoTests.out(scratch))
        #expect(abs(sheetWidth - 595.3) < 1 && abs(sheetHeight - 841.9) < 1, "A4: \(sheetWidth) x \(sheetHeight)")
        let difference = try photoTests.difference(photoTests.out(scratch), scratch.path + "/scene.jpg.page.png")
        #expect(difference < 12, "the page cut again differs from the drawing by \(difference) on average")
        try PDFReaders.requireAllAgree(photoTests.out(scratch), pages: 1)
        let history = try Binary.run(["history", "library/Out.pdf"], in: scratch.url).stdout
        #expect(history.contains("page 1: cut again from its photo along the corners given: A4 sheet, perspective undone"),
                "\(history)")
        #expect(history.contains("cleaned (light evened out, paper whitened)"), "clean = \"auto\" is done again: \(history)")

        // Each cut is one revision: two undos give back the file as it was ingested, byte for byte.
        for _ in 0..<2 {
            #expect(try Binary.run(["undo", "--config", "config.toml", "library/Out.pdf"], in: scratch.url).status == 0)
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: photoTests.out(scratch))) == ingested)
    }

    /// A photo in which no sheet was found goes in whole and keeps itself once (the page's image is
    /// the photo), and can be cut by hand.
    @Test func aPhotoWithNoSheetFoundIsKeptOnceAndCutByHand() throws {
        let scratch = try photoTests.world("find_page = true")
        try PhotoScenes.make(scratch.path + "/table.jpg", ["sheet": false, "size": [1600, 1200]])
        #expect(try Binary.run(["ingest", "--config", "config.toml", "table.jpg"], in: scratch.url).status == 0)
        let size = try FileManager.default.attributesOfItem(atPath: photoTests.out(scratch))[.size] as! Int
        let photoSize = try FileManager.default.attributesOfItem(atPath: scratch.path + "/table.jpg")[.size] as! Int
        #expect(size < photoSize + 20_000, "the photo is in the file once: \(size) bytes for a \(photoSize)-byte photo")
        let run = try reframe(scratch, corners: "[[0.25, 0.1], [0.75, 0.1], [0.75, 0.9], [0.25, 0.9]]")
        #expect(run.status == 0, "\(run.stderr)")
        // 800 x 960 pixels of a 1600 x 1200 photo at 300 dpi (the default: the photo says none).
        let (width, height) = try photoTests.pageSize(photoTests.out(scratch))
        #expect(abs(width - 192) < 1 && abs(height - 230.4) < 1, "\(width) x \(height)")
        try PDFReaders.requireAllAgree(photoTests.out(scratch), pages: 1)
    }

    /// A sheet whose evidence falls short (the table right of it as white as the paper): the photo is
    /// left whole, the history says which test failed with its numbers, and the best candidate's
    /// corners are kept with the photo, where the crop dialog places its corners.
    @Test func aSheetNotFoundWithConfidenceKeepsItsBestCandidateForTheCropDialog() throws {
        let scratch = try photoTests.world("find_page = true")
        let drawn = try PhotoScenes.make(scratch.path + "/board.jpg", ["angle": 10, "tilt": 15, "size": [1600, 1200], "white_right": true])
        let run = try Binary.run(["ingest", "--config", "config.toml", "board.jpg"], in: scratch.url)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("board.jpg: find_page: no sheet found (no candidate is convincing: the best ("), "\(run.stdout)")
        #expect(run.stdout.contains("its right side showing an edge along"), "the weakest side named: \(run.stdout)")
        let text = try Python.run("""
            import sys, pypdf
            private = pypdf.PdfReader(sys.argv[1]).pages[0]["/PieceInfo"]["/PDFTrapper"]["/Private"]
            print(" ".join(str(float(v)) for v in list(private["/Corners"]) + list(private["/Suggested"])))
            """, [photoTests.out(scratch)])
        let numbers = text.split(separator: " ").compactMap { Double($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
        try #require(numbers.count == 16, "\(text)")
        #expect(Array(numbers[0..<8]) == [0, 0, 1, 0, 1, 1, 0, 1], "the page is the whole photo")
        // Its left corners on the sheet's (the sides there show an edge); its right ones on the sheet,
        // where the person drags them out to the sheet's right side (the browser test does).
        let suggested: [[Double]] = (0..<4).map { (index: Int) -> [Double] in
            let x: Double = numbers[8 + 2 * index] * 1600
            let y: Double = numbers[9 + 2 * index] * 1200
            return [x, y]
        }
        for index in [0, 3] {
            let (found, corner) = (suggested[index], drawn[index])
            let (dx, dy): (Double, Double) = (abs(found[0] - corner[0]), abs(found[1] - corner[1]))
            #expect(dx < 20 && dy < 20, "suggested corner \(index) at \(found); the sheet's at \(corner)")
        }
        #expect(suggested.allSatisfy { FindPageTests.inside($0, drawn) }, "the suggestion \(suggested) lies on the sheet \(drawn)")
    }

    /// A bowed sheet's page was cut along the curves of its sides (FindPageTests): cut again at its
    /// own corners (the crop dialog confirmed unchanged) it follows them again and comes out as
    /// drawn; cut at other corners, straight sides, and the curves are no longer kept.
    @Test func aBowedPageCutAgainAtItsOwnCornersFollowsItsCurves() throws {
        let scratch = try photoTests.world()
        try PhotoScenes.make(scratch.path + "/photo.jpg", ["bow": 0.03, "angle": 5, "tilt": 15, "size": [2000, 1500]])
        #expect(try Binary.run(["ingest", "--config", "config.toml", "photo.jpg"], in: scratch.url).status == 0)
        func outlinePoints() throws -> Int {
            Int(try Python.run("""
                import sys, pypdf
                private = pypdf.PdfReader(sys.argv[1]).pages[0]["/PieceInfo"]["/PDFTrapper"]["/Private"]
                print(len(private.get("/Outline", [])))
                """, [photoTests.out(scratch)]).trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
        }
        #expect(try outlinePoints() == 4 * 17 * 2, "four sides of 17 points kept with the photo")
        let own = try photoTests.cutCorners(photoTests.out(scratch))
        var run = try reframe(scratch, corners: "[" + own.map { "[\($0[0]), \($0[1])]" }.joined(separator: ", ") + "]")
        #expect(run.status == 0, "\(run.stderr)")
        let history = try Binary.run(["history", "library/Out.pdf"], in: scratch.url).stdout
        #expect(history.contains("page 1: cut again from its photo along the corners given and its sides' curves"), "\(history)")
        let difference = try photoTests.difference(photoTests.out(scratch), scratch.path + "/photo.jpg.page.png")
        #expect(difference < 14, "the page cut again differs from the drawing by \(difference) on average")
        #expect(try outlinePoints() == 4 * 17 * 2)
        run = try reframe(scratch, corners: Self.whole)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try outlinePoints() == 0, "the curves belonged to the corners moved")
        try PDFReaders.requireAllAgree(photoTests.out(scratch), pages: 1)
    }

    /// A page that keeps no photo (it did not go through find_page) is refused with the reason,
    /// and the file is not touched.
    @Test func aPageWithoutAKeptPhotoIsRefusedWithTheReason() throws {
        let scratch = try photoTests.world("deskew = true")
        try PhotoScenes.make(scratch.path + "/photo.jpg", ["angle": 5, "tilt": 10, "size": [1200, 900]])
        #expect(try Binary.run(["ingest", "--config", "config.toml", "photo.jpg"], in: scratch.url).status == 0)
        let before = try Data(contentsOf: URL(fileURLWithPath: photoTests.out(scratch)))
        let run = try reframe(scratch, corners: Self.whole)
        #expect(run.status != 0)
        #expect(run.stderr.contains("reframe: page 1: the page keeps no photo to cut it from (only a page made by find_page does)"),
                "\(run.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: photoTests.out(scratch))) == before)
        let page2 = try reframe(scratch, corners: Self.whole, page: 2)
        #expect(page2.stderr.contains("page 2 of a 1-page document"), "\(page2.stderr)")
    }

    /// The text layer goes with the old picture, and the page cut again is read again.
    @Test func aPageCutAgainIsReadByOCRAgain() throws {
        let scratch = try photoTests.world("find_page = true\nclean = \"auto\"\nocr = \"eng\"")
        let corners = try PhotoScenes.make(scratch.path + "/photo.jpg", ["angle": -10, "tilt": 15, "size": [2400, 1800]])
        #expect(try Binary.run(["ingest", "--config", "config.toml", "photo.jpg"], in: scratch.url).status == 0)
        func text() throws -> String { try PDFReaders.succeeded("pdftotext", [photoTests.out(scratch), "-"], hint: "poppler-utils").text }
        #expect(try Binary.run(["ocr", "--queued", "--config", "config.toml"], in: scratch.url).status == 0)
        let read = try text()
        #expect(read.contains("Invoice 2026-118"), "\(read)")
        let run = try reframe(scratch, corners: fractions(corners, width: 2400, height: 1800))
        #expect(run.status == 0, "\(run.stderr)")
        let cut = try text()
        #expect(!cut.contains("Invoice"), "the old text layer is gone with the old picture: \(cut)")
        #expect(try Binary.run(["ocr", "--queued", "--config", "config.toml"], in: scratch.url).status == 0)
        let readAgain = try text()
        #expect(readAgain.contains("Invoice 2026-118"), "read again: \(readAgain)")
        try PDFReaders.requireAllAgree(photoTests.out(scratch), pages: 1)
    }
}
