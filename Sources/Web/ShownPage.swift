import TrapperCore

/// The one place where the workspace's coordinates meet PDF's. The browser measures a page as it
/// shows it: poppler's picture of the crop box with the page's /Rotate applied, in points, y down
/// from the top-left corner. Edit scripts measure the page as shown from the media box's corner,
/// y up (`PageFrame`); annotations and poppler's text boxes come back in user space or in the
/// browser's own terms. Every conversion between them is here, and only here.
struct ShownPage: Sendable, Equatable {
    var mediaBox: [Double]
    var cropBox: [Double]
    var rotation: Int

    /// The picture's frame: the crop box turned as shown.
    private var cropFrame: PageFrame { PageFrame(mediaBox: cropBox, rotation: rotation) }
    /// The script's frame: the media box turned as shown.
    private var mediaFrame: PageFrame { PageFrame(mediaBox: mediaBox, rotation: rotation) }

    /// The page's size in the browser, in points.
    var width: Double { cropFrame.shownWidth }
    var height: Double { cropFrame.shownHeight }

    /// A browser point (points, y down from the picture's corner) in user space.
    func user(_ point: Point) -> Point {
        cropFrame.toUser(Point(point.x, cropFrame.shownHeight - point.y))
    }

    /// A browser point as an edit script with `origin = "bottom-left"` and `units = "pt"` writes it.
    func script(_ point: Point) -> Point {
        mediaFrame.toShown(user(point))
    }

    /// A browser box [x0, y0, x1, y1] as a script box.
    func script(_ box: Rect) -> Rect {
        Rect(script(Point(box.x0, box.y0)), script(Point(box.x1, box.y1)))
    }

    /// A point in user space as the browser sees it.
    func browser(user point: Point) -> Point {
        let a = cropFrame.toShown(point)
        return Point(a.x, cropFrame.shownHeight - a.y)
    }

    /// A rectangle in user space (an annotation's /Rect) as the browser sees it.
    func browser(user rect: Rect) -> Rect {
        let a = cropFrame.toShown(Point(rect.x0, rect.y0)), b = cropFrame.toShown(Point(rect.x1, rect.y1))
        return Rect(Point(a.x, cropFrame.shownHeight - a.y), Point(b.x, cropFrame.shownHeight - b.y))
    }
}
