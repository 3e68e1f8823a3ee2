import Foundation

/// Where a sheet of paper lies in a photo of it (a letter on a kitchen table), found on a small grey
/// copy: the paper is the largest bright region (Otsu's threshold), its four edges are straight
/// lines fitted to that region's outline, its corners where they meet. Then the sheet's own
/// proportions, with the perspective taken out (Zhang and He, "Whiteboard scanning and image
/// enhancement", 2007), snapped to a paper size when within 2%.
public enum SheetFinder {
    public struct Point: Sendable, Equatable {
        public var x: Double
        public var y: Double

        public init(_ x: Double, _ y: Double) {
            self.x = x
            self.y = y
        }

        static func - (a: Point, b: Point) -> Point { Point(a.x - b.x, a.y - b.y) }
        var length: Double { (x * x + y * y).squareRoot() }
    }

    /// The sheet's corners in the grey copy's pixels, clockwise from the top left.
    public struct Sheet: Sendable, Equatable {
        public var corners: [Point]
        /// Width over height of the sheet itself, perspective undone.
        public var aspect: Double
        /// The paper size it was snapped to ("A4"), if any.
        public var paper: Paper?
    }

    public enum Outcome: Sendable, Equatable {
        case sheet(Sheet)
        /// The picture is all sheet (a flat scan, a page filling the frame): left as it is.
        case wholeImage
        /// No sheet found with confidence, and why.
        case notFound(String)
    }

    public struct Paper: Sendable, Equatable {
        public var name: String
        /// Millimetres, portrait.
        public var width: Double
        public var height: Double
    }

    /// The sizes a sheet is snapped to: ISO A (A3, A4 and A5 share one shape; the area in the photo
    /// cannot tell them apart, so A4), US Letter and Legal.
    public static let papers = [Paper(name: "A4", width: 210, height: 297), Paper(name: "Letter", width: 215.9, height: 279.4),
                                Paper(name: "Legal", width: 215.9, height: 355.6)]

    /// `gray`: `width` × `height` 8-bit samples, rows packed, the photo scaled down (about 800
    /// pixels on its long side is plenty).
    public static func find(gray: [UInt8], width: Int, height: Int) -> Outcome {
        guard width >= 32, height >= 32, gray.count >= width * height else { return .notFound("the picture is too small") }
        let threshold = otsu(gray)
        guard let region = largestBrightRegion(gray, width: width, height: height, above: threshold) else {
            return .notFound("nothing bright enough to be paper")
        }
        let fraction = Double(region.area) / Double(width * height)
        // A page that fills the frame, or a scan: nothing to crop.
        if fraction > 0.9 || region.touchesBorder >= 3 { return .wholeImage }
        guard fraction > 0.08 else { return .notFound(String(format: "the brightest region is %.0f%% of the picture", fraction * 100)) }
        guard region.touchesBorder == 0 else { return .notFound("the sheet runs off the edge of the photo") }
        guard let corners = fittedCorners(region, width: width, height: height) else {
            return .notFound("the bright region's edges are not four straight lines")
        }
        // Every corner inside the picture: a sheet running off the photo is not a whole page.
        let margin = 1.0
        guard corners.allSatisfy({ $0.x >= -margin && $0.y >= -margin && $0.x <= Double(width) - 1 + margin
                                     && $0.y <= Double(height) - 1 + margin }) else {
            return .notFound("the sheet runs off the edge of the photo")
        }
        let area = quadArea(corners)
        guard area > 0, Double(region.area) / area > 0.9, Double(region.area) / area < 1.1 else {
            return .notFound(String(format: "the bright region fills %.0f%% of the quadrilateral around it",
                                    Double(region.area) / max(area, 1) * 100))
        }
        guard isConvex(corners) else { return .notFound("the corners found do not make a convex shape") }
        let insideMean = region.sum / Double(region.area)
        let outsideCount = width * height - region.area
        let outsideMean = outsideCount > 0 ? (Double(gray.prefix(width * height).reduce(0) { $0 + Int($1) }) - region.sum)
            / Double(outsideCount) : 0
        guard insideMean - outsideMean > 25 else {
            return .notFound(String(format: "the paper is hardly brighter than what is around it (%.0f against %.0f)",
                                    insideMean, outsideMean))
        }
        return .sheet(sheet(corners: corners, width: width, height: height))
    }

