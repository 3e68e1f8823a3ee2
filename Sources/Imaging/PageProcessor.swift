import CLeptonica
import Foundation
import TrapperCore

/// The page steps of a rule or profile, done with leptonica on one image page: blank detection,
/// deskew, orientation and bilevel compression. Pixels are looked at in a 150 ppi grey copy; the
/// page itself is encoded again only when its pixels change (deskew, bilevel), and a JPEG's bytes
/// otherwise go into the PDF untouched. Orientation is always fixed with /Rotate.
public enum PageProcessor {
    public struct Result {
        public var page: ImagePage
        /// Clockwise degrees for the page's /Rotate.
        public var rotate: Int
        public var blank: Bool
        /// When the steps split at separators and this page is one: it goes into no document.
        public var separator: SeparatorSheet?
        /// What was done, for the log and the history: "deskewed by 1.8°, encoded again as JPEG (quality 85)".
        public var notes: [String]
        /// With `find_page`: the photo to keep beside the page, so that it can be cut again.
        public var photo: PhotoToKeep?
    }

    /// The photo `find_page` cut a page from, to be kept in the file with the page (`KeptPhoto`).
    public struct PhotoToKeep {
        /// The photo's image to add to the file; nil when the page's own image is the photo
        /// (nothing was cut or changed), which is then kept by reference alone.
        public var picture: ImagePage?
        /// All but `image`, which is set once the photo's object is written.
        public var kept: KeptPhoto
    }

