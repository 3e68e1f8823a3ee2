import TrapperCore

/// A profile's colour mode and source, in the device's own words.
extension SaneDevice {
    /// Picks the device's mode for `mode` (SANE's standard "Color", "Gray", "Lineart", or the
    /// first that contains the word); lineart on a device without it is 1-bit gray, if depth 1 is offered.
    /// Returns the mode name set.
    @discardableResult
    public func setColorMode(_ mode: ColorMode) throws(ScanError) -> String {
        let words: [String] = switch mode {
        case .color: ["color", "colour"]
        case .gray: ["gray", "grey"]
        case .lineart: ["lineart", "binary", "black & white", "monochrome"]
        }
        let modes = self.modes
        if let name = Self.pick(modes, words) {
            try set("mode", .string(name))
            if mode != .lineart, case .words(let depths)? = try? option("depth").constraint, depths.contains(8) {
                try set("depth", .int(8))
            }
            return name
        }
        if mode == .lineart, let gray = Self.pick(modes, ["gray", "grey"]),
           case .words(let depths)? = try? option("depth").constraint, depths.contains(1) {
            try set("mode", .string(gray))
            try set("depth", .int(1))
            return gray
        }
        throw .invalidValue(option: "mode", reason: "no \(mode.rawValue) mode among \(modes.map { "\"\($0)\"" }.joined(separator: ", "))")
    }

    /// Picks the device's source for `source`; returns the source name set.
    @discardableResult
    public func setSource(_ source: ScanSource) throws(ScanError) -> String {
        let sources = self.sources
        let name: String?
        switch source {
        case .named(let wanted): name = sources.first { $0.lowercased() == wanted.lowercased() }
        case .flatbed: name = Self.pick(sources, ["flatbed"])
        case .adfDuplex: name = sources.first { $0.lowercased().contains("duplex") }
        case .adf:
            name = sources.first {
                let s = $0.lowercased()
                return !s.contains("duplex") && (s.contains("adf") || s.contains("feeder"))
            }
        }
        guard let name else {
            throw .invalidValue(option: "source", reason: "no \(source) source among \(sources.map { "\"\($0)\"" }.joined(separator: ", "))")
        }
        try set("source", .string(name))
        return name
    }

    /// The first choice equal to one of `words`, else the first that contains one (case-insensitive).
    static func pick(_ choices: [String], _ words: [String]) -> String? {
        choices.first { words.contains($0.lowercased()) }
            ?? choices.first { choice in words.contains { choice.lowercased().contains($0) } }
    }
}

/// What a device settled on for a profile: the names it uses and the numbers after its rounding.
public struct AppliedProfile: Sendable, Equatable {
    public var source: String?
    public var mode: String
    public var resolution: Double
    public var widthMM: Double
    public var heightMM: Double

    public init(source: String?, mode: String, resolution: Double, widthMM: Double, heightMM: Double) {
        self.source = source
        self.mode = mode
        self.resolution = resolution
        self.widthMM = widthMM
        self.heightMM = heightMM
    }
}

extension SaneDevice {
    /// Sets everything a profile asks for, in the order devices need: the source first (it can
    /// change the area's range), then mode, resolution, the area from the top-left corner, then
    /// the options passed through by name (numbers go in as the option's own type, so fixed-point
    /// options are set as fixed-point).
    @discardableResult
    public func apply(_ profile: ScanProfile) throws(ScanError) -> AppliedProfile {
        // A device without a source option has one source: whatever the profile says, it scans from that.
        let source: String? = sources.isEmpty ? nil : try setSource(profile.source)
        let mode = try setColorMode(profile.colorMode)
        let resolution = try setResolution(Double(profile.resolution))
        let area = try setArea(widthMM: profile.pageSize.width, heightMM: profile.pageSize.height)
        for (name, value) in profile.options {
            try set(name, Self.optionValue(value))
        }
        return AppliedProfile(source: source, mode: mode, resolution: resolution, widthMM: area.width, heightMM: area.height)
    }

    static func optionValue(_ value: TOMLValue) -> OptionValue {
        switch value {
        case .boolean(let flag): .bool(flag)
        case .integer(let number): .int(Int(number))
        case .float(let number): .fixed(number)
        case .string(let text): .string(text)
        default: .string("\(value)")
        }
    }
}
