/// EXIF/TIFF orientation (tag 0x0112): where the stored rows and columns belong when shown. Honoured
/// by placing the image with a matrix, never by re-encoding its pixels.
public enum ImageOrientation: Int, Sendable, Equatable, CaseIterable {
    case up = 1, mirrored = 2, down = 3, downMirrored = 4
    case leftMirrored = 5, right = 6, rightMirrored = 7, left = 8

    /// Unknown values (0, 9, ...) mean "as stored", as every viewer treats them.
    public init(tag: Int?) { self = tag.flatMap(ImageOrientation.init(rawValue:)) ?? .up }

    /// True when the shown image is the stored one turned by 90° or 270°: the page's sides swap.
    public var swapsSides: Bool { rawValue >= 5 }

    /// The `cm` matrix [a b c d e f] that maps the image's unit square onto a page on which the
    /// stored image is `width` × `height` points before turning (§8.9.4: the unit square's top
    /// edge is the image's first row).
    public func matrix(width w: Double, height h: Double) -> [Double] {
        switch self {
        case .up: [w, 0, 0, h, 0, 0]
        case .mirrored: [-w, 0, 0, h, w, 0]
        case .down: [-w, 0, 0, -h, w, h]
        case .downMirrored: [w, 0, 0, -h, 0, h]
        case .leftMirrored: [0, -w, -h, 0, h, w]
        case .right: [0, -w, h, 0, 0, w]
        case .rightMirrored: [0, w, h, 0, 0, 0]
        case .left: [0, w, -h, 0, h, 0]
        }
    }
}
