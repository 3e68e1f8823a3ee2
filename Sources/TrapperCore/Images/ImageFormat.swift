/// The image formats PDFTrapper takes in, as the readers and their errors name them. Which one a
/// file is comes from `FileKind.sniff`, by its first bytes, never by its name.
public enum ImageFormat: String, Sendable, Equatable, CaseIterable {
    case jpeg = "JPEG"
    case png = "PNG"
    case tiff = "TIFF"
    case pnm = "PNM"
}
