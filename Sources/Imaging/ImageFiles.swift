import Glibc
import TrapperCore

/// Opens image files by what they contain, not by their names.
public enum ImageFiles {
    /// Reads `path` (refusing it from its size before reading when over `limits.maxBytes`) and
    /// returns the document for its format. Headers are checked here, so a bad file fails at once.
    /// A photo a PDF cannot hold as it is (HEIC, AVIF, WebP) is decoded when its page is made and
    /// stored as `photo` says.
    public static func open(path: String, limits: ImageLimits = ImageLimits(), photo: PhotoEncoding = PhotoEncoding(),
                            flate: any FlateCoding) throws -> any ImageDocument
    {
        try open(bytes: read(path, limits: limits), limits: limits, photo: photo, flate: flate)
    }

    public static func open(bytes: [UInt8], limits: ImageLimits = ImageLimits(), photo: PhotoEncoding = PhotoEncoding(),
                            flate: any FlateCoding) throws -> any ImageDocument
    {
        guard !bytes.isEmpty else { throw ImageInputError.empty }
        try limits.check(byteCount: bytes.count)
        let kind = FileKind.sniff(bytes)
        // A photo's header reads before its data has all come: the box or chunk sizes tell.
        if let format = kind.imageFormat, format.isDecodedPhoto,
           case .incomplete(let missing) = Completeness.check(PDFMemorySource(bytes), kind: kind) {
            throw ImageInputError.truncated(format, missing)
        }
        switch kind.imageFormat {
        case .jpeg?:
            _ = try JPEGFile(bytes, limits: limits)
            return SingleImageDocument(format: .jpeg) { try JPEGFile.page(bytes, limits: limits) }
        case .png?:
            _ = try PNGFile(bytes, limits: limits)
            return SingleImageDocument(format: .png) { try PNGFile.page(bytes, limits: limits, flate: flate) }
        case .tiff?:
            return try TIFFDocument(bytes, limits: limits, flate: flate)
        case .pnm?:
            let pnm = try PNMFile(bytes, limits: limits)
            return SingleImageDocument(format: .pnm) { try pnmPage(pnm, limits: limits, flate: flate) }
        case .heic?, .avif?:
            let format = kind.imageFormat!
            let heif = try HEIFPhoto(bytes, format: format, limits: limits)
            return SingleImageDocument(format: format) { try photoPage(heif.decode(), photo: photo, limits: limits, flate: flate) }
        case .webp?:
            let webp = try WebPPhoto(bytes, limits: limits)
            return SingleImageDocument(format: .webp) { try photoPage(webp.decode(), photo: photo, limits: limits, flate: flate) }
        case nil:
            throw ImageInputError.notAnImage
        }
    }

    /// A decoded photo's page: JPEG encoded by leptonica (libjpeg), unless it is kept lossless.
    static func photoPage(_ decoded: DecodedPhoto, photo: PhotoEncoding, limits: ImageLimits, flate: any FlateCoding) throws
        -> ImagePage
    {
        let dpi = Int(decoded.resolution?.x ?? limits.defaultDPI)
        let jpeg = decoded.storedAsJPEG(photo) ? try ScanEncoding.jpeg(decoded.color, dpi: dpi, quality: photo.jpegQuality) : nil
        return try decoded.page(jpeg: jpeg, encoding: photo, limits: limits, flate: flate)
    }

    /// Bitmaps become CCITT G4 (a tenth of Flate's size for text pages); the rest Flate.
    static func pnmPage(_ pnm: PNMFile, limits: ImageLimits, flate: any FlateCoding) throws -> ImagePage {
        if pnm.isBitmap, let pix = try LeptonicaPix.bitmap(width: pnm.width, height: pnm.height, rows: pnm.samples),
            let image = pix.g4Image()
        {
            return pnm.imagePage(image, limits: limits)
        }
        return try PNMFile.page(pnm, limits: limits, flate: flate)
    }

    /// The whole file, after checking its size; errors carry the system's reason.
    static func read(_ path: String, limits: ImageLimits) throws -> [UInt8] {
        let descriptor = Glibc.open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw ImageInputError.unreadable(String(cString: strerror(errno))) }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { throw ImageInputError.unreadable(String(cString: strerror(errno))) }
        guard status.st_mode & S_IFMT == S_IFREG else { throw ImageInputError.unreadable("not a regular file") }
        let size = Int(status.st_size)
        guard size > 0 else { throw ImageInputError.empty }
        try limits.check(byteCount: size)
        var bytes = [UInt8](repeating: 0, count: size)
        var filled = 0
        while filled < size {
            let count = bytes.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress! + filled, size - filled) }
            if count < 0, errno == EINTR { continue }
            guard count >= 0 else { throw ImageInputError.unreadable(String(cString: strerror(errno))) }
            if count == 0 { break }  // shrank while reading
            filled += count
        }
        bytes.removeSubrange(filled...)
        return bytes
    }
}
