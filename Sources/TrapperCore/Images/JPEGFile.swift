/// What a JPEG's headers say (SOFn, APP0 JFIF, APP1 Exif, APP14 Adobe), read by walking every
/// marker segment to the end-of-image marker, so a file cut anywhere is caught.
public struct JPEGFile: Sendable, Equatable {
    public var width: Int
    public var height: Int
    public var components: Int
    public var bitsPerComponent: Int
    public var progressive: Bool
    /// From JFIF density, else EXIF X/YResolution; nil when neither states one.
    public var resolution: ImageResolution?
    public var orientation: ImageOrientation
    /// APP14 "Adobe" transform flag (0 none/CMYK, 1 YCbCr, 2 YCCK), nil without the segment.
    public var adobeTransform: Int?
    /// The lens's focal length as a 35 mm equivalent (EXIF FocalLengthIn35mmFilm), when the camera
    /// states it: what a sheet's proportions are worked out with when the photo is taken square-on.
    public var focal35: Double?

    /// Parses `bytes`; throws a typed error for anything that is not a whole baseline or
    /// progressive 8-bit JPEG, or that is over `limits`.
    public init(_ bytes: [UInt8], limits: ImageLimits = ImageLimits()) throws {
        try self.init(PDFMemorySource(bytes), limits: limits)
    }

    /// Parses the JPEG in `file` the same way, reading it front to back a megabyte at a time: a
    /// photo of any size is walked to its end-of-image marker without being held.
    public init(_ file: some PDFByteSource, limits: ImageLimits = ImageLimits()) throws {
        var bytes = ForwardReader(file)
        guard try bytes.at(0, count: 2).elementsEqual([0xFF, 0xD8]) else {
            throw ImageInputError.corrupt(.jpeg, "no start-of-image marker")
        }
        var frame: (width: Int, height: Int, components: Int, bits: Int, progressive: Bool)? = nil
        var jfif: ImageResolution? = nil
        var exif: (resolution: ImageResolution?, orientation: Int?) = (nil, nil)
        var adobe: Int? = nil
        var focal35: Double? = nil
        var position = 2
        var sawScan = false
        func cut() -> ImageInputError { .truncated(.jpeg, sawScan ? "no end-of-image marker" : "cut off inside its headers") }
        segments: while true {
            // Markers may be padded with any number of 0xFF bytes.
            guard let first = try bytes.at(position) else { throw cut() }
            guard first == 0xFF else { throw ImageInputError.corrupt(.jpeg, "expected a marker at offset \(position)") }
            while try bytes.at(position) == 0xFF { position += 1 }
            guard let marker = try bytes.at(position) else { throw cut() }
            position += 1
            switch marker {
            case 0xD9:
                guard sawScan else { throw ImageInputError.corrupt(.jpeg, "end-of-image marker before any image data") }
                break segments
            case 0xD0...0xD7, 0x01:
                continue  // no length
            default:
                break
            }
            let lengthBytes = try bytes.at(position, count: 2)
            guard lengthBytes.count == 2 else { throw cut() }
            let length = Int(lengthBytes.first!) << 8 | Int(lengthBytes.last!)
            guard length >= 2 else { throw ImageInputError.corrupt(.jpeg, "segment length \(length) at offset \(position)") }
            let body = try bytes.at(position + 2, count: length - 2)
            guard body.count == length - 2 else { throw cut() }
            position += length
            switch marker {
            case 0xC0, 0xC1, 0xC2:
                guard body.count >= 6 else { throw ImageInputError.corrupt(.jpeg, "frame header too short") }
                let b = body.startIndex
                let parsed = (
                    width: Int(body[b + 3]) << 8 | Int(body[b + 4]), height: Int(body[b + 1]) << 8 | Int(body[b + 2]),
                    components: Int(body[b + 5]), bits: Int(body[b]), progressive: marker == 0xC2
                )
                // The pixel bomb is refused from the frame header, before anything else is read.
                try limits.check(width: parsed.width, height: parsed.height, format: .jpeg)
                frame = parsed
            case 0xC3, 0xC5...0xC7, 0xC9...0xCB, 0xCD...0xCF:
                let kind = [0xC3, 0xC7, 0xCB, 0xCF].contains(marker) ? "lossless" : marker >= 0xC9 ? "arithmetic-coded" : "hierarchical"
                throw ImageInputError.unsupported(.jpeg, "\(kind) JPEG, which PDF readers cannot show")
            case 0xE0 where body.starts(with: Array("JFIF\0".utf8)) && body.count >= 12:
                let b = body.startIndex
                let x = Double(Int(body[b + 8]) << 8 | Int(body[b + 9]))
                let y = Double(Int(body[b + 10]) << 8 | Int(body[b + 11]))
                let unit: ImageResolution.Unit = body[b + 7] == 1 ? .inch : body[b + 7] == 2 ? .centimetre : .none
                jfif = ImageResolution.stated(x: x, y: y, unit: unit)
            case 0xE1 where body.starts(with: Array("Exif\0\0".utf8)):
                exif = Self.exif(body.dropFirst(6))
                focal35 = Self.focalLength35(body.dropFirst(6))
            case 0xEE where body.starts(with: Array("Adobe".utf8)) && body.count >= 12:
                adobe = Int(body[body.startIndex + 11])
            case 0xDA:
                guard frame != nil else { throw ImageInputError.corrupt(.jpeg, "image data before the frame header") }
                sawScan = true
                position = try bytes.endOfEntropyData(from: position)
            default:
                break
            }
        }
        guard let frame else { throw ImageInputError.corrupt(.jpeg, "no frame header") }
        guard frame.bits == 8 else { throw ImageInputError.unsupported(.jpeg, "\(frame.bits)-bit samples") }
        guard [1, 3, 4].contains(frame.components) else {
            throw ImageInputError.unsupported(.jpeg, "\(frame.components) color components")
        }
        width = frame.width
        height = frame.height
        components = frame.components
        bitsPerComponent = frame.bits
        progressive = frame.progressive
        resolution = jfif ?? exif.resolution
        orientation = ImageOrientation(tag: exif.orientation)
        adobeTransform = adobe
        self.focal35 = focal35
    }

