import Testing
import TrapperCore
@testable import Web

/// The one conversion from the page as the browser shows it to the edit script's space, on
/// rotated and cropped pages.
@Suite struct ShownPageTests {
    let media = [0.0, 0, 600, 800]

    @Test func anUnturnedUncroppedPageOnlyFlipsY() {
        let page = ShownPage(mediaBox: media, cropBox: media, rotation: 0)
        #expect(page.width == 600 && page.height == 800)
        #expect(page.script(Point(10, 20)) == Point(10, 780))
    }

    @Test func aCropMovesTheCornerTheBrowserMeasuresFrom() {
        let page = ShownPage(mediaBox: media, cropBox: [100, 200, 500, 700], rotation: 0)
        #expect(page.width == 400 && page.height == 500)
        // The crop's top-left corner is user (100, 700); the script measures from the media box's corner.
        #expect(page.script(Point(0, 0)) == Point(100, 700))
        #expect(page.user(Point(400, 500)) == Point(500, 200))
    }

    @Test func aTurnedPageIsMeasuredAsShown() {
        // /Rotate 90: the page shows 800 wide and 600 high; its top-left corner is user (0, 0).
        let page = ShownPage(mediaBox: media, cropBox: media, rotation: 90)
        #expect(page.width == 800 && page.height == 600)
        #expect(page.user(Point(0, 0)) == Point(0, 0))
        #expect(page.user(Point(800, 0)) == Point(0, 800))
        #expect(page.user(Point(0, 600)) == Point(600, 0))
        // Shown space with y up: the browser's top-left corner is at the top of the script's page.
        #expect(page.script(Point(0, 0)) == Point(0, 600))
    }

    @Test func aTurnedCroppedPageRoundTripsAnnotationRects() {
        for rotation in [0, 90, 180, 270] {
            let page = ShownPage(mediaBox: media, cropBox: [50, 60, 550, 760], rotation: rotation)
            let browserBox = Rect(x0: 30, y0: 40, x1: 130, y1: 90)
            let user = Rect(page.user(Point(30, 40)), page.user(Point(130, 90)))
            #expect(page.browser(user: user) == browserBox, "rotation \(rotation)")
        }
    }
}
