import Foundation

/// What a template's placeholders stand for, for one input at one moment.
public struct TemplateValues: Sendable {
    /// When the input arrived (or was scanned), in the daemon's time zone.
    public var date: Date
    public var timeZone: TimeZone
    /// The input's path relative to the inbox, e.g. `receipts/IMG_0001.JPG`; for a scan, a made-up name.
    public var relativePath: String
    public var rule: String
    public var source: InputSource
    public var button: String
    public var profile: String
    public var host: String
    /// The value of the barcode on the separator sheet before this document (its prefix taken
    /// off); empty for the part before the first one, and without barcode separators.
    public var barcode: String

    public init(date: Date, timeZone: TimeZone = .current, relativePath: String, rule: String = "",
                source: InputSource = .inbox, button: String = "", profile: String = "", host: String = "",
                barcode: String = "") {
        self.date = date
        self.timeZone = timeZone
        self.relativePath = relativePath
        self.rule = rule
        self.source = source
        self.button = button
        self.profile = profile
        self.host = host
        self.barcode = barcode
    }

    /// The file's name, e.g. `IMG_0001.JPG`.
    public var name: String { String(relativePath.split(separator: "/").last ?? "") }

    /// The name without its last extension.
    public var stem: String {
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return name }
        return String(name[..<dot])
    }

    /// The last extension, lower-cased, without the dot.
    public var ext: String {
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return "" }
        return name[name.index(after: dot)...].lowercased()
    }

    /// The folder below the inbox, e.g. `receipts`; empty at the top.
    public var folder: String {
        relativePath.split(separator: "/").dropLast().joined(separator: "/")
    }

    func text(for placeholder: PathTemplate.Placeholder, sequence: Int, width: Int) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
        func two(_ value: Int?) -> String { pad(value ?? 0, 2) }
        switch placeholder {
        case .year: return pad(parts.year ?? 0, 4)
        case .month: return two(parts.month)
        case .day: return two(parts.day)
        case .date: return "\(pad(parts.year ?? 0, 4))-\(two(parts.month))-\(two(parts.day))"
        case .time: return "\(two(parts.hour))\(two(parts.minute))\(two(parts.second))"
        case .hour: return two(parts.hour)
        case .minute: return two(parts.minute)
        case .second: return two(parts.second)
        case .stem: return flat(stem)
        case .ext: return flat(ext)
        case .name: return flat(name)
        case .folder: return folder.split(separator: "/").filter { $0 != ".." && $0 != "." }.joined(separator: "/")
        case .rule: return flat(rule)
        case .source: return source.rawValue
        case .button: return flat(button)
        case .profile: return flat(profile)
        case .host: return flat(host)
        case .seq: return pad(sequence, width)
        case .barcode: return flat(printable(barcode))
        }
    }

    /// What a barcode can hold that a file name should not: control characters become `_`, and
    /// at most 100 characters are kept.
    private func printable(_ value: String) -> String {
        String(value.unicodeScalars.prefix(100).map { $0.properties.generalCategory == .control ? "_" : Character($0) })
    }

    /// A value that must stay one path component: no `/`, and not `.` or `..`.
    private func flat(_ value: String) -> String {
        let replaced = value.replacingOccurrences(of: "/", with: "_")
        return replaced == "." || replaced == ".." ? replaced.replacingOccurrences(of: ".", with: "_") : replaced
    }

    private func pad(_ value: Int, _ width: Int) -> String {
        let digits = String(value)
        return digits.count >= width ? digits : String(repeating: "0", count: width - digits.count) + digits
    }
}

/// Where an input came from; a rule can match on it.
public enum InputSource: String, Sendable, CaseIterable {
    case inbox, scanner
}
