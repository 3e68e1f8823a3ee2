/// The image formats PDFTrapper takes in, recognised by their first bytes, never by a file name.
public enum ImageFormat: String, Sendable, Equatable, CaseIterable {
    case jpeg = "JPEG"
    case png = "PNG"
    case tiff = "TIFF"
    case pnm = "PNM"

    /// The format `bytes` start like, or nil.
    public static func sniff(_ bytes: [UInt8]) -> ImageFormat? {
        if bytes.starts(with: [0xFF, 0xD8, 0xFF]) { return .jpeg }
        if bytes.starts(with: PNGFile.signature) { return .png }
        if bytes.starts(with: [0x49, 0x49, 0x2A, 0x00]) || bytes.starts(with: [0x4D, 0x4D, 0x00, 0x2A]) { return .tiff }
        if bytes.starts(with: [0x49, 0x49, 0x2B, 0x00]) || bytes.starts(with: [0x4D, 0x4D, 0x00, 0x2B]) { return .tiff }
        if bytes.count >= 3, bytes[0] == UInt8(ascii: "P"), (UInt8(ascii: "1")...UInt8(ascii: "6")).contains(bytes[1]),
            PNMFile.isWhitespace(bytes[2]) || bytes[2] == UInt8(ascii: "#")
        {
            return .pnm
        }
        return nil
    }
}
