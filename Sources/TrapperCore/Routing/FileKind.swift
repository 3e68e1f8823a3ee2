/// What a file is by its first bytes, never by its name: a phone's `.jpg` may be HEIC, a scanner's
/// `.pdf` may be HTML. `sniff` is the one place a file's type is decided: routing, the inbox's
/// checks, the input readers and `explain` all ask it.
public enum FileKind: String, Sendable, CaseIterable {
    case jpeg, png, tiff, pnm, pdf, unknown

    /// How many leading bytes `sniff` wants to see.
    public static let sniffLength = 1024

    public var isImage: Bool { imageFormat != nil }

    /// The image reader's name for the kind; nil for a PDF or an unknown file.
    public var imageFormat: ImageFormat? {
        switch self {
        case .jpeg: .jpeg
        case .png: .png
        case .tiff: .tiff
        case .pnm: .pnm
        case .pdf, .unknown: nil
        }
    }

    public static func sniff(_ head: some Collection<UInt8>) -> FileKind {
        let bytes = Array(head.prefix(sniffLength))
        func starts(with prefix: [UInt8]) -> Bool { bytes.starts(with: prefix) }
        if starts(with: [0xFF, 0xD8, 0xFF]) { return .jpeg }
        if starts(with: PNGFile.signature) { return .png }
        // Classic TIFF (42) and BigTIFF (43): both are TIFF, and the reader says why it refuses the second.
        for version: UInt8 in [0x2A, 0x2B] where starts(with: [0x49, 0x49, version, 0x00]) || starts(with: [0x4D, 0x4D, 0x00, version]) {
            return .tiff
        }
        // P1 to P6 (the PNM reader's magic numbers), then whitespace or a comment.
        if bytes.count >= 3, bytes[0] == UInt8(ascii: "P"), (UInt8(ascii: "1")...UInt8(ascii: "6")).contains(bytes[1]),
           PNMFile.isWhitespace(bytes[2]) || bytes[2] == UInt8(ascii: "#") {
            return .pnm
        }
        // Readers accept `%PDF-` anywhere in the first kilobyte (ISO 32000-1 allows leading junk in practice).
        let marker = Array("%PDF-".utf8)
        if bytes.count >= marker.count,
           (0...(bytes.count - marker.count)).contains(where: { bytes[$0..<($0 + marker.count)].elementsEqual(marker) }) {
            return .pdf
        }
        return .unknown
    }
}
