/// Every page (IFD) of a TIFF file: what embedding needs to decide between passing CCITT data
/// through and decoding, with every strip checked to lie inside the file.
public struct TIFFFile: Sendable {
    public struct Page: Sendable, Equatable {
        public var width: Int
        public var height: Int
        /// 1 none, 2 CCITT RLE, 3 CCITT T.4 (G3), 4 CCITT T.6 (G4), 5 LZW, 7 JPEG, 8/32946 Deflate, 32773 PackBits.
        public var compression: Int
        /// 0 WhiteIsZero, 1 BlackIsZero, 2 RGB, 3 palette, 5 CMYK, 6 YCbCr.
        public var photometric: Int
        public var bitsPerSample: Int
        public var samplesPerPixel: Int
        public var stripOffsets: [Int]
        public var stripByteCounts: [Int]
        public var fillOrder: Int
        public var resolution: ImageResolution?
        public var orientation: ImageOrientation
        public var t4Options: Int
        public var t6Options: Int
        public var tiled: Bool
        /// Which directory of the file this is (thumbnails are skipped, so it can differ from the page index).
        public var directoryIndex: Int = 0

        /// A single-strip bilevel CCITT G3/G4 page: its strip can become a /CCITTFaxDecode stream as is.
        public var isCCITTPassThrough: Bool {
            (compression == 3 || compression == 4) && stripOffsets.count == 1 && !tiled && bitsPerSample == 1
                && samplesPerPixel == 1 && photometric <= 1
                // T.4 uncompressed mode and T.6 uncompressed mode are not in PDF's filter.
                && (compression == 4 ? t6Options & 2 == 0 : t4Options & 2 == 0)
        }
    }

    public var pages: [Page]

    public init(_ bytes: [UInt8], limits: ImageLimits = ImageLimits()) throws {
        let structure = try TIFFStructure(bytes[...], format: .tiff)
        let directories = try structure.allDirectories()
        guard !directories.isEmpty else { throw ImageInputError.corrupt(.tiff, "no image directory") }
        // Reduced-resolution images (NewSubfileType bit 0: thumbnails, previews) are not pages.
        let full = directories.indices.filter { (structure.integer(254, in: directories[$0]) ?? 0) & 1 == 0 }
        pages = try (full.isEmpty ? Array(directories.indices) : full).enumerated().map { number, index in
            var page = try Self.page(directories[index], number: number + 1, in: structure, fileSize: bytes.count,
                limits: limits)
            page.directoryIndex = index
            return page
        }
    }

    private static func page(_ directory: TIFFStructure.Directory, number: Int, in structure: TIFFStructure,
        fileSize: Int, limits: ImageLimits) throws -> Page
    {
        func integer(_ tag: Int) -> Int? { structure.integer(tag, in: directory) }
        guard let width = integer(256), let height = integer(257) else {
            throw ImageInputError.corrupt(.tiff, "page \(number) has no width or height")
        }
        try limits.check(width: width, height: height, format: .tiff)
        let tiled = directory.entries[322] != nil
        let offsets = structure.integers(tiled ? 324 : 273, in: directory) ?? []
        let counts = structure.integers(tiled ? 325 : 279, in: directory) ?? []
        guard !offsets.isEmpty, offsets.count == counts.count else {
            throw ImageInputError.corrupt(.tiff, "page \(number) has \(offsets.count) strip offsets and \(counts.count) byte counts")
        }
        for (offset, count) in zip(offsets, counts) {
            guard offset >= 0, count >= 0, offset <= fileSize, count <= fileSize - offset else {
                throw ImageInputError.truncated(.tiff, "page \(number) has image data past the end of the file")
            }
        }
        let bits = structure.integers(258, in: directory) ?? [1]
        guard Set(bits).count == 1, let bitsPerSample = bits.first else {
            throw ImageInputError.unsupported(.tiff, "page \(number) mixes sample sizes \(bits)")
        }
        return Page(
            width: width, height: height, compression: integer(259) ?? 1, photometric: integer(262) ?? 0,
            bitsPerSample: bitsPerSample, samplesPerPixel: integer(277) ?? 1, stripOffsets: offsets,
            stripByteCounts: counts, fillOrder: integer(266) ?? 1, resolution: structure.resolution(in: directory),
            orientation: ImageOrientation(tag: integer(274)), t4Options: integer(292) ?? 0,
            t6Options: integer(293) ?? 0, tiled: tiled)
    }

    /// The page's single CCITT strip as a /CCITTFaxDecode image; nil unless `isCCITTPassThrough`.
    public static func ccittImage(_ page: Page, in bytes: [UInt8]) -> PDFStream? {
        guard page.isCCITTPassThrough else { return nil }
        var data = Array(bytes[page.stripOffsets[0]..<(page.stripOffsets[0] + page.stripByteCounts[0])])
        // FillOrder 2 stores each byte's bits lowest first; PDF's filter reads highest first.
        if page.fillOrder == 2 { data = data.map(reverseBits) }
        var parameters: PDFDictionary = [
            "K": .integer(page.compression == 4 ? -1 : page.t4Options & 1 == 1 ? 1 : 0),
            "Columns": .integer(page.width), "Rows": .integer(page.height),
            "BlackIs1": .bool(page.photometric == 1),
        ]
        if page.compression == 3, page.t4Options & 4 != 0 { parameters["EncodedByteAlign"] = true }
        var dictionary = ImageXObject.dictionary(width: page.width, height: page.height, colorSpace: .name("DeviceGray"),
            bitsPerComponent: 1)
        dictionary[.filter] = .name("CCITTFaxDecode")
        dictionary["DecodeParms"] = .dictionary(parameters)
        return PDFStream(dictionary: dictionary, data: data)
    }

    static func reverseBits(_ byte: UInt8) -> UInt8 {
        var value = byte
        value = (value & 0xF0) >> 4 | (value & 0x0F) << 4
        value = (value & 0xCC) >> 2 | (value & 0x33) << 2
        return (value & 0xAA) >> 1 | (value & 0x55) << 1
    }

    /// The page size for `page` at its stated resolution or `limits.defaultDPI`.
    public static func imagePage(_ image: PDFStream, softMask: PDFStream? = nil, for page: Page, limits: ImageLimits)
        -> ImagePage
    {
        ImagePage(image: image, softMask: softMask, pixelWidth: page.width, pixelHeight: page.height,
            resolution: page.resolution ?? ImageResolution(x: limits.defaultDPI, y: limits.defaultDPI),
            orientation: page.orientation)
    }
}
