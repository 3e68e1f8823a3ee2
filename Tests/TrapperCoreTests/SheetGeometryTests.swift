import Foundation
import Testing
import TrapperCore

/// A sheet's proportions with the perspective undone, and the paper sizes it is snapped to.
@Suite struct SheetGeometryTests {
    typealias Point = SheetGeometry.Point

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

    @Test(arguments: [(0.0, 0.0), (10, 20), (-30, 25), (25, 35), (5, 10), (0, 12)])
    func theProportionsComeBackThroughThePerspective(angle: Double, tilt: Double) {
        let center = Point(400, 300)
        let corners = Self.projected(width: 210, height: 297, angle: angle, tilt: tilt, focal: 800, distance: 600, center: center)
        let (aspect, _) = SheetGeometry.proportions(corners, width: 800, height: 600)
        #expect(abs(aspect / (210.0 / 297) - 1) < 0.01, "angle \(angle), tilt \(tilt): \(aspect)")
    }

    /// Seen square-on, a sheet's sides meet nowhere and tell nothing of the lens: a tilt of one
    /// pair of sides alone needs the focal length, which EXIF gives (35 mm equivalent).
    @Test func aSquareOnViewTakesTheFocalLengthFromEXIF() {
        // 800 x 600 pixels, a 1000-pixel focal length: 1000 / 1000 * 43.27 mm = 43.27 mm equivalent.
        let center = Point(400, 300)
        let corners = Self.projected(width: 216, height: 279, angle: 0, tilt: 30, focal: 1000, distance: 700, center: center)
        let exif = SheetGeometry.proportions(corners, width: 800, height: 600, focal35: 43.27)
        #expect(exif.focal == .exif && abs(exif.aspect / (216.0 / 279) - 1) < 0.005, "\(exif)")
        // Without it, a phone's typical 27 mm, wrong for this lens by 9 % here.
        let typical = SheetGeometry.proportions(corners, width: 800, height: 600)
        #expect(typical.focal == .typical && abs(typical.aspect / (216.0 / 279) - 1) > 0.05, "\(typical)")
        let sheet = SheetGeometry.sheet(corners: corners, width: 800, height: 600, focal35: 43.27)
        #expect(sheet.paper?.name == "Letter", "\(sheet)")
    }

    /// A focal length measured from the corners far from the one EXIF states is not trusted.
    @Test func aMeasuredFocalLengthFarFromEXIFsGivesWayToIt() {
        let center = Point(400, 300)
        let corners = Self.projected(width: 210, height: 297, angle: 20, tilt: 30, focal: 800, distance: 600, center: center)
        // 800 px on a 1000 px diagonal is 34.6 mm; stated within a quarter, the measurement stands.
        #expect(SheetGeometry.proportions(corners, width: 800, height: 600, focal35: 30).focal == .measured)
        let far = SheetGeometry.proportions(corners, width: 800, height: 600, focal35: 60)
        #expect(far.focal == .exif, "\(far)")
    }

    /// Snapped only within 2 %, to the nearest paper: a receipt keeps its own shape.
    @Test func aSheetIsSnappedToAPaperOnlyWhenWithinTwoPercent() {
        func square(_ aspect: Double) -> [Point] { [Point(100, 100), Point(100 + 300 * aspect, 100), Point(100 + 300 * aspect, 400), Point(100, 400)] }
        #expect(SheetGeometry.sheet(corners: square(1 / 1.41), width: 2000, height: 1500).paper?.name == "A4")
        #expect(SheetGeometry.sheet(corners: square(1 / 1.30), width: 2000, height: 1500).paper?.name == "Letter")
        #expect(SheetGeometry.sheet(corners: square(1.59), width: 2000, height: 1500).paper?.name == "ID-1 card")
        let receipt = SheetGeometry.sheet(corners: square(1 / 2.6), width: 2000, height: 1500)
        #expect(receipt.paper == nil && abs(receipt.aspect - 1 / 2.6) < 0.001, "\(receipt)")
        let between = SheetGeometry.sheet(corners: square(1 / 1.36), width: 2000, height: 1500)
        #expect(between.paper == nil, "1.36 is more than 2 % from A4 (1.414) and Letter (1.294): \(between)")
    }

    /// Issue 42, point 2: proportions no paper has are a reason to look further. A square (half a
    /// notepad cut across) and a strip longer than any receipt are not paper-shaped; A4, Letter and a
    /// long receipt are, seen square-on or in perspective.
    @Test func onlyPaperProportionsAreTakenForASheetsShape() {
        func square(_ aspect: Double) -> [Point] { [Point(100, 100), Point(100 + 300 * aspect, 100), Point(100 + 300 * aspect, 400), Point(100, 400)] }
        for aspect: Double in [1.0, 1.08, 1 / 1.1, 13, 1 / 14.0] {
            #expect(!SheetGeometry.isPaperShaped(square(aspect), width: 6000, height: 1500), "\(aspect)")
        }
        for aspect: Double in [1 / 1.414, 1.294, 1 / 3.0, 8] {
            #expect(SheetGeometry.isPaperShaped(square(aspect), width: 6000, height: 1500), "\(aspect)")
        }
        let tilted = Self.projected(width: 210, height: 210, angle: 20, tilt: 30, focal: 800, distance: 600, center: Point(400, 300))
        #expect(!SheetGeometry.isPaperShaped(tilted, width: 800, height: 600), "a square in perspective is still a square")
        let a4 = Self.projected(width: 210, height: 297, angle: 20, tilt: 30, focal: 800, distance: 600, center: Point(400, 300))
        #expect(SheetGeometry.isPaperShaped(a4, width: 800, height: 600))
    }
}
