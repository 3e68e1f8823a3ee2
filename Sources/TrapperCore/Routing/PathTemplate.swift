/// A path below a configured folder, written with placeholders: `Receipts/{year}/{year}-{month}.pdf`.
/// `{seq}` (or `{seq:3}` for zero-padding to 3 digits) is the lowest number that makes a new file;
/// `{{` and `}}` are literal braces. A template can never name a place outside its folder: it is
/// relative, has no `..` and no empty parts, and the values put into it cannot add any.
public struct PathTemplate: Sendable, Equatable, CustomStringConvertible {
    public enum Placeholder: String, Sendable, CaseIterable {
        case year, month, day, date, time, hour, minute, second
        case stem, ext, name, folder, rule, source, button, profile, host, seq, barcode
    }

    public enum Part: Sendable, Equatable {
        case literal(String)
        case placeholder(Placeholder, width: Int)
    }

    /// Why a template was refused, and at which character (0-based, in Unicode scalars).
    public struct Problem: Error, Equatable, Sendable {
        public var offset: Int
        public var message: String
        /// Further unknown placeholders in the same template: each is reported, not only the first.
        public var others: [Problem] = []

        public init(offset: Int, message: String, others: [Problem] = []) {
            self.offset = offset
            self.message = message
            self.others = others
        }
    }

    /// Names people write for a placeholder that has another: the hint for each.
    static let aliases = ["mon": "month", "filename": "name", "file": "name", "basename": "stem", "extension": "ext",
                          "dir": "folder", "directory": "folder", "yr": "year", "sequence": "seq", "counter": "seq",
                          "hostname": "host", "scanner": "button"]

    public let text: String
    public let parts: [Part]

    public var description: String { text }

    public var usesSequence: Bool {
        parts.contains { if case .placeholder(.seq, _) = $0 { true } else { false } }
    }

    public init(_ text: String) throws(Problem) {
        self.text = text
        self.parts = try Self.parse(Array(text.unicodeScalars))
        try Self.checkStaysInside(text)
    }

    /// The path this template names for these values. Substituted values cannot add folders or climb
    /// out: `/` in them becomes `_`, and parts that come out empty are dropped.
    public func render(_ values: TemplateValues, sequence: Int = 1) -> String {
        var output = ""
        for part in parts {
            switch part {
            case .literal(let text):
                output += text
            case .placeholder(let placeholder, let width):
                output += values.text(for: placeholder, sequence: sequence, width: width)
            }
        }
        return output.split(separator: "/").filter { !$0.isEmpty }.joined(separator: "/")
    }

    private static func parse(_ scalars: [Unicode.Scalar]) throws(Problem) -> [Part] {
        var parts: [Part] = []
        var literal = ""
        var index = 0
        var unknown: [Problem] = []
        while index < scalars.count {
            let scalar = scalars[index]
            if scalar == "{", index + 1 < scalars.count, scalars[index + 1] == "{" {
                literal += "{"; index += 2; continue
            }
            if scalar == "}", index + 1 < scalars.count, scalars[index + 1] == "}" {
                literal += "}"; index += 2; continue
            }
            if scalar == "}" {
                throw Problem(offset: index, message: "unmatched '}' (write '}}' for a literal brace)")
            }
            guard scalar == "{" else {
                literal.unicodeScalars.append(scalar); index += 1; continue
            }
            guard let close = scalars[index...].firstIndex(of: "}") else {
                throw Problem(offset: index, message: "'{' is never closed (write '{{' for a literal brace)")
            }
            let inside = String(String.UnicodeScalarView(scalars[(index + 1)..<close]))
            let pieces = inside.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
            let name = String(pieces[0])
            guard let placeholder = Placeholder(rawValue: name) else {
                let known = Placeholder.allCases.map(\.rawValue)
                let hint = (aliases[name.lowercased()] ?? Suggestion.closest(to: name, among: known)).map { " (did you mean {\($0)}?)" } ?? ""
                unknown.append(Problem(offset: index, message: "unknown placeholder {\(inside)}\(hint)"))
                index = close + 1
                continue
            }
            var width = 0
            if pieces.count == 2 {
                guard placeholder == .seq, let digits = Int(pieces[1]), (1...9).contains(digits) else {
                    throw Problem(offset: index, message: "{\(inside)}: only {seq} takes a width, from 1 to 9")
                }
                width = digits
            }
            if !literal.isEmpty { parts.append(.literal(literal)); literal = "" }
            parts.append(.placeholder(placeholder, width: width))
            index = close + 1
        }
        if !literal.isEmpty { parts.append(.literal(literal)) }
        if var first = unknown.first {
            first.others = Array(unknown.dropFirst())
            throw first
        }
        return parts
    }

    private static func checkStaysInside(_ text: String) throws(Problem) {
        if text.isEmpty { throw Problem(offset: 0, message: "is empty") }
        if text.hasPrefix("/") || text.hasPrefix("~") {
            throw Problem(offset: 0, message: "must be relative to its folder, not start with '\(text.first!)'")
        }
        var offset = 0
        for component in text.split(separator: "/", omittingEmptySubsequences: false) {
            if component == ".." { throw Problem(offset: offset, message: "must not climb out with '..'") }
            if component.isEmpty { throw Problem(offset: offset, message: "has an empty folder name ('//' or a trailing '/')") }
            offset += component.unicodeScalars.count + 1
        }
        if text.unicodeScalars.contains("\0") { throw Problem(offset: 0, message: "contains a NUL character") }
    }
}
