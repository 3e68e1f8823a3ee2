import Testing
@testable import TrapperCore

/// The page frame's arithmetic and the annotation builder's dictionaries, without a file.
@Suite struct AnnotationBuilderTests {
    let a4 = [0.0, 0, 595, 842]

    @Test(arguments: [0, 90, 180, 270])
    func shownSpaceRoundTripsThroughUserSpace(rotation: Int) {
        let frame = PageFrame(mediaBox: [10, 20, 610, 820], rotation: rotation)
        for point in [Point(0, 0), Point(15, 400), Point(frame.shownWidth, frame.shownHeight)] {
            let back = frame.toShown(frame.toUser(point))
            #expect(abs(back.x - point.x) < 1e-9 && abs(back.y - point.y) < 1e-9, "\(rotation): \(point) → \(back)")
        }
        // The shown page covers exactly the media box.
        #expect(frame.toUser(frame.shownPage) == Rect(x0: 10, y0: 20, x1: 610, y1: 820))
    }

    @Test func aPageTurnedClockwiseShowsItsBottomLeftCornerAtTheTopLeft() {
        let frame = PageFrame(mediaBox: a4, rotation: 90, origin: .topLeft)
        #expect(frame.shownWidth == 842 && frame.shownHeight == 595)
        #expect(frame.toUser(frame.shown(ScriptPoint(0, 0))) == Point(0, 0))
        #expect(frame.toUser(frame.shown(ScriptPoint(842, 0))) == Point(0, 842))
    }

    @Test func unitsAndTheTopLeftOrigin() {
        let frame = PageFrame(mediaBox: a4, rotation: 0, units: .mm, origin: .topLeft)
        let box = frame.shown(ScriptBox(10, 10, 20, 30))
        #expect(abs(box.x0 - 28.3465) < 1e-3 && abs(box.y1 - (842 - 28.3465)) < 1e-3 && abs(box.y0 - (842 - 85.0394)) < 1e-3)
    }

    @Test func textMarkupCarriesQuadPointsInReadingOrder() throws {
        let markup = Markup(page: 1, shape: .text(.highlight, .rects([ScriptBox(10, 20, 110, 32)])), color: RGBColor(1, 1, 0))
        let drafts = try AnnotationBuilder.annotations(markup, frame: PageFrame(mediaBox: a4, rotation: 0), id: { "pdftrapper-x" })
        #expect(drafts.count == 1)
        let dictionary = drafts[0].dictionary
        #expect(dictionary["Subtype"] == .name("Highlight"))
        #expect(dictionary["QuadPoints"] == [10, 32, 110, 32, 10, 20, 110, 20])
        #expect(dictionary["F"] == 4)
        #expect(drafts[0].id == "pdftrapper-x")
        // Multiply, so the words under a highlight stay black.
        let state = drafts[0].appearance.resources["ExtGState"]?.dictionaryValue?["GS0"]?.dictionaryValue
        #expect(state?["BM"] == .name("Multiply"))
    }

    @Test func markOutsideThePageIsRefused() {
        let markup = Markup(page: 1, shape: .rect(box: ScriptBox(500, 800, 600, 850), fill: nil, width: 2), color: .black)
        #expect(throws: MarkupError.self) {
            try AnnotationBuilder.annotations(markup, frame: PageFrame(mediaBox: a4, rotation: 0))
        }
    }

    @Test func textWrapsAtSpacesAndBreaksWordsOnlyWhenTheyAreTooLong() {
        // "aaaa" in 10 pt Helvetica is 4 × 5.56 = 22.24 pt.
        #expect(HelveticaText.wrap("aaaa aaaa aaaa", size: 10, width: 50).map { String(decoding: $0, as: UTF8.self) }
                == ["aaaa aaaa", "aaaa"])
        #expect(HelveticaText.wrap("aaaaaaaaaaaa", size: 10, width: 30).map(\.count) == [5, 5, 2])
        #expect(HelveticaText.wrap("one\ntwo", size: 10, width: 300).count == 2)
        #expect(HelveticaText.encode("€ café ✓") == [0x80, 0x20, 0x63, 0x61, 0x66, 0xE9, 0x20, 0x3F])
    }

    @Test func aSignatureKeepsItsAspectRatioCentredInTheBox() throws {
        let placement = SignaturePlacement(page: 1, name: "s", box: ScriptBox(0, 0, 200, 200))
        let art = SignatureArt.ink(strokes: [[Point(0, 0), Point(100, 50)]], width: 0.001, color: .black)
        let draft = try AnnotationBuilder.signature(placement, art: art, frame: PageFrame(mediaBox: a4, rotation: 0))
        let rect = (draft.dictionary["Rect"]?.arrayValue ?? []).compactMap { $0.numberValue }
        try #require(rect.count == 4)
        #expect(abs(rect[0]) < 0.01 && abs(rect[1] - 50) < 0.01 && abs(rect[2] - 200) < 0.01 && abs(rect[3] - 150) < 0.01, "\(rect)")
    }
}
