/// Dots per inch along each axis, as the file states it (JFIF, EXIF, pHYs, TIFF tags).
public struct ImageResolution: Sendable, Equatable {
    public var x: Double
    public var y: Double

    public init(x: Double, y: Double) {
        self.x = x
        self.y = y
    }

    /// A resolution from a density and its unit: per inch, per centimetre or per metre. Nil for
    /// "no unit" (an aspect ratio only) or nonsense values, so the default applies.
    public static func stated(x: Double, y: Double, unit: Unit) -> ImageResolution? {
        let factor: Double
        switch unit {
        case .none: return nil
        case .inch: factor = 1
        case .centimetre: factor = 2.54
        case .metre: factor = 0.0254
        }
        let resolution = ImageResolution(x: x * factor, y: y * factor)
        guard resolution.x.isFinite, resolution.y.isFinite, resolution.x >= 1, resolution.y >= 1 else { return nil }
        return resolution
    }

    public enum Unit: Sendable { case none, inch, centimetre, metre }
}