    /// `bytes` is the image file, `index` the page of it (a multi-page TIFF's), `page` that page as
    /// made for the PDF (its resolution and EXIF orientation count).
    public static func process(_ page: ImagePage, bytes: [UInt8], index: Int, steps: PageSteps,
                               flate: any FlateCoding) throws -> Result {
        var result = Result(page: page, rotate: 0, blank: false, notes: page.notes)
        guard !steps.isEmpty else { return result }
        let lept = try Leptonica.functions()
        // Leptonica's own notes ("not enough confidence to get orientation") are not the daemon's log.
        _ = lept.setMsgSeverity(Int32(L_SEVERITY_ERROR))
        let format = FileKind.sniff(bytes).imageFormat
        // The pixels as decoded are needed again only to keep a photo a PDF cannot hold as it is (a
        // HEIC); otherwise only the upright copy is held, and it goes as soon as the steps have made
        // the page from it (a 12-megapixel photo is 48 MB, which would be held beside the page).
        var (pix, decoded) = try decodeUpright(bytes, index: index, format: format, page: page,
                                            keep: steps.findPage && !PhotoReframe.isReadable(page.image))
        let (photoWidth, photoHeight) = (Double(pix.width), Double(pix.height))
        var dpi = max(1, Int((Double(pix.width) / page.widthPoints * 72).rounded()))
        _ = lept.pixSetResolution(pix.pix, Int32(dpi), Int32(dpi))
        var changed = false
        // A sheet of a paper size found in a photo is that size to the point, not to the whole dpi.
        var paperResolution: ImageResolution? = nil
        let photoDPI = dpi
        var cutAlong = KeptPhoto.wholePhoto
        var outlined: [[SheetGeometry.Point]]? = nil
        var suggested: [SheetGeometry.Point]? = nil
        // an outline as it was cut, a side's margin beyond the frame included; corners within the photo
        func unclamped(_ points: [SheetGeometry.Point]) -> [SheetGeometry.Point] {
            points.map { SheetGeometry.Point(($0.x + 0.5) / photoWidth, ($0.y + 0.5) / photoHeight) }
        }
        func fractions(_ corners: [SheetGeometry.Point]) -> [SheetGeometry.Point] {
            unclamped(corners).map { SheetGeometry.Point(min(1, max(0, $0.x)), min(1, max(0, $0.y))) }
        }
        if steps.findPage {
            switch try PhotoSheet.find(pix, dpi: dpi, focal35: page.focal35) {
            case .found(let sheet, let sheetDPI, let resolution, let corners, let outline, let note):
                (pix, dpi, paperResolution, changed) = (sheet, sheetDPI, resolution, true)
                cutAlong = fractions(corners)
                outlined = outline.map { $0.map(unclamped) }
                result.notes.append(note)
            case .leftAsItIs(let note, let suggestion):
                result.notes += note.map { [$0] } ?? []
                suggested = suggestion.map(fractions)
            }
        }
        // A bitmap (a lineart scan, a G4 TIFF) has no light to even out.
        if steps.clean == .auto, pix.depth > 1 {
            pix = try PhotoSheet.clean(pix)
            _ = lept.pixSetResolution(pix.pix, Int32(dpi), Int32(dpi))
            changed = true
            result.notes.append("cleaned (light evened out, paper whitened)")
        }
        var ink = try inkImage(pix, dpi: dpi)

        if let separator = steps.separator,
           let sheet = try SeparatorReader.sheet(pix, dpi: dpi, ink: ink, separator: separator, blankThreshold: steps.blankThreshold) {
            result.separator = sheet
            return result
        }
        if steps.blank == .drop {
            let fraction = inkFraction(ink)
            if fraction < steps.blankThreshold {
                result.blank = true
                result.notes.append(String(format: "blank (%.3f%% ink)", fraction * 100))
                return result
            }
        }
        if let threshold = steps.deskewAbove {
            let (angle, confidence) = try skew(pix, dpi: dpi)
            // Below 3 (leptonica's own bar, as in pixDeskew) the lines found are too few or too faint.
            if confidence < Self.skewConfidence {
                result.notes.append(String(format: "deskew: no reliable angle (confidence %.1f, under %.0f)",
                                           Double(confidence), Double(Self.skewConfidence)))
            } else if abs(Double(angle)) > threshold {
                guard let turned = LeptonicaPix(lept, lept.pixRotate(pix.pix, angle * .pi / 180, Int32(L_ROTATE_AREA_MAP),
                                                          Int32(L_BRING_IN_WHITE), 0, 0)) else {
                    throw ImageInputError.decodeFailed(format ?? .jpeg, "leptonica could not rotate the page")
                }
                _ = lept.pixSetResolution(turned.pix, Int32(dpi), Int32(dpi))
                pix = turned
                ink = try inkImage(pix, dpi: dpi)
                changed = true
                result.notes.append(String(format: "deskewed by %.2f°", Double(angle)))
            }
        }
        if steps.orient {
            var up: Float = 0, left: Float = 0
            var orientation: Int32 = 0
            if lept.pixOrientDetect(ink.pix, &up, &left, 0, 0) == 0, lept.makeOrientDecision(up, left, 0, 0, &orientation, 0) == 0 {
                let turns: [Int32: Int] = [Int32(L_TEXT_ORIENT_LEFT): 90, Int32(L_TEXT_ORIENT_DOWN): 180,
                                           Int32(L_TEXT_ORIENT_RIGHT): 270]
                if let rotate = turns[orientation] {
                    result.rotate = rotate
                    result.notes.append("turned \(rotate)° (text was \(rotate == 180 ? "upside down" : "sideways"))")
                }
            }
        }
        let bilevel = isBilevel(steps.compress, pix)
        // A JPEG stays a JPEG (one more lossy encoding, said in the log), and so does a photo
        // stored as one; anything lossless stays lossless.
        let storedAsJPEG = format == .jpeg || (format?.isDecodedPhoto == true && page.image.dictionary[.filter] == .name("DCTDecode"))
        let quality = format == .jpeg ? steps.reencodingQuality : steps.photoEncoding.jpegQuality
        let encodedAgain = changed || (bilevel && pix.depth != 1)
        if encodedAgain {
            let stored: String
            (result.page, stored) = try store(pix, dpi: dpi, bilevel: bilevel,
                                              jpegQuality: storedAsJPEG && steps.compress != .lossless ? quality : nil, flate: flate)
            // The colours are still in the photo's profile (a deskew moves pixels, it does not convert them).
            if pix.depth == 32, !bilevel { result.page.colorProfile = page.colorProfile }
            result.notes.append(stored)
        }
        if let paperResolution { result.page = result.page.shown(at: paperResolution) }
        if steps.findPage {
            let kept = KeptPhoto(image: PDFReference(0), orientation: page.orientation, width: Int(photoWidth), height: Int(photoHeight),
                                 dpi: photoDPI, corners: cutAlong,
                                 clean: steps.clean == .auto, compress: steps.compress, jpegQuality: quality, ocr: steps.ocr,
                                 suggested: suggested, focal35: page.focal35, outline: outlined)
            result.photo = PhotoToKeep(picture: encodedAgain ? try PhotoReframe.keepable(page, decoded: decoded, flate: flate) : nil,
                                       kept: kept)
        }
        return result
    }

    /// Whether a page is stored bilevel: `compress = "bilevel"`, or `"auto"` and text on white.
    static func isBilevel(_ compress: Compression, _ pix: LeptonicaPix) -> Bool {
        compress == .bilevel || (compress == .auto && isTextOnWhite(pix))
    }