    /// Where in `raw` (a window of entropy-coded data) that data ends: the first 0xFF that is
    /// neither stuffing (0xFF00) nor a restart marker; nil when the window ends first (a last 0xFF,
    /// whose next byte is not in the window, included). Every ingested JPEG is scanned, so the
    /// search for 0xFF looks at eight bytes at a time.
    static func endOfEntropyData(_ raw: UnsafeRawBufferPointer) -> Int? {
        var index = 0
        while let marker = nextFF(raw, from: index), marker + 1 < raw.count {
            let next = raw[marker + 1]
            if next != 0x00, next != 0xFF, !(0xD0...0xD7).contains(next) { return marker }
            index = next == 0xFF ? marker + 1 : marker + 2
        }
        return nil
    }

    /// The offset of the next 0xFF byte at or after `start`.
    private static func nextFF(_ raw: UnsafeRawBufferPointer, from start: Int) -> Int? {
        var index = start
        let ones: UInt64 = 0x0101_0101_0101_0101, highs: UInt64 = 0x8080_8080_8080_8080
        while index + 8 <= raw.count {
            // A byte of `word` is 0xFF exactly when that byte of ~word is zero.
            let inverted = ~raw.loadUnaligned(fromByteOffset: index, as: UInt64.self)
            if (inverted &- ones) & ~inverted & highs != 0 { break }
            index += 8
        }
        while index < raw.count {
            if raw[index] == 0xFF { return index }
            index += 1
        }
        return nil
    }

    /// Orientation and resolution from IFD0 of the EXIF data; a damaged EXIF block is ignored
    /// (cameras write bad ones), never a reason to refuse the picture.
    /// The resolution and orientation an EXIF block states: `data` is its TIFF structure (after
    /// "Exif\0\0" in a JPEG, after the offset in a HEIF item, a WebP's EXIF chunk).
    public static func exif(_ data: ArraySlice<UInt8>) -> (resolution: ImageResolution?, orientation: Int?) {
        guard let structure = try? TIFFStructure(data, format: .jpeg),
            let directory = try? structure.directory(at: structure.firstIFD)
        else { return (nil, nil) }
        return (structure.resolution(in: directory), structure.integer(274, in: directory))
    }

