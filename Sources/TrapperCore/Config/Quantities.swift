/// Durations and byte sizes as people write them in a config: "500ms", "2s", "5m", "1h30m";
/// "10MB", "512 KiB", "2G". Integers alone are seconds or bytes.
public enum Quantities {
    private static let durationUnits: [(String, Double)] = [("ms", 0.001), ("s", 1), ("m", 60), ("h", 3600), ("d", 86400)]
    private static let sizeUnits: [String: Int64] = [
        "": 1, "b": 1, "k": 1000, "kb": 1000, "m": 1_000_000, "mb": 1_000_000, "g": 1_000_000_000, "gb": 1_000_000_000,
        "kib": 1 << 10, "mib": 1 << 20, "gib": 1 << 30,
    ]

    /// Seconds, or nil when the text is not a duration.
    /// A duration for messages, in the largest unit that holds it whole, as a config writes it:
    /// "10m", "1h", "90s", "0.5s".
    public static func describe(seconds: Double) -> String {
        guard seconds == seconds.rounded() else { return "\((seconds * 1000).rounded() / 1000)s" }
        let whole = Int(seconds)
        for (unit, size) in [("d", 86400), ("h", 3600), ("m", 60)] where whole >= size && whole % size == 0 {
            return "\(whole / size)\(unit)"
        }
        return "\(whole)s"
    }

    public static func seconds(_ text: String) -> Double? {
        var rest = Substring(text.filter { $0 != " " })
        guard !rest.isEmpty else { return nil }
        var total = 0.0
        while !rest.isEmpty {
            let number = rest.prefix { $0.isNumber || $0 == "." }
            guard let value = Double(number) else { return nil }
            rest = rest.dropFirst(number.count)
            let unitText = rest.prefix { $0.isLetter }
            guard let unit = durationUnits.first(where: { $0.0 == unitText }) else { return nil }
            rest = rest.dropFirst(unitText.count)
            total += value * unit.1
        }
        return total
    }

    /// Bytes, or nil when the text is not a size.
    public static func bytes(_ text: String) -> Int64? {
        let compact = text.filter { $0 != " " && $0 != "_" }
        let digits = compact.prefix { $0.isNumber || $0 == "." }
        guard let value = Double(digits), let unit = sizeUnits[compact.dropFirst(digits.count).lowercased()] else {
            return nil
        }
        let bytes = value * Double(unit)
        return bytes < 9e18 ? Int64(bytes) : nil
    }
}
