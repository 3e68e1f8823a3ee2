/// The image formats PDFTrapper takes in, as the readers and their errors name them. Which one a
/// file is comes from `FileKind.sniff`, by its first bytes, never by its name.
public enum ImageFormat: String, Sendable, Equatable, CaseIterable {
    case jpeg = "JPEG"
    case png = "PNG"
    case tiff = "TIFF"
    case pnm = "PNM"
    /// HEIF with HEVC pictures, as iPhones save photos.
    case heic = "HEIC"
    /// HEIF with AV1 pictures.
    case avif = "AVIF"
    case webp = "WebP"

    /// The formats a PDF cannot hold as they are (HEVC, AV1, VP8): decoded, then stored as JPEG or
    /// losslessly.
    public var isDecodedPhoto: Bool { self == .heic || self == .avif || self == .webp }
}