    /// FocalLengthIn35mmFilm (0xA405) from the Exif IFD (0x8769) the first IFD points to; nil when
    /// absent, 0 ("unknown") or damaged.
    static func focalLength35(_ data: ArraySlice<UInt8>) -> Double? {
        guard let structure = try? TIFFStructure(data, format: .jpeg),
              let first = try? structure.directory(at: structure.firstIFD),
              let pointer = structure.integer(0x8769, in: first), let exif = try? structure.directory(at: pointer),
              let focal = structure.integer(0xA405, in: exif), (8...1200).contains(focal)
        else { return nil }
        return Double(focal)
    }

    /// Adobe writes CMYK (and YCCK) inverted; such files need /Decode [1 0 1 0 1 0 1 0].
    public var isAdobeInvertedCMYK: Bool { components == 4 && adobeTransform != nil }

    /// The page: the file's bytes, unchanged, as a /DCTDecode image.
    public static func page(_ bytes: [UInt8], limits: ImageLimits = ImageLimits()) throws -> ImagePage {
        var page = try JPEGFile(bytes, limits: limits).page(limits: limits)
        page.image.data = bytes
        return page
    }

    /// The page for this JPEG, parsed from `file`: its bytes stay in the file until the page is
    /// written, and are copied into the PDF from there a chunk at a time.
    public func page(copying file: PDFFileRange, limits: ImageLimits = ImageLimits()) -> ImagePage {
        var page = page(limits: limits)
        page.imageFile = file
        return page
    }

    /// The page for an image with these headers, its data not given yet.
    private func page(limits: ImageLimits) -> ImagePage {
        var dictionary = ImageXObject.dictionary(width: width, height: height,
            colorSpace: ImageXObject.deviceColorSpace(components: components), bitsPerComponent: 8)
        dictionary[.filter] = .name("DCTDecode")
        if isAdobeInvertedCMYK { dictionary["Decode"] = [1, 0, 1, 0, 1, 0, 1, 0] }
        let dpi = ImageResolution(x: limits.defaultDPI, y: limits.defaultDPI)
        var page = ImagePage(image: PDFStream(dictionary: dictionary, data: []), pixelWidth: width,
            pixelHeight: height, resolution: resolution ?? dpi, orientation: orientation)
        page.focal35 = focal35
        return page
    }
}

/// A file read front to back through a window of a megabyte. The JPEG walk moves forward only, and
/// a segment is at most 64 KiB, so each byte is read about once and no more than a window is held.
private struct ForwardReader<Source: PDFByteSource> {
    let source: Source
    private var window: [UInt8] = []
    /// The file offset of `window[0]`.
    private var start = 0
    private let windowSize = 1 << 20

    init(_ source: Source) { self.source = source }

    /// `count` bytes at `offset`, fewer at the end of the file.
    mutating func at(_ offset: Int, count: Int) throws -> ArraySlice<UInt8> {
        let wanted = max(0, min(count, source.length - offset))
        if offset < start || offset + wanted > start + window.count {
            window = try source.read(offset: offset, count: max(wanted, windowSize))
            start = offset
        }
        let lower = offset - start
        return window[lower..<min(lower + wanted, window.count)]
    }

    /// The byte at `offset`; nil past the end of the file.
    mutating func at(_ offset: Int) throws -> UInt8? {
        try at(offset, count: 1).first
    }

    /// The offset of the 0xFF that ends the entropy-coded data starting at `offset`, or the end of
    /// the file when none does.
    mutating func endOfEntropyData(from offset: Int) throws -> Int {
        var position = offset
        while true {
            let bytes = try at(position, count: windowSize)
            if let end = bytes.withUnsafeBytes(JPEGFile.endOfEntropyData) { return position + end }
            if position + bytes.count >= source.length { return source.length }
            // A last 0xFF may begin a marker: the next window starts with it. (Only stuffing and
            // restart markers are stepped over, and their second byte is never 0xFF.)
            position += bytes.last == 0xFF ? bytes.count - 1 : bytes.count
        }
    }
}
