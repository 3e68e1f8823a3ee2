/// Collects a config's problems as they are found, so that one run reports all of them.
final class DiagnosticLog {
    let file: String
    private(set) var diagnostics: [ConfigDiagnostic] = []
    /// What is allowed but most likely not meant (`root = "~Documents"`): said, not refused.
    private(set) var warnings: [ConfigDiagnostic] = []

    init(file: String) { self.file = file }

    func add(_ message: String, at location: SourceLocation) {
        diagnostics.append(ConfigDiagnostic(file: file, location: location, message: message))
    }

    func warn(_ message: String, at location: SourceLocation) {
        warnings.append(ConfigDiagnostic(file: file, location: location, message: "warning: " + message))
    }
}

/// Reads one TOML table into typed values. A wrong type, a bad value or a missing required key is
/// logged with the place it was written and reads as nil; `finish()` reports the keys nobody asked for.
struct TableReader {
    let table: TOMLTable
    /// The table's name in messages: "inbox", "rule[2]", "rule[2].match"; empty for the top level.
    let name: String
    let log: DiagnosticLog
    private var asked: [String] = []

    init(_ table: TOMLTable, name: String, log: DiagnosticLog) {
        self.table = table
        self.name = name
        self.log = log
    }

    func qualified(_ key: String) -> String { name.isEmpty ? key : "\(name).\(key)" }

    /// The node for a key, marking the key as known.
    mutating func node(_ key: String, required: Bool = false) -> TOMLNode? {
        asked.append(key)
        guard let node = table[key] else {
            if required {
                let place = name.isEmpty ? "the config" : "[\(name)]"
                log.add("\(place) is missing the required key \"\(key)\"", at: table.location)
            }
            return nil
        }
        return node
    }

    func complain(_ key: String, _ node: TOMLNode, expected: String) {
        log.add("\(qualified(key)) must be \(expected), not \(Self.describe(node.value))", at: node.location)
    }

    mutating func string(_ key: String, required: Bool = false) -> (value: String, location: SourceLocation)? {
        guard let node = node(key, required: required) else { return nil }
        guard case .string(let text) = node.value else {
            complain(key, node, expected: "a string")
            return nil
        }
        return (text, node.location)
    }

    mutating func bool(_ key: String) -> Bool? {
        guard let node = node(key) else { return nil }
        guard case .boolean(let value) = node.value else {
            complain(key, node, expected: "true or false")
            return nil
        }
        return value
    }

    mutating func integer(_ key: String, in range: ClosedRange<Int64>) -> Int64? {
        guard let node = node(key) else { return nil }
        guard case .integer(let value) = node.value, range.contains(value) else {
            complain(key, node, expected: "an integer from \(range.lowerBound) to \(range.upperBound)")
            return nil
        }
        return value
    }

    /// A duration written as a string with a unit ("2s"), or an integer number of seconds.
    mutating func seconds(_ key: String) -> Double? {
        guard let node = node(key) else { return nil }
        switch node.value {
        case .integer(let value) where value >= 0: return Double(value)
        case .string(let text): if let seconds = Quantities.seconds(text) { return seconds }
        default: break
        }
        complain(key, node, expected: "a duration such as \"500ms\", \"2s\" or \"5m\"")
        return nil
    }

    /// A size written as a string with a unit ("10MB", "512KiB"), or an integer number of bytes.
    mutating func bytes(_ key: String) -> Int64? {
        guard let node = node(key) else { return nil }
        switch node.value {
        case .integer(let value) where value >= 0: return value
        case .string(let text): if let bytes = Quantities.bytes(text) { return bytes }
        default: break
        }
        complain(key, node, expected: "a size such as \"10MB\" or \"512KiB\"")
        return nil
    }

    /// One of a fixed set of words, with a suggestion for a near miss.
    mutating func choice<Choice>(_ key: String, default fallback: Choice) -> Choice
    where Choice: RawRepresentable & CaseIterable, Choice.RawValue == String {
        guard let node = node(key) else { return fallback }
        let words = Choice.allCases.map(\.rawValue)
        guard case .string(let text) = node.value else {
            complain(key, node, expected: "one of " + words.map { "\"\($0)\"" }.joined(separator: ", "))
            return fallback
        }
        guard let value = Choice(rawValue: text) else {
            let list = words.map { "\"\($0)\"" }.joined(separator: ", ")
            log.add("\(qualified(key)) must be one of \(list), not \"\(text)\"\(Suggestion.hint(for: text, among: words))",
                    at: node.location)
            return fallback
        }
        return value
    }

    /// A string or an array of strings (`glob = "*.jpg"` or `glob = ["*.jpg", "*.png"]`).
    mutating func strings(_ key: String) -> [(value: String, location: SourceLocation)]? {
        guard let node = node(key) else { return nil }
        switch node.value {
        case .string(let text): return [(text, node.location)]
        case .array(let items):
            var result: [(String, SourceLocation)] = []
            for item in items {
                guard case .string(let text) = item.value else {
                    complain(key, item, expected: "a string")
                    continue
                }
                result.append((text, item.location))
            }
            return result
        default:
            complain(key, node, expected: "a string or an array of strings")
            return nil
        }
    }

    mutating func subtable(_ key: String, required: Bool = false) -> TableReader? {
        guard let node = node(key) else {
            if required { log.add("the config is missing the required table [\(qualified(key))]", at: table.location) }
            return nil
        }
        guard case .table(let table) = node.value else {
            complain(key, node, expected: "a table")
            return nil
        }
        return TableReader(table, name: qualified(key), log: log)
    }

    /// `[[key]]` entries, each named `key[1]`, `key[2]`, ...
    mutating func arrayOfTables(_ key: String) -> [TableReader] {
        guard let node = node(key) else { return [] }
        guard case .array(let items) = node.value else {
            complain(key, node, expected: "an array of tables ([[\(key)]])")
            return []
        }
        var readers: [TableReader] = []
        for (index, item) in items.enumerated() {
            guard case .table(let table) = item.value else {
                complain(key, item, expected: "a table")
                continue
            }
            readers.append(TableReader(table, name: "\(qualified(key))[\(index + 1)]", log: log))
        }
        return readers
    }

    /// Reports every key that no reader asked for, with the nearest known key as a hint.
    func finish() {
        for entry in table.entries where !asked.contains(entry.key) {
            var place = name.isEmpty ? "at the top level" : "in [\(name)]"
            // A table of an array that has a name (a rule's) is named by it: `in [rule "letters"]`.
            if name.hasSuffix("]"), case .string(let own)? = table["name"]?.value, let bracket = name.lastIndex(of: "[") {
                place = "in [\(name[..<bracket]) \"\(own)\"]"
            }
            log.add("unknown key \"\(entry.key)\" \(place)\(Suggestion.hint(for: entry.key, among: asked))",
                    at: entry.keyLocation)
        }
    }

    /// A value as a message names it: `the string "x"`, `the integer 3`, `an array`.
    static func describe(_ value: TOMLValue) -> String {
        switch value {
        case .string(let text): "the string \"\(text)\""
        case .integer(let number): "the integer \(number)"
        case .float(let number): "the float \(number)"
        case .boolean(let flag): "\(flag)"
        case .array: "an array"
        case .table: "a table"
        default: "a \(value.typeName)"
        }
    }
}
