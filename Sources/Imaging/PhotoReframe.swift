import CLeptonica
import TrapperCore

/// The photo a `find_page` page is cut from, kept in the file (`KeptPhoto`), and the page cut from
/// it again along other corners (`reframe`). The photo is kept in one of two forms this file can
/// read back: a JPEG's own bytes (DCTDecode, as a JPEG input or a HEIC stored as JPEG went in), or
/// 8-bit grey or RGB samples under Flate (with or without PNG predictors, as a PNG input's are).
public enum PhotoReframe {
    /// The page cut along `corners` (fractions of the upright photo, clockwise from the top left)
    /// from the photo `image` kept as `photo` says, then given the steps it was given at first
    /// (`clean`, `compress`): the new picture, upright, and what was done, for the history.
    public static func cut(_ photo: KeptPhoto, image: PDFStream, corners: [SheetGeometry.Point], flate: any FlateCoding) throws
        -> (page: ImagePage, notes: [String])
    {
        let lept = try Leptonica.functions()
        _ = lept.setMsgSeverity(Int32(L_SEVERITY_ERROR))
        let upright = try PageProcessor.oriented(try pixels(of: image, flate: flate), photo.orientation)
        let (width, height) = (Double(upright.width), Double(upright.height))
        func inPixels(_ points: [SheetGeometry.Point]) -> [SheetGeometry.Point] {
            points.map { SheetGeometry.Point($0.x * width - 0.5, $0.y * height - 0.5) }
        }
        let sheet = SheetGeometry.sheet(corners: inPixels(corners), width: upright.width, height: upright.height, focal35: photo.focal35)
        // The page's own corners again: cut along the curves it was cut along first, if its sides bowed
        let outline = photo.outline(cutAt: corners).map { $0.map(inPixels) }
        guard case .found(var pix, let dpi, let resolution, _, _, let note) = try PhotoSheet.warp(
            upright, corners: outline.map { sides in sides.map { $0[0] } } ?? inPixels(corners), outline: outline, sheet: sheet, dpi: photo.dpi)
        else {
            throw ImageInputError.decodeFailed(.jpeg, "the corners enclose too little of the photo to be a page")
        }
        var notes = [note]
        if photo.clean, pix.depth > 1 {
            pix = try PhotoSheet.clean(pix)
            _ = lept.pixSetResolution(pix.pix, Int32(dpi), Int32(dpi))
            notes.append("cleaned (light evened out, paper whitened)")
        }
        let storedAsJPEG = image.dictionary[.filter] == .name("DCTDecode")
        var (page, stored) = try PageProcessor.store(pix, dpi: dpi, bilevel: PageProcessor.isBilevel(photo.compress, pix),
                                                     jpegQuality: storedAsJPEG && photo.compress != .lossless ? photo.jpegQuality : nil,
                                                     flate: flate)
        notes.append(stored)
        // The colours are still in the photo's ICC profile: the new picture points at the same one.
        if page.image.dictionary["ColorSpace"] == .name("DeviceRGB"), case .array(let space)? = image.dictionary["ColorSpace"],
           space.first == .name("ICCBased") {
            page.image.dictionary["ColorSpace"] = .array(space)
        }
        if let resolution { page = page.shown(at: resolution) }
        return (page, notes)
    }

    /// The kept photo upright, `width` pixels wide, as a JPEG: what the workspace shows to drag the
    /// corners on.
    public static func picture(_ photo: KeptPhoto, image: PDFStream, width: Int, flate: any FlateCoding) throws -> [UInt8] {
        let lept = try Leptonica.functions()
        _ = lept.setMsgSeverity(Int32(L_SEVERITY_ERROR))
        var pix = try PageProcessor.oriented(try pixels(of: image, flate: flate), photo.orientation)
        let scale = Float(width) / Float(pix.width)
        if scale < 1, let smaller = LeptonicaPix(lept, lept.pixScale(pix.pix, scale, scale)) { pix = smaller }
        return try PageProcessor.written(pix) { lept.pixWriteMemJpeg($0, $1, $2, 85, 0) }
    }

