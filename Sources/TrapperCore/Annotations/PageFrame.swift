/// How a script's numbers land on one page. Scripts measure the page as a viewer shows it: its
/// /Rotate applied, from the media box's corner, in the script's units, y up from the bottom or
/// down from the top. That "shown" space is where appearances are drawn, so text and signatures
/// stand upright whatever the page's rotation; `toUser` maps it to the page's user space, where
/// /Rect, /QuadPoints and the other coordinates of an annotation live.
public struct PageFrame: Sendable, Equatable {
    /// [x0 y0 x1 y1], normalized.
    public let mediaBox: [Double]
    /// 0, 90, 180 or 270, clockwise as /Rotate.
    public let rotation: Int
    public let units: LengthUnit
    public let origin: Origin

    public init(mediaBox: [Double], rotation: Int, units: LengthUnit = .pt, origin: Origin = .bottomLeft) {
        self.mediaBox = mediaBox
        self.rotation = ((rotation % 360) + 360) % 360
        self.units = units
        self.origin = origin
    }

    var width: Double { mediaBox[2] - mediaBox[0] }
    var height: Double { mediaBox[3] - mediaBox[1] }
    /// The page's size as shown.
    public var shownWidth: Double { rotation % 180 == 0 ? width : height }
    public var shownHeight: Double { rotation % 180 == 0 ? height : width }

    /// Shown space to user space, as a PDF matrix [a b c d e f]: (u, v) → (a·u + c·v + e, b·u + d·v + f).
    public var matrix: [Double] {
        let (x0, y0) = (mediaBox[0], mediaBox[1])
        switch rotation {
        case 90: return [0, 1, -1, 0, x0 + width, y0]
        case 180: return [-1, 0, 0, -1, x0 + width, y0 + height]
        case 270: return [0, -1, 1, 0, x0, y0 + height]
        default: return [1, 0, 0, 1, x0, y0]
        }
    }

    public func toUser(_ point: Point) -> Point {
        let m = matrix
        return Point(m[0] * point.x + m[2] * point.y + m[4], m[1] * point.x + m[3] * point.y + m[5])
    }

    /// User space to shown space (the inverse of `toUser`).
    public func toShown(_ point: Point) -> Point {
        let m = matrix
        let (x, y) = (point.x - m[4], point.y - m[5])
        // The matrix is a rotation by a right angle: its inverse is its transpose.
        return Point(m[0] * x + m[1] * y, m[2] * x + m[3] * y)
    }

    /// A script point in shown space (points, y up).
    public func shown(_ point: ScriptPoint) -> Point {
        let (x, y) = (point.x * units.points, point.y * units.points)
        return Point(x, origin == .topLeft ? shownHeight - y : y)
    }

    public func shown(_ box: ScriptBox) -> Rect {
        Rect(shown(ScriptPoint(box.x0, box.y0)), shown(ScriptPoint(box.x1, box.y1)))
    }

    /// A shown rectangle in user space (still a rectangle: the rotation is by a right angle).
    public func toUser(_ rect: Rect) -> Rect {
        Rect(toUser(Point(rect.x0, rect.y0)), toUser(Point(rect.x1, rect.y1)))
    }

    public func toShown(_ rect: Rect) -> Rect {
        Rect(toShown(Point(rect.x0, rect.y0)), toShown(Point(rect.x1, rect.y1)))
    }

    /// The page as shown: [0 0 shownWidth shownHeight].
    public var shownPage: Rect { Rect(x0: 0, y0: 0, x1: shownWidth, y1: shownHeight) }
}

public struct Point: Sendable, Equatable {
    public var x, y: Double

    public init(_ x: Double, _ y: Double) { (self.x, self.y) = (x, y) }
}

/// An axis-aligned rectangle with x0 ≤ x1 and y0 ≤ y1.
public struct Rect: Sendable, Equatable {
    public var x0, y0, x1, y1: Double

    public init(x0: Double, y0: Double, x1: Double, y1: Double) {
        (self.x0, self.y0, self.x1, self.y1) = (min(x0, x1), min(y0, y1), max(x0, x1), max(y0, y1))
    }

    /// The rectangle with these two opposite corners.
    public init(_ a: Point, _ b: Point) { self.init(x0: a.x, y0: a.y, x1: b.x, y1: b.y) }

    /// [x0 y0 x1 y1], as PDF writes a rectangle.
    public init?(_ numbers: [Double]) {
        guard numbers.count == 4 else { return nil }
        self.init(x0: numbers[0], y0: numbers[1], x1: numbers[2], y1: numbers[3])
    }

    public var width: Double { x1 - x0 }
    public var height: Double { y1 - y0 }
    public var numbers: [Double] { [x0, y0, x1, y1] }

    public func insetBy(_ amount: Double) -> Rect { Rect(x0: x0 + amount, y0: y0 + amount, x1: x1 - amount, y1: y1 - amount) }

    public func union(_ other: Rect) -> Rect {
        Rect(x0: min(x0, other.x0), y0: min(y0, other.y0), x1: max(x1, other.x1), y1: max(y1, other.y1))
    }

    public func intersects(_ other: Rect) -> Bool {
        x0 <= other.x1 && other.x0 <= x1 && y0 <= other.y1 && other.y0 <= y1
    }

    /// Within `other`, allowing a hair of rounding.
    public func isInside(_ other: Rect) -> Bool {
        let slack = 1e-6 * max(1, abs(other.x1), abs(other.y1))
        return x0 >= other.x0 - slack && y0 >= other.y0 - slack && x1 <= other.x1 + slack && y1 <= other.y1 + slack
    }

    /// The smallest rectangle holding every point.
    public static func bounding(_ points: [Point]) -> Rect? {
        guard let first = points.first else { return nil }
        return points.dropFirst().reduce(Rect(first, first)) { $0.union(Rect($1, $1)) }
    }
}
