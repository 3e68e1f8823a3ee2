/// What a file is by its first bytes, never by its name: a phone's `.jpg` may be HEIC, a scanner's
/// `.pdf` may be HTML. `sniff` is the one place a file's type is decided: routing, the inbox's
/// checks, the input readers and `explain` all ask it.
public enum FileKind: String, Sendable, CaseIterable {
    case jpeg, png, tiff, pnm, heic, avif, webp, pdf, unknown

    /// How many leading bytes `sniff` wants to see.
    public static let sniffLength = 1024

    public var isImage: Bool { imageFormat != nil }

    /// What is read, in the words of a refusal: "not a JPEG, PNG, ... or PDF by its content".
    public static let readable = "JPEG, PNG, TIFF, PNM, HEIC, AVIF, WebP or PDF"

    /// The image reader's name for the kind; nil for a PDF or an unknown file.
    public var imageFormat: ImageFormat? {
        switch self {
        case .jpeg: .jpeg
        case .png: .png
        case .tiff: .tiff
        case .pnm: .pnm
        case .heic: .heic
        case .avif: .avif
        case .webp: .webp
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
        // WebP: a RIFF file whose form type is WEBP.
        if bytes.count >= 12, starts(with: Array("RIFF".utf8)), bytes[8..<12].elementsEqual("WEBP".utf8) { return .webp }
        if let heif = heifKind(bytes) { return heif }
        // Readers accept `%PDF-` anywhere in the first kilobyte (ISO 32000-1 allows leading junk in practice).
        let marker = Array("%PDF-".utf8)
        if bytes.count >= marker.count,
           (0...(bytes.count - marker.count)).contains(where: { bytes[$0..<($0 + marker.count)].elementsEqual(marker) }) {
            return .pdf
        }
        return .unknown
    }

    /// HEIF (ISO/IEC 23008-12) files start with an `ftyp` box: its major brand, then compatible
    /// brands. `heic`, `heix`, `hevc`, `heim`, `heis` and `hevx` are HEVC pictures (HEIC, as phones
    /// write them); `avif` and `avis` AV1 ones; the structural brands `mif1` and `msf1` say only "an
    /// image file" and the compatible brands tell which.
    static func heifKind(_ bytes: [UInt8]) -> FileKind? {
        guard bytes.count >= 16, bytes[4..<8].elementsEqual("ftyp".utf8) else { return nil }
        let size = bytes[0..<4].reduce(0) { $0 << 8 | Int($1) }
        let end = min(bytes.count, max(16, size))
        let brands = Set(stride(from: 8, to: end - 3, by: 4).filter { $0 != 12 }.map {
            String(decoding: bytes[$0..<($0 + 4)], as: UTF8.self)
        })
        let major = String(decoding: bytes[8..<12], as: UTF8.self)
        let avif: Set = ["avif", "avis"], heic: Set = ["heic", "heix", "hevc", "heim", "heis", "hevx"]
        if avif.contains(major) { return .avif }
        if heic.contains(major) { return .heic }
        guard ["mif1", "msf1"].contains(major) || !brands.isDisjoint(with: ["mif1", "msf1"]) else { return nil }
        if !brands.isDisjoint(with: avif) { return .avif }
        if !brands.isDisjoint(with: heic) || ["mif1", "msf1"].contains(major) { return .heic }
        return nil
    }
}