    /// `pix` stored as a page's picture: bilevel as CCITT G4, else as JPEG at `jpegQuality` when
    /// given and the pixels allow it, else losslessly; with what was done, for the history.
    static func store(_ pix: LeptonicaPix, dpi: Int, bilevel: Bool, jpegQuality: Int?, flate: any FlateCoding) throws
        -> (page: ImagePage, note: String)
    {
        if bilevel { return (try encode(bilevel: pix, dpi: dpi, flate: flate), "stored as bilevel CCITT G4") }
        let quality = (pix.depth == 8 || pix.depth == 32) && pix.lept.pixGetColormap(pix.pix) == nil ? jpegQuality : nil
        let page = try encode(pix, dpi: dpi, jpegQuality: quality, flate: flate)
        return (page, pix.depth == 1 ? "encoded again as CCITT G4"
                : quality.map { "encoded again as JPEG (quality \($0))" } ?? "encoded again losslessly (PNG)")
    }

    /// The clockwise turn (0, 90, 180, 270) that stands the text of a grey raster upright; 0 when
    /// leptonica is not sure (too little text). Called with an OCR engine running, so leptonica is
    /// there (tesseract links it).
    public static func uprightTurn(_ raster: Raster, dpi: Int) -> Int {
        guard let lept = try? Leptonica.functions() else { return 0 }
        _ = lept.setMsgSeverity(Int32(L_SEVERITY_ERROR))
        guard let pix = LeptonicaPix(lept, raster: raster), let ink = try? inkImage(pix, dpi: dpi) else { return 0 }
        var up: Float = 0, left: Float = 0
        var orientation: Int32 = 0
        guard lept.pixOrientDetect(ink.pix, &up, &left, 0, 0) == 0, lept.makeOrientDecision(up, left, 0, 0, &orientation, 0) == 0 else {
            return 0
        }
        return [Int32(L_TEXT_ORIENT_LEFT): 90, Int32(L_TEXT_ORIENT_DOWN): 180, Int32(L_TEXT_ORIENT_RIGHT): 270][orientation] ?? 0
    }

    /// An 8-bit grey raster turned clockwise by a right angle.
    public static func turned(_ raster: Raster, clockwise degrees: Int) -> Raster {
        let (w, h) = (raster.width, raster.height)
        let quarter = ((degrees / 90) % 4 + 4) % 4
        guard quarter != 0, raster.channels == 1, raster.depth == 8 else { return raster }
        let (nw, nh) = quarter % 2 == 0 ? (w, h) : (h, w)
        var out = [UInt8](repeating: 255, count: nw * nh)
        raster.samples.withUnsafeBufferPointer { source in
            for y in 0..<h {
                for x in 0..<w {
                    let (nx, ny): (Int, Int)
                    switch quarter {
                    case 1: (nx, ny) = (h - 1 - y, x)
                    case 2: (nx, ny) = (w - 1 - x, h - 1 - y)
                    default: (nx, ny) = (y, w - 1 - x)
                    }
                    out[ny * nw + nx] = source[y * raster.bytesPerLine + x]
                }
            }
        }
        return Raster(width: nw, height: nh, channels: 1, depth: 8, bytesPerLine: nw, samples: out)
    }

    // MARK: Pixels

    /// The page's pixels as stored (before its orientation). A photo a PDF cannot hold was decoded
    /// once already to make `page`: its JPEG is read back rather than the HEVC or AV1 decoded again.
    static func decode(_ bytes: [UInt8], index: Int, format: ImageFormat?, page: ImagePage) throws -> LeptonicaPix? {
        if format == .tiff { return try LeptonicaPix.tiffPage(bytes, index: index) }
        let lept = try Leptonica.functions()
        if format?.isDecodedPhoto == true {
            if page.image.dictionary[.filter] == .name("DCTDecode") {
                return page.image.data.withUnsafeBufferPointer { LeptonicaPix(lept, lept.pixReadMem($0.baseAddress, $0.count)) }
            }
            let decoded = try format == .webp ? WebPPhoto(bytes, limits: ImageLimits(maxPixels: .max)).decode()
                : HEIFPhoto(bytes, format: format!, limits: ImageLimits(maxPixels: .max)).decode()
            return LeptonicaPix(lept, raster: decoded.color)
        }
        return bytes.withUnsafeBufferPointer { LeptonicaPix(lept, lept.pixReadMem($0.baseAddress, $0.count)) }
    }

