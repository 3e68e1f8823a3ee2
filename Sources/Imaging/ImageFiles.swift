import Glibc
import TrapperCore

/// Opens image files by what they contain, not by their names.
public enum ImageFiles {
    /// Opens `path` (refusing it from its size before reading when over `limits.maxBytes`) and
    /// returns the document for its format. Headers are checked here, so a bad file fails at once.
    /// A JPEG, which goes into the PDF as it is, is walked here and copied into the PDF when its
    /// page is written, a megabyte at a time: it is never held whole. Every other format is read
    /// whole, to be decoded or repacked; a photo a PDF cannot hold as it is (HEIC, AVIF, WebP) is
    /// decoded when its page is made and stored as `photo` says.
    public static func open(path: String, limits: ImageLimits = ImageLimits(), photo: PhotoEncoding = PhotoEncoding(),
                            flate: any FlateCoding) throws -> any ImageDocument
    {
        let file = try open(path, limits: limits)
        if FileKind.sniff(try file.read(offset: 0, count: FileKind.sniffLength)) == .jpeg {
            let jpeg = try JPEGFile(file, limits: limits)
            return SingleImageDocument(format: .jpeg) { jpeg.page(copying: PDFFileRange(file), limits: limits) }
        }
        return try open(bytes: file.read(offset: 0, count: file.length), limits: limits, photo: photo, flate: flate)
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

    /// The whole file at `path`, after checking its size: for an input whose pixels are decoded anyway.
    public static func read(_ path: String, limits: ImageLimits) throws -> [UInt8] {
        let file = try open(path, limits: limits)
        return try file.read(offset: 0, count: file.length)
    }

    /// The file at `path`, to be read in pieces, after checking its size; errors carry the system's reason.
    static func open(_ path: String, limits: ImageLimits) throws -> PDFFileSource {
        // Without blocking: a FIFO's open would wait for a writer; it is refused below instead.
        let descriptor = Glibc.open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else { throw ImageInputError.unreadable(String(cString: strerror(errno))) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else {
            let reason = String(cString: strerror(errno))
            close(descriptor)
            throw ImageInputError.unreadable(reason)
        }
        guard status.st_mode & S_IFMT == S_IFREG else {
            close(descriptor)
            throw ImageInputError.unreadable("not a regular file")
        }
        let file = try PDFFileSource(descriptor: descriptor, path: path)
        guard file.length > 0 else { throw ImageInputError.empty }
        try limits.check(byteCount: file.length)
        return file
    }
}
