/// Conveniences a scan profile needs: the device's choices, the scan area and the resolution.
extension SaneDevice {
    /// The source option's choices ("Flatbed", "ADF Duplex", …); empty when there is no source option.
    public var sources: [String] { strings(of: "source") }
    /// The mode option's choices ("Color", "Gray", "Lineart", …).
    public var modes: [String] { strings(of: "mode") }
    /// The resolution option's constraint (a range or a list of dpi); `.none` without one.
    public var resolutions: OptionConstraint { (try? option("resolution").constraint) ?? .none }

    private func strings(of name: String) -> [String] {
        if case .strings(let list)? = try? option(name).constraint { return list }
        return []
    }

    /// Sets the scan area from the top-left corner (tl-x, tl-y, br-x, br-y), each clamped to the
    /// device's range; returns the width and height in mm the device settled on.
    @discardableResult
    public func setArea(widthMM: Double, heightMM: Double, leftMM: Double = 0, topMM: Double = 0)
        throws(ScanError) -> (width: Double, height: Double) {
        let left = try setLength("tl-x", leftMM)
        let top = try setLength("tl-y", topMM)
        let right = try setLength("br-x", leftMM + widthMM)
        let bottom = try setLength("br-y", topMM + heightMM)
        return (right - left, bottom - top)
    }

    /// Sets the resolution, int or fixed, to the nearest the device offers; returns what it chose.
    @discardableResult
    public func setResolution(_ dpi: Double) throws(ScanError) -> Double {
        let info = try option("resolution")
        guard info.unit == .dpi || info.unit == .none else {
            throw .invalidValue(option: info.name, reason: "its unit is \(info.unit), not dpi")
        }
        return try setNumber(info, dpi)
    }

    private func setLength(_ name: String, _ mm: Double) throws(ScanError) -> Double {
        let info = try option(name)
        guard info.unit == .mm else { throw .invalidValue(option: name, reason: "its unit is \(info.unit), not mm") }
        return try setNumber(info, mm)
    }

    /// Clamps to a range or picks the nearest of a list, then sets as the option's type wants.
    private func setNumber(_ info: OptionInfo, _ wanted: Double) throws(ScanError) -> Double {
        var value = wanted
        switch info.constraint {
        case .range(let low, let high, _): value = min(max(value, low), high)
        case .words(let list):
            value = list.min { abs($0 - wanted) < abs($1 - wanted) } ?? wanted
        default: break
        }
        let result = try set(info.name, info.type == .int ? .int(Int(value.rounded())) : .fixed(value))
        return result.value?.number ?? value
    }
}
