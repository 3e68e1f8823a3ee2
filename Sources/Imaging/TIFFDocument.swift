import TrapperCore

/// A TIFF, page by page: single-strip CCITT G3/G4 pages pass through untouched; every other page
/// is decoded by leptonica and Flate-compressed.
public struct TIFFDocument: ImageDocument {
    public let bytes: [UInt8]
    public let file: TIFFFile
    public let limits: ImageLimits
    let flate: any FlateCoding

    public init(_ bytes: [UInt8], limits: ImageLimits, flate: any FlateCoding) throws {
        self.bytes = bytes
        self.file = try TIFFFile(bytes, limits: limits)
        self.limits = limits
        self.flate = flate
    }

    public var format: ImageFormat { .tiff }
    public var pageCount: Int { file.pages.count }

    public func page(_ index: Int) throws -> ImagePage {
        guard file.pages.indices.contains(index) else { throw ImageInputError.noSuchPage(index, count: pageCount) }
        let page = file.pages[index]
        if let image = TIFFFile.ccittImage(page, in: bytes) {
            return TIFFFile.imagePage(image, for: page, limits: limits)
        }
        guard let pix = try LeptonicaPix.tiffPage(bytes, index: page.directoryIndex) else {
            throw ImageInputError.decodeFailed(.tiff, "page \(index + 1) (compression \(page.compression)) could not be decoded")
        }
        // Leptonica turns the page by its Orientation tag while decoding, so what comes out is upright.
        let turned = page.orientation.swapsSides
        guard (pix.width, pix.height) == (turned ? (page.height, page.width) : (page.width, page.height)) else {
            throw ImageInputError.decodeFailed(.tiff, "page \(index + 1) decoded to \(pix.width) x \(pix.height), not \(page.width) x \(page.height)")
        }
        let decoded = try pix.pdfSamples()
        var image = try flateImage(decoded.samples, width: pix.width, height: pix.height, colorSpace: decoded.colorSpace,
            bits: decoded.bits)
        if let decode = decoded.decode { image.dictionary["Decode"] = decode }
        let softMask = try decoded.alpha.flatMap { alpha -> PDFStream? in
            guard alpha.contains(where: { $0 != 0xFF }) else { return nil }
            return try flateImage(alpha, width: pix.width, height: pix.height, colorSpace: .name("DeviceGray"), bits: 8)
        }
        var upright = page
        (upright.width, upright.height) = (pix.width, pix.height)
        if turned, let resolution = page.resolution {
            upright.resolution = ImageResolution(x: resolution.y, y: resolution.x)
        }
        upright.orientation = .up
        return TIFFFile.imagePage(image, softMask: softMask, for: upright, limits: limits)
    }

    private func flateImage(_ samples: [UInt8], width: Int, height: Int, colorSpace: PDFObject, bits: Int) throws
        -> PDFStream
    {
        PDFStream(
            dictionary: [
                .type: .name("XObject"), "Subtype": .name("Image"), "Width": .integer(width), "Height": .integer(height),
                "ColorSpace": colorSpace, "BitsPerComponent": .integer(bits), .filter: .name("FlateDecode"),
            ], data: try flate.deflate(samples))
    }
}