    /// What ingest keeps of a photo `find_page` looked at: `original` (the page as made from the
    /// file) when its image is in a form `pixels` reads, else `decoded` (its pixels as stored,
    /// before orientation) as 8-bit grey or RGB samples. Without its soft mask: only its pixels
    /// are cut from again.
    static func keepable(_ original: ImagePage, decoded: LeptonicaPix?, flate: any FlateCoding) throws -> ImagePage {
        var kept = original
        kept.softMask = nil
        kept.image.dictionary["SMask"] = nil
        if isReadable(original.image) { return kept }
        guard let decoded else { throw ImageInputError.decodeFailed(.png, "the photo's pixels were not kept to store it") }
        let lept = decoded.lept
        var pix = decoded
        if lept.pixGetColormap(pix.pix) != nil || pix.depth == 32 || pix.depth > 8 {
            guard let rgb = LeptonicaPix(lept, lept.pixConvertTo32(pix.pix)) else {
                throw ImageInputError.decodeFailed(.png, "leptonica could not make the photo's RGB copy to keep")
            }
            _ = lept.pixSetSpp(rgb.pix, 3)
            pix = rgb
        } else if pix.depth < 8, let gray = LeptonicaPix(lept, lept.pixConvertTo8(pix.pix, 0)) {
            pix = gray
        }
        let stored = try PageProcessor.encode(pix, dpi: 72, jpegQuality: nil, flate: flate)
        kept.image = stored.image
        return kept
    }

    /// Whether `pixels` reads `image` as it is.
    static func isReadable(_ image: PDFStream) -> Bool {
        let dictionary = image.dictionary
        if dictionary[.filter] == .name("DCTDecode") { return true }
        return dictionary[.filter] == .name("FlateDecode") && dictionary["BitsPerComponent"]?.integerValue == 8
            && [.name("DeviceGray"), .name("DeviceRGB")].contains(dictionary["ColorSpace"])
    }

    /// The kept photo's pixels as stored (before its orientation), its size checked against
    /// `limits` before a pixel is decoded: the file may not be ours.
    static func pixels(of image: PDFStream, flate: any FlateCoding, limits: ImageLimits = ImageLimits()) throws -> LeptonicaPix {
        let lept = try Leptonica.functions()
        let dictionary = image.dictionary
        if dictionary[.filter] == .name("DCTDecode") {
            _ = try JPEGFile(image.data, limits: limits)
            guard let pix = image.data.withUnsafeBufferPointer({ LeptonicaPix(lept, lept.pixReadMem($0.baseAddress, $0.count)) }) else {
                throw ImageInputError.decodeFailed(.jpeg, "the kept photo's JPEG could not be decoded")
            }
            return pix
        }
        guard let width = dictionary["Width"]?.integerValue, let height = dictionary["Height"]?.integerValue, width > 0, height > 0,
              dictionary[.filter] == .name("FlateDecode"), dictionary["BitsPerComponent"]?.integerValue == 8 else {
            throw ImageInputError.decodeFailed(.png, "the kept photo is in a form this version does not read")
        }
        try limits.check(width: width, height: height, format: .png)
        // An ICC profile's component count is in its own stream: the samples tell instead.
        let parameters = PDFPredictor.Parameters(dictionary["DecodeParms"]?.dictionaryValue)
        let inflated = try flate.inflate(image.data, limit: (width * 3 + 1) * height)
        let channels: Int
        switch dictionary["ColorSpace"] {
        case .name("DeviceGray")?: channels = 1
        case .name("DeviceRGB")?: channels = 3
        case .array(let space)? where space.first == .name("ICCBased"):
            channels = parameters.predictor >= 10 ? parameters.colors : inflated.count / (width * height)
        default: throw ImageInputError.decodeFailed(.png, "the kept photo's colour space is not grey or RGB")
        }
        guard channels == 1 || channels == 3 else { throw ImageInputError.decodeFailed(.png, "the kept photo is not grey or RGB") }
        let rowBytes = width * channels
        let samples = try PDFPredictor.undo(inflated, parameters)
        guard samples.count >= rowBytes * height,
              let pix = LeptonicaPix(lept, raster: Raster(width: width, height: height, channels: channels, depth: 8,
                                                          bytesPerLine: rowBytes, samples: samples)) else {
            throw ImageInputError.decodeFailed(.png, "the kept photo's samples are cut short")
        }
        return pix
    }
}
