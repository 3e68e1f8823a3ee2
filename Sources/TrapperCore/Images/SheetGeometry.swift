import Foundation

/// The geometry of a sheet of paper in a photo of it: its four corners, and its own proportions with
/// the perspective taken out (Zhang and He, "Whiteboard scanning and image enhancement", 2007),
/// snapped to a paper size only when within 2 %. Finding the corners is Imaging's (`SheetFinder`,
/// over OpenCV); this is the arithmetic both it and a person's own corners (`reframe`) share.
public enum SheetGeometry {
    public struct Point: Sendable, Equatable {
        public var x: Double
        public var y: Double

        public init(_ x: Double, _ y: Double) {
            self.x = x
            self.y = y
        }

        public static func - (a: Point, b: Point) -> Point { Point(a.x - b.x, a.y - b.y) }
        public var length: Double { (x * x + y * y).squareRoot() }
    }

    /// The sheet's corners in the grey copy's pixels, clockwise from the top left.
    public struct Sheet: Sendable, Equatable {
        public var corners: [Point]
        /// Width over height of the sheet itself, perspective undone.
        public var aspect: Double
        /// The paper size it was snapped to ("A4"), if any.
        public var paper: Paper?
    }

    public struct Paper: Sendable, Equatable {
        public var name: String
        /// Millimetres, portrait.
        public var width: Double
        public var height: Double
    }

    /// The sizes a sheet is snapped to: ISO A (A3, A4 and A5 share one shape; the area in the photo
    /// cannot tell them apart, so A4), US Letter and Legal, and the cards people photograph: ID-1
    /// (bank, identity and membership cards), and business cards as Americans and Europeans cut them.
    public static let papers = [
        Paper(name: "A4", width: 210, height: 297), Paper(name: "Letter", width: 215.9, height: 279.4),
        Paper(name: "Legal", width: 215.9, height: 355.6), Paper(name: "ID-1 card", width: 53.98, height: 85.6),
        Paper(name: "business card (US)", width: 50.8, height: 88.9), Paper(name: "business card (EU)", width: 55, height: 85),
    ]

    /// The sheet whose photo is the quadrilateral `corners` (clockwise from the top left) in a
    /// `width` × `height` picture: its proportions with the perspective taken out, snapped to a
    /// paper size within 2 %. `focal35`: the camera's focal length as a 35 mm equivalent (EXIF
    /// FocalLengthIn35mmFilm), for a photo taken too squarely for the quadrilateral to tell.
    public static func sheet(corners: [Point], width: Int, height: Int, focal35: Double? = nil) -> Sheet {
        let measured = proportions(corners, width: width, height: height, focal35: focal35)
        var aspect = measured.aspect
        let paper = snapped(aspect)
        if let paper { aspect = aspect >= 1 ? paper.height / paper.width : paper.width / paper.height }
        return Sheet(corners: corners, aspect: aspect, paper: paper)
    }

    /// Four points in any order as a convex quadrilateral, clockwise on a picture (y down) from
    /// the corner nearest the top left; nil when they make no convex shape.
    public static func quadrilateral(_ points: [Point]) -> [Point]? {
        guard points.count == 4 else { return nil }
        let middle = Point(points.reduce(0) { $0 + $1.x } / 4, points.reduce(0) { $0 + $1.y } / 4)
        // With y down, a growing angle turns clockwise as the picture shows it.
        var around = points.sorted { atan2($0.y - middle.y, $0.x - middle.x) < atan2($1.y - middle.y, $1.x - middle.x) }
        let first = around.indices.min { around[$0].x + around[$0].y < around[$1].x + around[$1].y }!
        around = Array(around[first...] + around[..<first])
        return isConvex(around) ? around : nil
    }

    static func quadArea(_ corners: [Point]) -> Double {
        var twice = 0.0
        for i in 0..<4 {
            let a = corners[i], b = corners[(i + 1) % 4]
            twice += a.x * b.y - b.x * a.y
        }
        return abs(twice) / 2
    }

    static func isConvex(_ corners: [Point]) -> Bool {
        var sign = 0.0
        for i in 0..<4 {
            let a = corners[i], b = corners[(i + 1) % 4], c = corners[(i + 2) % 4]
            let cross = (b.x - a.x) * (c.y - b.y) - (b.y - a.y) * (c.x - b.x)
            if cross == 0 || (sign != 0 && (cross > 0) != (sign > 0)) { return false }
            sign = cross
        }
        return true
    }

    // MARK: Proportions

    /// How the focal length behind a sheet's proportions was known.
    public enum FocalLength: String, Sendable, Equatable {
        /// From the quadrilateral itself: its two vanishing points fix it.
        case measured
        /// From the photo's EXIF (35 mm equivalent), the view being too square-on to measure it.
        case exif
        /// A phone's main camera (26-28 mm equivalent), neither of the above being there.
        case typical
    }

    /// A phone's main camera as a 35 mm equivalent, when the photo says nothing.
    static let typicalFocal35 = 27.0

