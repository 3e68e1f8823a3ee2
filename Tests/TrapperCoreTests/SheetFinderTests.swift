import Foundation
import Testing
import TrapperCore

/// The sheet finder on pictures drawn here: a sheet's corners, its proportions with the
/// perspective undone, and the pictures it must leave alone.
@Suite struct SheetFinderTests {
    typealias Point = SheetFinder.Point

    /// A `width` × `height` sheet seen by a camera of focal length `focal` (the principal point at
    /// the picture's centre), turned by `angle` and tilted away by `tilt` degrees, at `distance`.
    static func projected(width: Double, height: Double, angle: Double, tilt: Double, focal: Double, distance: Double,
                          center: Point) -> [Point] {
        let (a, t) = (angle * .pi / 180, tilt * .pi / 180)
        return [(-width / 2, -height / 2), (width / 2, -height / 2), (width / 2, height / 2), (-width / 2, height / 2)].map { x, y in
            let (tx, ty) = (x * cos(a) - y * sin(a), x * sin(a) + y * cos(a))
            let (py, z) = (ty * cos(t), distance + ty * sin(t))
            return Point(center.x + focal * tx / z, center.y + focal * py / z)
        }
    }

    @Test(arguments: [(0.0, 0.0), (10, 20), (-30, 25), (25, 35), (5, 10)])
    func theProportionsComeBackThroughThePerspective(angle: Double, tilt: Double) {
        let center = Point(400, 300)
        let corners = Self.projected(width: 210, height: 297, angle: angle, tilt: tilt, focal: 800, distance: 600, center: center)
        let aspect = SheetFinder.aspectRatio(corners, center: center)
        #expect(abs(aspect / (210.0 / 297) - 1) < 0.01, "angle \(angle), tilt \(tilt): \(aspect)")
    }

    /// `corners` filled with paper (220) on a table (70), lines of "text" (30) inside its margins.
    static func picture(_ corners: [Point], width: Int, height: Int) -> [UInt8] {
        var gray = [UInt8](repeating: 70, count: width * height)
        let middle = Point(corners.reduce(0) { $0 + $1.x } / 4, corners.reduce(0) { $0 + $1.y } / 4)
        let margins = corners.map { Point($0.x + (middle.x - $0.x) * 0.2, $0.y + (middle.y - $0.y) * 0.2) }
        func inside(_ quad: [Point], _ x: Double, _ y: Double) -> Bool {
            (0..<4).allSatisfy { i in
                let a = quad[i], b = quad[(i + 1) % 4]
                return (b.x - a.x) * (y - a.y) - (b.y - a.y) * (x - a.x) >= 0
            }
        }
        for y in 0..<height {
            for x in 0..<width where inside(corners, Double(x), Double(y)) {
                let text = inside(margins, Double(x), Double(y)) && (y / 6) % 3 == 0 && (x / 9) % 4 != 0
                gray[y * width + x] = text ? 30 : 220
            }
        }
        return gray
    }

    @Test func aSheetOnATableIsFoundToAPixel() throws {
        let center = Point(400, 300)
        let corners = Self.projected(width: 210, height: 297, angle: 15, tilt: 20, focal: 800, distance: 700, center: center)
        let gray = Self.picture(corners, width: 800, height: 600)
        guard case .sheet(let sheet) = SheetFinder.find(gray: gray, width: 800, height: 600) else {
            Issue.record("no sheet: \(SheetFinder.find(gray: gray, width: 800, height: 600))")
            return
        }
        for (found, drawn) in zip(sheet.corners, corners) {
            #expect(abs(found.x - drawn.x) < 2 && abs(found.y - drawn.y) < 2, "\(found) against \(drawn)")
        }
        #expect(sheet.paper?.name == "A4" && abs(sheet.aspect - 210.0 / 297) < 1e-9)
    }

    @Test func aPageFillingThePictureOrNoSheetAtAllIsLeftAlone() {
        let full = [UInt8](repeating: 235, count: 400 * 300)
        #expect(SheetFinder.find(gray: full, width: 400, height: 300) == .wholeImage)
        var noise = [UInt8](repeating: 0, count: 400 * 300)
        var seed: UInt64 = 7
        for i in noise.indices {
            seed = seed &* 6364136223846793005 &+ 1442695040888963407
            noise[i] = UInt8(truncatingIfNeeded: seed >> 56)
        }
        guard case .notFound = SheetFinder.find(gray: noise, width: 400, height: 300) else {
            Issue.record("a sheet in noise: \(SheetFinder.find(gray: noise, width: 400, height: 300))")
            return
        }
        // A sheet cut off by the picture's edge is not a whole page.
        let off = Self.picture([Point(250, 50), Point(500, 60), Point(480, 260), Point(240, 250)], width: 400, height: 300)
        guard case .notFound(let reason) = SheetFinder.find(gray: off, width: 400, height: 300) else {
            Issue.record("a sheet running off the picture was taken")
            return
        }
        #expect(!reason.isEmpty)
    }
}
