/// What a file is by its first bytes, never by its name: a phone's `.jpg` may be HEIC, a scanner's
/// `.pdf` may be HTML.
public enum FileKind: String, Sendable, CaseIterable {
    case jpeg, png, tiff, pnm, pdf, unknown

    /// How many leading bytes `sniff` wants to see.
    public static let sniffLength = 1024

    public var isImage: Bool { [.jpeg, .png, .tiff, .pnm].contains(self) }

    public static func sniff(_ head: some Collection<UInt8>) -> FileKind {
        let bytes = Array(head.prefix(sniffLength))
        func starts(with prefix: [UInt8]) -> Bool { bytes.starts(with: prefix) }
        if starts(with: [0xFF, 0xD8, 0xFF]) { return .jpeg }
        if starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return .png }
        if starts(with: [0x49, 0x49, 0x2A, 0x00]) || starts(with: [0x4D, 0x4D, 0x00, 0x2A]) { return .tiff }
        if bytes.count >= 3, bytes[0] == UInt8(ascii: "P"), (UInt8(ascii: "1")...UInt8(ascii: "7")).contains(bytes[1]),
           [0x20, 0x09, 0x0A, 0x0D].contains(bytes[2]) {
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
