import CLeptonica
import TrapperCore

/// The photo steps, first of the page steps: `find_page` (the sheet found by `SheetFinder`, then
/// warped to a rectangle of its own proportions by leptonica's projective transform and cropped)
/// and `clean = "auto"` (leptonica's background normalisation, which evens out uneven light and a
/// shadow, then its tone curve, which whitens the paper).
enum PhotoSheet {
    enum Outcome {
        /// The sheet alone, upright, at `dpi`; a sheet snapped to a paper size has that size exactly
        /// at `resolution`.
        /// `corners`: where it was cut in the picture's pixels, clockwise from the top left.
        case found(LeptonicaPix, dpi: Int, resolution: ImageResolution?, corners: [SheetGeometry.Point], note: String)
        /// Nothing cropped; a note when no sheet was found (a picture that is all sheet needs none),
        /// and the best candidate's corners (the picture's pixels), which a person cropping by hand
        /// starts from.
        case leftAsItIs(String?, suggestion: [SheetGeometry.Point]?)
    }

    /// Finds the sheet in `pix` (upright) and cuts it out. `focal35`: the photo's EXIF focal length
    /// (35 mm equivalent), for the proportions of a sheet photographed square-on.
    static func find(_ pix: LeptonicaPix, dpi: Int, focal35: Double? = nil) throws -> Outcome {
        let search: SheetFinder.Search
        do {
            search = try SheetFinder.search(pix)
        } catch let failure as SharedLibrary.Failure {
            return .leftAsItIs("find_page: \(failure); the photo is left as it is", suggestion: nil)
        }
        guard let chosen = search.chosen, let cut = search.cut else {
            if search.allSheet { return .leftAsItIs(nil, suggestion: nil) }
            return .leftAsItIs("find_page: no sheet found (\(SheetFinder.reason(search))); the photo is left as it is",
                               suggestion: search.best?.corners)
        }
        // The sheet is the whole picture (a flat scan, a page filling the frame): nothing to cut.
        let (width, height) = (Double(pix.width), Double(pix.height))
        let frame = [SheetGeometry.Point(0, 0), SheetGeometry.Point(width - 1, 0), SheetGeometry.Point(width - 1, height - 1),
                     SheetGeometry.Point(0, height - 1)]
        let tolerance = 0.01 * (width * width + height * height).squareRoot()
        if zip(cut, frame).allSatisfy({ ($0 - $1).length <= tolerance }) { return .leftAsItIs(nil, suggestion: nil) }
        let sheet = SheetGeometry.sheet(corners: chosen.corners, width: pix.width, height: pix.height, focal35: focal35)
        let evidence = String(format: "evidence %.2f, ", chosen.score) + chosen.source
        return try warp(pix, corners: cut, sheet: sheet, dpi: dpi, evidence: evidence)
    }

    /// The quadrilateral `corners` (clockwise from the top left, in `pix`'s pixels) as a rectangle as
    /// tall as its longer upright side and as wide as the sheet's proportions say.
    /// `evidence`: how the sheet was found, for the note; nil when the corners are a person's
    /// (`reframe`), and the note says so.
    static func warp(_ pix: LeptonicaPix, corners: [SheetGeometry.Point], sheet: SheetGeometry.Sheet, dpi: Int, evidence: String? = nil) throws
        -> Outcome
    {
        let lept = pix.lept
        func distance(_ a: SheetGeometry.Point, _ b: SheetGeometry.Point) -> Double { ((a.x - b.x) * (a.x - b.x) + (a.y - b.y) * (a.y - b.y)).squareRoot() }
        let height = Int(max(distance(corners[0], corners[3]), distance(corners[1], corners[2])).rounded())
        let width = Int((Double(height) * sheet.aspect).rounded())
        guard width >= 16, height >= 16 else { return .leftAsItIs("find_page: the sheet found is too small to be a page", suggestion: corners) }
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
                      note: evidence.map { "find_page: \(shape) found (\($0)), perspective undone and cropped \(sizes)" }
                        ?? "cut again from its photo along the corners given: \(shape), perspective undone \(sizes)")
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