    /// The page's pixels upright, and, when `keep`, as decoded (before orientation).
    static func decodeUpright(_ bytes: [UInt8], index: Int, format: ImageFormat?, page: ImagePage, keep: Bool) throws
        -> (upright: LeptonicaPix, decoded: LeptonicaPix?)
    {
        guard let decoded = try decode(bytes, index: index, format: format, page: page) else {
            throw ImageInputError.decodeFailed(format ?? .jpeg, "leptonica could not decode the page for its page steps")
        }
        return (try oriented(decoded, page.orientation), keep ? decoded : nil)
    }

    /// The pixels as the page shows them (EXIF orientation applied).
    static func oriented(_ pix: LeptonicaPix, _ orientation: ImageOrientation) throws -> LeptonicaPix {
        let lept = pix.lept
        let quarterTurns: Int32
        switch orientation {
        case .up, .mirrored: quarterTurns = 0
        case .right, .leftMirrored: quarterTurns = 1
        case .down, .downMirrored: quarterTurns = 2
        case .left, .rightMirrored: quarterTurns = 3
        }
        var result = pix
        if quarterTurns != 0, let turned = LeptonicaPix(lept, lept.pixRotateOrth(pix.pix, quarterTurns)) { result = turned }
        if [.mirrored, .downMirrored, .leftMirrored, .rightMirrored].contains(orientation),
           let flipped = LeptonicaPix(lept, lept.pixFlipLR(nil, result.pix)) {
            result = flipped
        }
        return result
    }

    /// Ink as 1-bit pixels at about 150 ppi, with scanner specks (smaller than 3 × 3 there, a half
    /// millimetre) cleaned away.
    /// Leptonica's bar for a skew it trusts (`MinAllowedConfidence` in its skew.c).
    static let skewConfidence: Float = 3

    /// The page's skew in degrees and leptonica's confidence in it. Found on a bilevel copy at the
    /// page's own resolution (at most 300 ppi), swept at half that and refined at full: the 150 ppi
    /// ink image with leptonica's default 4x reduced sweep blurs small text so much that a receipt of
    /// seven lines skewed by 2° scores a confidence of 2.7, and was left crooked without a word.
    static func skew(_ pix: LeptonicaPix, dpi: Int) throws -> (angle: Float, confidence: Float) {
        let lept = pix.lept
        guard var gray = LeptonicaPix(lept, lept.pixConvertTo8(pix.pix, 0)) else {
            throw ImageInputError.decodeFailed(.jpeg, "leptonica could not make a grey copy")
        }
        if dpi > 300, let smaller = LeptonicaPix(lept, lept.pixScale(gray.pix, Float(300) / Float(dpi), Float(300) / Float(dpi))) {
            gray = smaller
        }
        guard let binary = LeptonicaPix(lept, lept.pixThresholdToBinary(gray.pix, 128)) else {
            throw ImageInputError.decodeFailed(.jpeg, "leptonica could not threshold the page")
        }
        var angle: Float = 0, confidence: Float = 0
        // Sweep ±7° in 1° steps at 2x reduction, then halve down to 0.01° at full resolution.
        guard lept.pixFindSkewSweepAndSearch(binary.pix, &angle, &confidence, 2, 1, 7, 1, 0.01) == 0 else { return (0, 0) }
        return (angle, confidence)
    }

    static func inkImage(_ pix: LeptonicaPix, dpi: Int) throws -> LeptonicaPix {
        let lept = pix.lept
        guard var gray = LeptonicaPix(lept, lept.pixConvertTo8(pix.pix, 0)) else {
            throw ImageInputError.decodeFailed(.jpeg, "leptonica could not make a grey copy")
        }
        if dpi > 170, let smaller = LeptonicaPix(lept, lept.pixScale(gray.pix, Float(150) / Float(dpi), Float(150) / Float(dpi))) {
            gray = smaller
        }
        guard let binary = LeptonicaPix(lept, lept.pixThresholdToBinary(gray.pix, 128)),
              let clean = LeptonicaPix(lept, lept.pixSelectBySize(binary.pix, 3, 3, 8, Int32(L_SELECT_IF_BOTH),
                                                       Int32(L_SELECT_IF_GTE), nil)) else {
            throw ImageInputError.decodeFailed(.jpeg, "leptonica could not threshold the page")
        }
        _ = lept.pixSetResolution(clean.pix, 150, 150)
        return clean
    }

