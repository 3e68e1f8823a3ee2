/// A photo a PDF cannot hold as it is (HEIC's HEVC, AVIF's AV1, WebP's VP8), decoded by its library
/// into 8-bit samples, with what the file said about showing it. `page` stores it as JPEG (the
/// bytes the caller encoded) or losslessly.
public struct DecodedPhoto: Sendable {
    public var format: ImageFormat
    /// 8-bit RGB, rows packed (`bytesPerLine` = width × 3).
    public var color: Raster
    /// One 8-bit alpha sample a pixel, not premultiplied; nil when the file has none.
    public var alpha: [UInt8]?
    /// The ICC profile the file carries (an iPhone's Display P3), as it is.
    public var iccProfile: [UInt8]?
    /// From the file's EXIF density; nil when it states none.
    public var resolution: ImageResolution?
    /// How the decoded pixels are turned on the page: a WebP's EXIF orientation. HEIF's own
    /// transforms (irot, imir) are applied by libheif while decoding, so its photos come upright.
    public var orientation: ImageOrientation
    /// Bits per sample in the file (10 or 12 for HDR HEIF and AVIF), before decoding to 8.
    public var sourceBits: Int
    /// The file's own coding loses nothing (a lossless WebP): stored losslessly whatever the rule says.
    public var lossless: Bool

    public init(format: ImageFormat, color: Raster, alpha: [UInt8]? = nil, iccProfile: [UInt8]? = nil,
                resolution: ImageResolution? = nil, orientation: ImageOrientation = .up, sourceBits: Int = 8,
                lossless: Bool = false) {
        self.format = format
        self.color = color
        self.alpha = alpha
        self.iccProfile = iccProfile
        self.resolution = resolution
        self.orientation = orientation
        self.sourceBits = sourceBits
        self.lossless = lossless
    }

    public var width: Int { color.width }
    public var height: Int { color.height }

    /// Whether `encoding` stores this photo as JPEG (else Flate).
    public func storedAsJPEG(_ encoding: PhotoEncoding) -> Bool { !lossless && !encoding.lossless }

    /// The page: `jpeg` (the samples encoded by the caller at `encoding.jpegQuality`) as /DCTDecode,
    /// or, when nil, the samples Flate-compressed; alpha as an /SMask (left out when all opaque),
    /// the ICC profile as /ICCBased, the notes saying what was done to the file's pixels.
    public func page(jpeg: [UInt8]?, encoding: PhotoEncoding, limits: ImageLimits, flate: any FlateCoding) throws
        -> ImagePage
    {
        var image: PDFStream
        let colorSpace = ImageXObject.deviceColorSpace(components: 3)
        if let jpeg {
            var dictionary = ImageXObject.dictionary(width: width, height: height, colorSpace: colorSpace, bitsPerComponent: 8)
            dictionary[.filter] = .name("DCTDecode")
            image = PDFStream(dictionary: dictionary, data: jpeg)
        } else {
            image = try ImageXObject.flate(color.samples, width: width, height: height, colorSpace: colorSpace,
                                           bitsPerComponent: 8, flate: flate)
        }
        let mask = try alpha.flatMap { alpha -> PDFStream? in
            guard alpha.contains(where: { $0 != 0xFF }) else { return nil }
            return try ImageXObject.flate(alpha, width: width, height: height, colorSpace: .name("DeviceGray"),
                                          bitsPerComponent: 8, flate: flate)
        }
        let dpi = ImageResolution(x: limits.defaultDPI, y: limits.defaultDPI)
        var page = ImagePage(image: image, softMask: mask, pixelWidth: width, pixelHeight: height,
                             resolution: resolution ?? dpi, orientation: orientation)
        page.colorProfile = try iccProfile.flatMap { try ColorProfile($0, components: 3, flate: flate) }
        var note = "\(format.rawValue) " + (jpeg != nil ? "stored as JPEG (quality \(encoding.jpegQuality))"
                                            : "stored losslessly (Flate)")
        if sourceBits > 8 { note += ", its \(sourceBits)-bit samples reduced to 8 bits" }
        if iccProfile != nil, page.colorProfile == nil { note += ", its ICC profile left out (not an RGB profile)" }
        page.notes.append(note)
        return page
    }
}

/// How a decoded photo is stored: JPEG at `jpegQuality` (a rule's `jpeg_quality`, 90 unless it says),
/// or losslessly with `compress = "lossless"`.
public struct PhotoEncoding: Sendable, Equatable {
    public static let defaultJPEGQuality = 90

    public var jpegQuality: Int
    public var lossless: Bool

    public init(jpegQuality: Int = PhotoEncoding.defaultJPEGQuality, lossless: Bool = false) {
        self.jpegQuality = jpegQuality
        self.lossless = lossless
    }
}
