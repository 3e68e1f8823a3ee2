import CLeptonica
import CSheetVision
import System
import TrapperCore

/// The photo steps, first of the page steps: `find_page` (the sheet found by `SheetFinder`, then
/// warped to a rectangle of its own proportions by OpenCV's perspective warp, the page's pixels alone)
/// and `clean = "auto"` (leptonica's background normalisation, which evens out uneven light and a
/// shadow, then its tone curve, which whitens the paper).
enum PhotoSheet {
    enum Outcome {
        /// The sheet alone, upright, at `dpi`; a sheet snapped to a paper size has that size exactly
        /// at `resolution`.
        /// `corners`: where it was cut in the picture's pixels, clockwise from the top left;
        /// `outline`, where its sides bow or curl, the curves it was cut along (`SheetFinder.Search`).
        case found(LeptonicaPix, dpi: Int, resolution: ImageResolution?, corners: [SheetGeometry.Point], outline: [[SheetGeometry.Point]]?,
                   note: String)
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
            search = try SheetFinder.search(pix, focal35: focal35)
        } catch let failure as SharedLibrary.Failure {
            return .leftAsItIs("find_page: \(failure); the photo is left as it is", suggestion: nil)
        }
        guard let chosen = search.chosen, let cut = search.cut else {
            if search.allSheet, search.heldBack == nil { return .leftAsItIs(nil, suggestion: nil) }
            return .leftAsItIs("find_page: no sheet found (\(SheetFinder.reason(search))); the photo is left as it is",
                               suggestion: search.suggestion)
        }
        // The sheet is the whole picture (a flat scan, a page filling the frame): nothing to cut.
        let (width, height) = (Double(pix.width), Double(pix.height))
        let frame = [SheetGeometry.Point(0, 0), SheetGeometry.Point(width - 1, 0), SheetGeometry.Point(width - 1, height - 1),
                     SheetGeometry.Point(0, height - 1)]
        let tolerance = 0.01 * (width * width + height * height).squareRoot()
        if zip(cut, frame).allSatisfy({ ($0 - $1).length <= tolerance }) { return .leftAsItIs(nil, suggestion: nil) }
        let sheet = SheetGeometry.sheet(corners: chosen.corners, width: pix.width, height: pix.height, focal35: focal35)
        var evidence = String(format: "evidence %.2f, ", chosen.score) + chosen.source
        if search.outline != nil { evidence += ", its bowed or curled sides followed" }
        if let smaller = search.passedOver {
            // say why the better-supported one inside it was not the page
            let shape = SheetGeometry.proportions(smaller.corners, width: pix.width, height: pix.height, focal35: focal35).aspect
            evidence += String(format: "; taken over %@ inside it, whose proportions %.2f:1 are no paper's",
                               smaller.source, max(shape, 1 / shape))
        }
        return try warp(pix, corners: cut, outline: search.outline, sheet: sheet, dpi: dpi, evidence: evidence)
    }

    /// The quadrilateral `corners` (clockwise from the top left, in `pix`'s pixels) as a rectangle as
    /// tall as its longer upright side and as wide as the sheet's proportions say; between the curves
    /// of `outline` instead of straight sides when it is given.
    /// `evidence`: how the sheet was found, for the note; nil when the corners are a person's
    /// (`reframe`), and the note says so.
    static func warp(_ pix: LeptonicaPix, corners: [SheetGeometry.Point], outline: [[SheetGeometry.Point]]? = nil, sheet: SheetGeometry.Sheet,
                     dpi: Int, evidence: String? = nil) throws -> Outcome
    {
        let lept = pix.lept
        func distance(_ a: SheetGeometry.Point, _ b: SheetGeometry.Point) -> Double { ((a.x - b.x) * (a.x - b.x) + (a.y - b.y) * (a.y - b.y)).squareRoot() }
        let height = Int(max(distance(corners[0], corners[3]), distance(corners[1], corners[2])).rounded())
        let width = Int((Double(height) * sheet.aspect).rounded())
        guard width >= 16, height >= 16 else { return .leftAsItIs("find_page: the sheet found is too small to be a page", suggestion: corners) }
        let cropped = try undoPerspective(pix, corners: corners, outline: outline, width: width, height: height)
        // A snapped sheet is its paper size; a receipt is a till roll's width and as long as its
        // proportions say; another sheet keeps the photo's scale.
        var sheetDPI = dpi
        var resolution: ImageResolution? = nil
        let long = max(sheet.aspect, 1 / sheet.aspect)
        let receipt = sheet.paper == nil && long >= SheetGeometry.receiptProportions
        if let paper = sheet.paper {
            let (across, down) = width >= height ? (paper.height, paper.width) : (paper.width, paper.height)
            resolution = ImageResolution(x: Double(width) / (across / 25.4), y: Double(height) / (down / 25.4))
            sheetDPI = max(1, Int(resolution!.x.rounded()))
        } else if receipt {
            let perInch = Double(min(width, height)) / (SheetGeometry.tillRollWidth / 25.4)
            resolution = ImageResolution(x: perInch, y: perInch)
            sheetDPI = max(1, Int(perInch.rounded()))
        }
        _ = lept.pixSetResolution(cropped.pix, Int32(sheetDPI), Int32(sheetDPI))
        let shape = sheet.paper.map { "\($0.name) sheet" }
            ?? (receipt ? String(format: "receipt of %.3f:1, %.0f mm wide (a till roll)", long, SheetGeometry.tillRollWidth)
                : String(format: "sheet of %.3f:1", long))
        let sizes = "(\(pix.width)x\(pix.height) to \(width)x\(height) pixels)"
        return .found(cropped, dpi: sheetDPI, resolution: resolution, corners: corners, outline: outline,
                      note: evidence.map { "find_page: \(shape) found (\($0)), perspective undone and cropped \(sizes)" }
                        ?? "cut again from its photo along the corners given\(outline == nil ? "" : " and its sides' curves"): \(shape), "
                        + "perspective undone \(sizes)")
    }

    /// The quadrilateral `corners` of `pix` (or the region between the curves of `outline`) as a
    /// `width` × `height` picture of the same depth, by OpenCV's perspective warp (the find_page
    /// library's `ptcv_warp_sheet`), which computes only the page's pixels, straight from and into
    /// leptonica's own buffers.
    static func undoPerspective(_ pix: LeptonicaPix, corners: [SheetGeometry.Point], outline: [[SheetGeometry.Point]]? = nil, width: Int,
                                height: Int) throws -> LeptonicaPix {
        let vision = try SheetFinder.library.get()
        let lept = pix.lept
        // 32-bit colour (each word's four bytes warped alike, whatever their order) or 8-bit grey;
        // a colour map or another depth is made one of those first.
        var source = pix
        if lept.pixGetColormap(pix.pix) != nil || (pix.depth != 8 && pix.depth != 32) {
            let converted = lept.pixGetColormap(pix.pix) != nil ? lept.pixConvertTo32(pix.pix) : lept.pixConvertTo8(pix.pix, 0)
            guard let converted = LeptonicaPix(lept, converted) else {
                throw ImageInputError.decodeFailed(.jpeg, "leptonica could not convert the photo to warp it")
            }
            source = converted
        }
        guard let target = LeptonicaPix(lept, lept.pixCreate(Int32(width), Int32(height), Int32(source.depth))),
              let from = lept.pixGetData(source.pix), let to = lept.pixGetData(target.pix) else {
            throw ImageInputError.decodeFailed(.jpeg, "leptonica could not make the page")
        }
        _ = lept.pixSetSpp(target.pix, lept.pixGetSpp(source.pix))
        // Leptonica keeps 8-bit samples in big-endian words: in pixel order in memory while swapped.
        let grey = source.depth == 8
        if grey { _ = lept.pixEndianByteSwap(source.pix) }
        var error = [CChar](repeating: 0, count: 256)
        let flat = corners.flatMap { [$0.x, $0.y] }
        // the library reads PTCV_SIDE_POINTS points a side: an outline of another length is not followed
        let curves = outline.flatMap { sides in
            sides.count == 4 && sides.allSatisfy({ $0.count == Int(PTCV_SIDE_POINTS) }) ? sides.flatMap { $0.flatMap { [$0.x, $0.y] } } : nil
        }
        func warp(_ curves: UnsafePointer<Double>?) -> Int32 {
            vision.ptcv_warp_sheet(UnsafeRawPointer(from).assumingMemoryBound(to: UInt8.self), Int32(source.width), Int32(source.height),
                                   Int32(lept.pixGetWpl(source.pix) * 4), grey ? 1 : 4, flat, curves,
                                   UnsafeMutableRawPointer(to).assumingMemoryBound(to: UInt8.self), Int32(width), Int32(height),
                                   Int32(lept.pixGetWpl(target.pix) * 4), &error, error.count)
        }
        let status = curves.map { $0.withUnsafeBufferPointer { warp($0.baseAddress) } } ?? warp(nil)
        if grey {
            _ = lept.pixEndianByteSwap(source.pix)
            _ = lept.pixEndianByteSwap(target.pix)
        }
        guard status == 0 else { throw ImageInputError.decodeFailed(.jpeg, "find_page: OpenCV could not undo the perspective: " + SheetFinder.message(error)) }
        return target
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
