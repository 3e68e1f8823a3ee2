/// What an image input may cost before it is refused, checked from the headers before anything
/// is decoded or allocated, and the resolution assumed when a file states none.
public struct ImageLimits: Sendable, Equatable {
    /// Width × height of one page.
    public var maxPixels: Int = 200_000_000
    /// The file's size on disk.
    public var maxBytes: Int = 512 << 20
    /// Dots per inch for files that do not say (a scanning product: 300, not img2pdf's 96).
    public var defaultDPI: Double = 300

    public init(maxPixels: Int = 200_000_000, maxBytes: Int = 512 << 20, defaultDPI: Double = 300) {
        self.maxPixels = maxPixels
        self.maxBytes = maxBytes
        self.defaultDPI = defaultDPI
    }

    /// Throws unless `width` × `height` is positive and within `maxPixels` (without overflowing).
    public func check(width: Int, height: Int, format: ImageFormat) throws {
        guard width > 0, height > 0 else { throw ImageInputError.corrupt(format, "image is \(width) x \(height) pixels") }
        let (pixels, overflow) = width.multipliedReportingOverflow(by: height)
        guard !overflow, pixels <= maxPixels else {
            throw ImageInputError.tooManyPixels(width: width, height: height, limit: maxPixels)
        }
    }

    public func check(byteCount: Int) throws {
        guard byteCount <= maxBytes else { throw ImageInputError.tooManyBytes(byteCount, limit: maxBytes) }
    }
}