    /// Width over height of the rectangle whose photo is the quadrilateral `corners` (clockwise
    /// from the top left) in a `width` × `height` picture, its principal point at the centre.
    /// Zhang and He: the quadrilateral's two vanishing points give the camera's focal length, and
    /// with it the rectangle's shape. When the view is nearly square-on to a pair of sides, that
    /// vanishing point is far away and the focal length anything: then the EXIF focal length, or a
    /// phone's typical one, is used instead (the shape then depends on it only a little); and when
    /// the one measured is far from the one the photo states, the stated one.
    public static func proportions(_ corners: [Point], width: Int, height: Int, focal35: Double? = nil)
        -> (aspect: Double, focal: FocalLength)
    {
        let center = Point(Double(width) / 2, Double(height) / 2)
        let diagonal = (Double(width * width + height * height)).squareRoot()
        // Zhang and He's numbering: m1 top left, m2 top right, m3 bottom left, m4 bottom right.
        func homogeneous(_ p: Point) -> [Double] { [p.x - center.x, p.y - center.y, 1] }
        let (m1, m2, m3, m4) = (homogeneous(corners[0]), homogeneous(corners[1]), homogeneous(corners[3]), homogeneous(corners[2]))
        func cross(_ a: [Double], _ b: [Double]) -> [Double] {
            [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]]
        }
        func dot(_ a: [Double], _ b: [Double]) -> Double { a[0] * b[0] + a[1] * b[1] + a[2] * b[2] }
        let k2 = dot(cross(m1, m4), m3) / dot(cross(m2, m4), m3)
        let k3 = dot(cross(m1, m4), m2) / dot(cross(m3, m4), m2)
        let n2 = [k2 * m2[0] - m1[0], k2 * m2[1] - m1[1], k2 * m2[2] - m1[2]]
        let n3 = [k3 * m3[0] - m1[0], k3 * m3[1] - m1[1], k3 * m3[2] - m1[2]]
        guard [k2, k3].allSatisfy(\.isFinite) else {
            let sides = ((corners[1] - corners[0]).length + (corners[2] - corners[3]).length)
                / ((corners[3] - corners[0]).length + (corners[2] - corners[1]).length)
            return (sides, .typical)
        }
        // Each vanishing point must be near enough (its direction's z not lost in the noise of the
        // corners) for the focal length to be measured, and the result a lens a phone has.
        func near(_ n: [Double]) -> Bool { abs(n[2]) * diagonal > 0.05 * (n[0] * n[0] + n[1] * n[1]).squareRoot() }
        var focal: Double? = nil
        if near(n2), near(n3) {
            let squared = -(n2[0] * n3[0] + n2[1] * n3[1]) / (n2[2] * n3[2])
            if squared.isFinite, squared > 0, (0.3 * diagonal...3 * diagonal).contains(squared.squareRoot()) { focal = squared.squareRoot() }
        }
        // 43.27 mm: the diagonal of a 35 mm frame, which the equivalent focal length is relative to.
        let stated = focal35.map { $0 / 43.27 * diagonal }
        // The lens the camera states is checked against the one measured: a measurement more than a
        // quarter off it is noise in the corners (or the photo was cropped, and neither is sure), and
        // the camera's is taken.
        if let measured = focal, let stated, abs(measured / stated - 1) > 0.25 { focal = nil }
        let how: FocalLength = focal != nil ? .measured : stated != nil ? .exif : .typical
        let f = focal ?? stated ?? typicalFocal35 / 43.27 * diagonal
        let across = (n2[0] * n2[0] + n2[1] * n2[1] + f * f * n2[2] * n2[2]).squareRoot()
        let down = (n3[0] * n3[0] + n3[1] * n3[1] + f * f * n3[2] * n3[2]).squareRoot()
        return (across / down, how)
    }

    /// A sheet longer than this (long side over short) is no paper size in `papers` (Legal is 1.65,
    /// a business card 1.75): a till receipt, whose length is its own and whose width is the roll's.
    public static let receiptProportions = 2.0
    /// The width of a till roll, millimetres: 80 mm is what shop tills print on (card terminals use
    /// 57 mm, which a photo cannot tell apart without a scale in it).
    public static let tillRollWidth = 80.0

    /// The squarest and the longest a sheet of paper is taken to be (long side over short, the
    /// perspective undone): US Letter's 1.29 less the method's error on a real photo (about a tenth),
    /// and a long till receipt.
    public static let paperProportions = 1.15...12.0

    /// Whether a sheet of paper could look like the quadrilateral `corners`: its proportions, the
    /// perspective undone, within `paperProportions`. Half a notepad cut across is nearly square.
    public static func isPaperShaped(_ corners: [Point], width: Int, height: Int, focal35: Double? = nil) -> Bool {
        let aspect = proportions(corners, width: width, height: height, focal35: focal35).aspect
        guard aspect.isFinite, aspect > 0 else { return false }
        return paperProportions.contains(max(aspect, 1 / aspect))
    }

    /// The paper size whose shape is nearest `aspect` (either way up), if within 2 %.
    static func snapped(_ aspect: Double) -> Paper? {
        let portrait = aspect >= 1 ? aspect : 1 / aspect
        return papers.filter { abs(portrait / ($0.height / $0.width) - 1) <= 0.02 }
            .min { abs(portrait / ($0.height / $0.width) - 1) < abs(portrait / ($1.height / $1.width) - 1) }
    }
}