    /// The fraction of the page inside a 4% margin (where scanner lids and edges cast shadows) that is ink.
    static func inkFraction(_ ink: LeptonicaPix) -> Double {
        let lept = ink.lept
        let (width, height) = (ink.width, ink.height)
        let (mx, my) = (width / 25, height / 25)
        guard width - 2 * mx > 0, height - 2 * my > 0, let box = lept.boxCreate(Int32(mx), Int32(my), Int32(width - 2 * mx), Int32(height - 2 * my))
        else { return 0 }
        var boxPointer: UnsafeMutablePointer<BOX>? = box
        defer { lept.boxDestroy(&boxPointer) }
        guard let inner = LeptonicaPix(lept, lept.pixClipRectangle(ink.pix, box, nil)) else { return 0 }
        var count: Int32 = 0
        _ = lept.pixCountPixels(inner.pix, &count, nil)
        return Double(count) / Double(inner.width * inner.height)
    }

    /// Text on white: hardly any colour, and hardly any pixel between paper and ink.
    static func isTextOnWhite(_ pix: LeptonicaPix) -> Bool {
        let lept = pix.lept
        if pix.depth == 1 { return true }
        if pix.depth == 32 {
            var pixelFraction: Float = 0, colorFraction: Float = 0
            if lept.pixColorFraction(pix.pix, 20, 235, 40, 4, &pixelFraction, &colorFraction) == 0, colorFraction > 0.02 { return false }
        }
        guard let gray = LeptonicaPix(lept, lept.pixConvertTo8(pix.pix, 0)) else { return false }
        var histogram = [Int](repeating: 0, count: 256)
        let (width, height) = (gray.width, gray.height)
        let words = Int(lept.pixGetWpl(gray.pix))
        guard let data = lept.pixGetData(gray.pix) else { return false }
        for y in stride(from: 0, to: height, by: 4) {
            for x in stride(from: 0, to: width, by: 4) {
                let word = data[y * words + x / 4]
                histogram[Int((word >> (24 - 8 * UInt32(x % 4))) & 0xFF)] += 1
            }
        }
        let total = histogram.reduce(0, +)
        let middle = histogram[70..<200].reduce(0, +)
        return total > 0 && Double(middle) / Double(total) < 0.05
    }

    // MARK: Encoding

    static func encode(bilevel pix: LeptonicaPix, dpi: Int, flate: any FlateCoding) throws -> ImagePage {
        let lept = pix.lept
        var binary = pix
        if pix.depth != 1 {
            guard let gray = LeptonicaPix(lept, lept.pixConvertTo8(pix.pix, 0)), let made = LeptonicaPix(lept, lept.pixThresholdToBinary(gray.pix, 140)) else {
                throw ImageInputError.decodeFailed(.tiff, "leptonica could not threshold the page to 1 bit")
            }
            binary = made
        }
        _ = lept.pixSetResolution(binary.pix, Int32(dpi), Int32(dpi))
        return try page(written(binary) { lept.pixWriteMemTiff($0, $1, $2, Int32(IFF_TIFF_G4)) }, flate: flate)
    }

    /// As JPEG at `jpegQuality`, or losslessly (G4 for 1 bit, PNG otherwise, 16-bit samples kept) when nil.
    static func encode(_ pix: LeptonicaPix, dpi: Int, jpegQuality: Int?, flate: any FlateCoding) throws -> ImagePage {
        let lept = pix.lept
        if pix.depth == 1 { return try encode(bilevel: pix, dpi: dpi, flate: flate) }
        if let jpegQuality {
            return try page(written(pix) { lept.pixWriteMemJpeg($0, $1, $2, Int32(jpegQuality), 0) }, flate: flate)
        }
        return try page(written(pix) { lept.pixWriteMemPng($0, $1, $2, 0) }, flate: flate)
    }

    /// The bytes leptonica's `pixWriteMem*` function `write` makes of `pix`.
    static func written(_ pix: LeptonicaPix,
                                _ write: (UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>, UnsafeMutablePointer<Int>, UnsafeMutablePointer<PIX>?) -> Int32)
        throws -> [UInt8] {
        var data: UnsafeMutablePointer<UInt8>?
        var size = 0
        guard write(&data, &size, pix.pix) == 0, let data else {
            throw ImageInputError.decodeFailed(.jpeg, "leptonica could not encode the processed page")
        }
        defer { pix.lept.lept_free(data) }
        return Array(UnsafeBufferPointer(start: data, count: size))
    }

    private static func page(_ bytes: [UInt8], flate: any FlateCoding) throws -> ImagePage {
        try ImageFiles.open(bytes: bytes, flate: flate).page(0)
    }
}
