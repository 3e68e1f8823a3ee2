import CLeptonica
import TrapperCore

/// The photo steps, first of the page steps: `find_page` (the sheet found on an 800-pixel grey copy
/// by `SheetFinder`, then warped to a rectangle of its own proportions by leptonica's projective
/// transform and cropped) and `clean = "auto"` (leptonica's background normalisation, which evens out
/// uneven light and a shadow, then its tone curve, which whitens the paper).
enum PhotoSheet {
    enum Outcome {
        /// The sheet alone, upright, at `dpi`; a sheet snapped to a paper size has that size exactly
        /// at `resolution`.
        /// `corners`: where it was cut in the picture's pixels, clockwise from the top left.
        case found(LeptonicaPix, dpi: Int, resolution: ImageResolution?, corners: [SheetFinder.Point], note: String)
        /// Nothing cropped; a note when no sheet was found (a picture that is all sheet needs none).
        case leftAsItIs(String?)
    }

    /// Long side of the grey copy the sheet is looked for in.
    static let searchSize = 800

    static func find(_ pix: LeptonicaPix, dpi: Int) throws -> Outcome {
        let lept = pix.lept
        guard var gray = LeptonicaPix(lept, lept.pixConvertTo8(pix.pix, 0)) else {
            throw ImageInputError.decodeFailed(.jpeg, "leptonica could not make a grey copy")
        }
        let scale = min(1, Float(searchSize) / Float(max(pix.width, pix.height)))
        if scale < 1, let smaller = LeptonicaPix(lept, lept.pixScale(gray.pix, scale, scale)) { gray = smaller }
        let (width, height) = (gray.width, gray.height)
        let words = Int(lept.pixGetWpl(gray.pix))
        guard let data = lept.pixGetData(gray.pix) else { throw ImageInputError.decodeFailed(.jpeg, "no pixel data") }
        var samples = [UInt8](repeating: 0, count: width * height)
        for y in 0..<height {
            for x in 0..<width {
                samples[y * width + x] = UInt8(truncatingIfNeeded: data[y * words + x / 4] >> (24 - 8 * UInt32(x % 4)))
            }
        }
        switch SheetFinder.find(gray: samples, width: width, height: height) {
        case .wholeImage:
            return .leftAsItIs(nil)
        case .notFound(let reason):
            return .leftAsItIs("find_page: no sheet found (\(reason)); the photo is left as it is")
        case .sheet(let sheet):
            // Corners in the photo's own pixels (the grey copy's centres mapped back).
            // In by 0.5% of the way to the middle: a sliver of table is worse than a sliver less paper.
            let factor = Double(pix.width) / Double(width)
            let middle = SheetFinder.Point(sheet.corners.reduce(0) { $0 + $1.x } / 4, sheet.corners.reduce(0) { $0 + $1.y } / 4)
            let corners = sheet.corners.map { corner in
                SheetFinder.Point((corner.x + (middle.x - corner.x) * 0.005 + 0.5) * factor - 0.5,
                                  (corner.y + (middle.y - corner.y) * 0.005 + 0.5) * factor - 0.5)
            }
            return try warp(pix, corners: corners, sheet: sheet, dpi: dpi)
        }
    }

