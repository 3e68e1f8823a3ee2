/// Why an image file was refused. Each description is one line a person understands; the caller
/// puts the file name in front (`scan.jpg: truncated JPEG: no end-of-image marker`).
public enum ImageInputError: Error, Sendable, Equatable, CustomStringConvertible {
    case empty
    case unreadable(String)
    /// The content is none of the formats read (whatever the name says).
    case notAnImage
    /// The file stops before its structure does.
    case truncated(ImageFormat, String)
    /// The structure is there but wrong (bad CRC, impossible values).
    case corrupt(ImageFormat, String)
    /// Valid, but a variant this reader does not take (12-bit JPEG, BigTIFF, ...).
    case unsupported(ImageFormat, String)
    case tooManyPixels(width: Int, height: Int, limit: Int)
    case tooManyBytes(Int, limit: Int)
    /// A decoding library gave up on the data.
    case decodeFailed(ImageFormat, String)
    case noSuchPage(Int, count: Int)

    public var description: String {
        switch self {
        case .empty: "empty file: zero bytes"
        case .unreadable(let reason): "cannot read file: \(reason)"
        case .notAnImage: "not an image PDFTrapper reads (JPEG, PNG, TIFF, PNM, HEIC, AVIF or WebP), whatever its name says"
        case .truncated(let format, let detail): "truncated \(format.rawValue): \(detail)"
        case .corrupt(let format, let detail): "corrupt \(format.rawValue): \(detail)"
        case .unsupported(let format, let detail): "unsupported \(format.rawValue): \(detail)"
        case .tooManyPixels(let width, let height, let limit):
            "image is \(width) x \(height) pixels, over the limit of \(Self.megapixels(limit)) megapixels (limits.max_pixels)"
        case .tooManyBytes(let count, let limit):
            "file is \(Self.size(count)), over the limit of \(Self.size(limit)) (limits.max_input_size)"
        case .decodeFailed(let format, let detail): "cannot decode \(format.rawValue): \(detail)"
        case .noSuchPage(let index, let count): "no page \(index + 1): the file has \(count) page(s)"
        }
    }

    private static func megapixels(_ pixels: Int) -> String { decimal(Double(pixels) / 1_000_000) }
    private static func size(_ bytes: Int) -> String {
        bytes < 1 << 20 ? "\(bytes) bytes" : decimal(Double(bytes) / 1_048_576) + " MB"
    }

    /// "200", "0.5", "1.25": at most two decimals, no trailing zeros.
    private static func decimal(_ value: Double) -> String {
        let hundredths = (value * 100).rounded()
        if hundredths.truncatingRemainder(dividingBy: 100) == 0 { return String(Int(hundredths / 100)) }
        var text = String(Int(hundredths / 100)) + "."
        let fraction = Int(hundredths.truncatingRemainder(dividingBy: 100))
        text += fraction < 10 ? "0\(fraction)" : String(fraction)
        while text.hasSuffix("0") { text.removeLast() }
        return text
    }
}