    /// The sheet whose photo is the quadrilateral `corners` (clockwise from the top left) in a
    /// `width` × `height` picture: its proportions with the perspective taken out, snapped to a
    /// paper size within 2%.
    public static func sheet(corners: [Point], width: Int, height: Int) -> Sheet {
        var aspect = aspectRatio(corners, center: Point(Double(width) / 2, Double(height) / 2))
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

    // MARK: Threshold and region

    /// Otsu's threshold: the grey level that best splits the histogram in two.
    static func otsu(_ gray: [UInt8]) -> Int {
        var histogram = [Double](repeating: 0, count: 256)
        for value in gray { histogram[Int(value)] += 1 }
        let total = Double(gray.count)
        let sum = histogram.enumerated().reduce(0.0) { $0 + Double($1.offset) * $1.element }
        var (weightBelow, sumBelow, best, bestScore) = (0.0, 0.0, 128, -1.0)
        for level in 0..<256 {
            weightBelow += histogram[level]
            guard weightBelow > 0, weightBelow < total else { continue }
            sumBelow += Double(level) * histogram[level]
            let meanBelow = sumBelow / weightBelow, meanAbove = (sum - sumBelow) / (total - weightBelow)
            let score = weightBelow * (total - weightBelow) * (meanBelow - meanAbove) * (meanBelow - meanAbove)
            if score > bestScore { (best, bestScore) = (level, score) }
        }
        return best
    }

    struct Region {
        var area: Int
        var sum: Double
        /// For each row the region reaches: its leftmost and rightmost column.
        var rows: [Int: (Int, Int)]
        /// For each column: its topmost and bottommost row.
        var columns: [Int: (Int, Int)]
        /// How many of the picture's four edges it runs along (for more than 2% of the edge).
        var touchesBorder: Int
    }

    /// The largest 4-connected region brighter than `above`, with holes (the text on the paper) inside it.
    static func largestBrightRegion(_ gray: [UInt8], width: Int, height: Int, above threshold: Int) -> Region? {
        var label = [Int32](repeating: 0, count: width * height)
        var best: (label: Int32, area: Int) = (0, 0)
        var next: Int32 = 0
        var stack: [Int] = []
        for start in 0..<(width * height) where label[start] == 0 && Int(gray[start]) > threshold {
            next += 1
            label[start] = next
            stack.append(start)
            var area = 0
            while let index = stack.popLast() {
                area += 1
                let x = index % width, y = index / width
                for (nx, ny) in [(x - 1, y), (x + 1, y), (x, y - 1), (x, y + 1)] where nx >= 0 && ny >= 0 && nx < width && ny < height {
                    let neighbour = ny * width + nx
                    if label[neighbour] == 0, Int(gray[neighbour]) > threshold {
                        label[neighbour] = next
                        stack.append(neighbour)
                    }
                }
            }
            if area > best.area { best = (next, area) }
        }
        guard best.area > 0 else { return nil }
        var region = Region(area: 0, sum: 0, rows: [:], columns: [:], touchesBorder: 0)
        var edges = [0, 0, 0, 0]  // left, top, right, bottom: the region's pixels on each
        for y in 0..<height {
            for x in 0..<width where label[y * width + x] == best.label {
                let row = region.rows[y] ?? (x, x)
                region.rows[y] = (min(row.0, x), max(row.1, x))
                let column = region.columns[x] ?? (y, y)
                region.columns[x] = (min(column.0, y), max(column.1, y))
                if x == 0 { edges[0] += 1 }
                if y == 0 { edges[1] += 1 }
                if x == width - 1 { edges[2] += 1 }
                if y == height - 1 { edges[3] += 1 }
            }
        }
        // The area and brightness of the region with its holes filled: between each row's extremes.
        for (y, span) in region.rows {
            region.area += span.1 - span.0 + 1
            for x in span.0...span.1 { region.sum += Double(gray[y * width + x]) }
        }
        region.touchesBorder = zip(edges, [height, width, height, width]).filter { Double($0) > 0.02 * Double($1) }.count
        return region
    }

    // MARK: Edges and corners

    /// The outline's points (each row's and each column's extremes), rough corners where the
    /// outline reaches furthest along the diagonals, a line fitted to each side's points away from
    /// the corners, and the corners again where those lines cross.
    static func fittedCorners(_ region: Region, width: Int, height: Int) -> [Point]? {
        var outline: [Point] = []
        for (y, span) in region.rows { outline += [Point(Double(span.0), Double(y)), Point(Double(span.1), Double(y))] }
        for (x, span) in region.columns { outline += [Point(Double(x), Double(span.0)), Point(Double(x), Double(span.1))] }
        guard outline.count >= 16 else { return nil }
        // Top left, top right, bottom right, bottom left: the extremes of x + y and x - y (a linear
        // function is extreme at a vertex of a convex shape).
        let rough = [outline.min { $0.x + $0.y < $1.x + $1.y }!, outline.max { $0.x - $0.y < $1.x - $1.y }!,
                     outline.max { $0.x + $0.y < $1.x + $1.y }!, outline.min { $0.x - $0.y < $1.x - $1.y }!]
        var lines: [(point: Point, direction: Point)] = []
        for side in 0..<4 {
            let a = rough[side], b = rough[(side + 1) % 4]
            let length = (b - a).length
            guard length > 8 else { return nil }
            let direction = Point((b.x - a.x) / length, (b.y - a.y) / length)
            // Points near the side, and not near its ends (a dog-eared or rounded corner).
            let near = outline.filter { p in
                let along = (p.x - a.x) * direction.x + (p.y - a.y) * direction.y
                let across = abs((p.x - a.x) * direction.y - (p.y - a.y) * direction.x)
                return along > 0.1 * length && along < 0.9 * length && across < max(3, 0.04 * length)
            }
            guard near.count >= 8, let line = fitLine(near) else { return nil }
            // Straight: the points stray from their line by under 1.5% of the side on average.
            let residual = near.reduce(0.0) { $0 + abs(($1.x - line.point.x) * line.direction.y - ($1.y - line.point.y) * line.direction.x) }
                / Double(near.count)
            guard residual < max(1.5, 0.015 * length) else { return nil }
            lines.append(line)
        }
        var corners: [Point] = []
        for side in 0..<4 {
            guard let corner = intersection(lines[(side + 3) % 4], lines[side]) else { return nil }
            corners.append(corner)
        }
        return corners
    }

    /// The total-least-squares line through `points`: their centroid and principal direction.
    static func fitLine(_ points: [Point]) -> (point: Point, direction: Point)? {
        let n = Double(points.count)
        let mean = Point(points.reduce(0) { $0 + $1.x } / n, points.reduce(0) { $0 + $1.y } / n)
        var (sxx, sxy, syy) = (0.0, 0.0, 0.0)
        for p in points {
            let d = p - mean
            sxx += d.x * d.x
            sxy += d.x * d.y
            syy += d.y * d.y
        }
        let angle = 0.5 * atan2(2 * sxy, sxx - syy)
        return (mean, Point(cos(angle), sin(angle)))
    }

    static func intersection(_ a: (point: Point, direction: Point), _ b: (point: Point, direction: Point)) -> Point? {
        let denominator = a.direction.x * b.direction.y - a.direction.y * b.direction.x
        guard abs(denominator) > 1e-6 else { return nil }
        let d = b.point - a.point
        let t = (d.x * b.direction.y - d.y * b.direction.x) / denominator
        return Point(a.point.x + t * a.direction.x, a.point.y + t * a.direction.y)
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

    /// Width over height of the rectangle whose photo is the quadrilateral `corners` (clockwise
    /// from the top left), the camera's principal point at `center` and its focal length worked
    /// out from the quadrilateral itself (Zhang and He). A photo taken square on, where the focal
    /// length cannot be known, gives the ratio of the sides.
    public static func aspectRatio(_ corners: [Point], center: Point) -> Double {
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
        let sides = ((corners[1] - corners[0]).length + (corners[2] - corners[3]).length)
            / ((corners[3] - corners[0]).length + (corners[2] - corners[1]).length)
        let focal = -(n2[0] * n3[0] + n2[1] * n3[1]) / (n2[2] * n3[2])
        guard abs(n2[2] * n3[2]) > 1e-9, focal.isFinite, focal > 0 else { return sides }
        let ratio = ((n2[0] * n2[0] + n2[1] * n2[1]) / focal + n2[2] * n2[2]) / ((n3[0] * n3[0] + n3[1] * n3[1]) / focal + n3[2] * n3[2])
        guard ratio.isFinite, ratio > 0 else { return sides }
        let aspect = ratio.squareRoot()
        // A focal length from nearly parallel sides is noise: keep to what the sides say within reason.
        return abs(aspect / sides - 1) < 0.25 ? aspect : sides
    }

    /// The paper size whose shape is within 2% of `aspect` (either way up), if any.
    static func snapped(_ aspect: Double) -> Paper? {
        let portrait = aspect >= 1 ? aspect : 1 / aspect
        return papers.first { abs(portrait / ($0.height / $0.width) - 1) <= 0.02 }
    }
}