    /// The quadrilateral `corners` (clockwise from the top left, in `pix`'s pixels) as a rectangle as
    /// tall as its longer upright side and as wide as the sheet's proportions say.
    /// `given`: the corners are a person's (`reframe`), not found, and the note says so.
    static func warp(_ pix: LeptonicaPix, corners: [SheetFinder.Point], sheet: SheetFinder.Sheet, dpi: Int, given: Bool = false) throws
        -> Outcome
    {
        let lept = pix.lept
        func distance(_ a: SheetFinder.Point, _ b: SheetFinder.Point) -> Double { ((a.x - b.x) * (a.x - b.x) + (a.y - b.y) * (a.y - b.y)).squareRoot() }
        let height = Int(max(distance(corners[0], corners[3]), distance(corners[1], corners[2])).rounded())
        let width = Int((Double(height) * sheet.aspect).rounded())
        guard width >= 16, height >= 16 else { return .leftAsItIs("find_page: the sheet found is too small to be a page") }
        // Leptonica's transform writes a picture of its input's size: room is made on the right and below.
        var source = pix
        if width > pix.width || height > pix.height {
            let white: UInt32 = pix.depth == 32 ? 0xFFFF_FF00 : 0xFF
            guard let bigger = LeptonicaPix(lept, lept.pixAddBorderGeneral(pix.pix, 0, Int32(max(0, width - pix.width)), 0,
                                                                           Int32(max(0, height - pix.height)), white)) else {
                throw ImageInputError.decodeFailed(.jpeg, "leptonica could not make room for the sheet")
            }
            source = bigger
        }
        var from = lept.ptaCreate(4), to = lept.ptaCreate(4)
        defer { lept.ptaDestroy(&from); lept.ptaDestroy(&to) }
        let targets = [(0.0, 0.0), (Double(width), 0.0), (Double(width), Double(height)), (0.0, Double(height))]
        for (corner, target) in zip(corners, targets) {
            _ = lept.ptaAddPt(from, Float(corner.x), Float(corner.y))
            _ = lept.ptaAddPt(to, Float(target.0), Float(target.1))
        }
        let warped = source.depth == 32 ? lept.pixProjectivePtaColor(source.pix, to, from, 0xFFFF_FF00)
            : lept.pixProjectivePtaGray(source.pix, to, from, 255)
        guard let warped = LeptonicaPix(lept, warped), let box = lept.boxCreate(0, 0, Int32(width), Int32(height)) else {
            throw ImageInputError.decodeFailed(.jpeg, "leptonica could not undo the perspective")
        }
        var boxPointer: UnsafeMutablePointer<BOX>? = box
        defer { lept.boxDestroy(&boxPointer) }
        guard let cropped = LeptonicaPix(lept, lept.pixClipRectangle(warped.pix, box, nil)) else {
            throw ImageInputError.decodeFailed(.jpeg, "leptonica could not crop the sheet")
        }
        // A snapped sheet is its paper size; another (a receipt) keeps the photo's scale.
        var sheetDPI = dpi
        var resolution: ImageResolution? = nil
        if let paper = sheet.paper {
            let (across, down) = width >= height ? (paper.height, paper.width) : (paper.width, paper.height)
            resolution = ImageResolution(x: Double(width) / (across / 25.4), y: Double(height) / (down / 25.4))
            sheetDPI = max(1, Int(resolution!.x.rounded()))
        }
        _ = lept.pixSetResolution(cropped.pix, Int32(sheetDPI), Int32(sheetDPI))
        let shape = sheet.paper.map { "\($0.name) sheet" } ?? String(format: "sheet of %.3f:1", max(sheet.aspect, 1 / sheet.aspect))
        let sizes = "(\(pix.width)x\(pix.height) to \(width)x\(height) pixels)"
        return .found(cropped, dpi: sheetDPI, resolution: resolution, corners: corners,
                      note: given ? "cut again from its photo along the corners given: \(shape), perspective undone \(sizes)"
                        : "find_page: \(shape) found, perspective undone and cropped \(sizes)")
    }

    /// Uneven light evened out and the paper made white, text and pictures kept. The paper's
    /// brightness everywhere is found by a grey closing (the largest value near each point) on a
    /// copy reduced 4 times, with a square a fifth of the page's shorter side: text and a logo are
    /// smaller than that and drop out, a shadow or a fall-off of light is larger and stays (a
    /// picture on the page larger than that is taken for paper in shadow and comes out paler). Each pixel is scaled so that paper comes to 200 (leptonica's
    /// `pixBackgroundNormMorph`), then a tone curve takes 190 and up to white, 70 and down to black.
    static func clean(_ pix: LeptonicaPix) throws -> LeptonicaPix {
        let lept = pix.lept
        var source = pix
        if pix.depth != 8 && pix.depth != 32, let converted = LeptonicaPix(lept, lept.pixConvertTo8(pix.pix, 0)) { source = converted }
        let size = max(5, min(source.width, source.height) / 4 / 5) | 1
        guard let even = LeptonicaPix(lept, lept.pixBackgroundNormMorph(source.pix, nil, 4, Int32(size), 200)),
              let cleaned = LeptonicaPix(lept, lept.pixGammaTRC(nil, even.pix, 1.0, 70, 190)) else {
            throw ImageInputError.decodeFailed(.jpeg, "leptonica could not even out the light")
        }
        return cleaned
    }
}
