/// The parsed form of a TOML 1.0 document, with the source location of every key and value, so that
/// the config layer can say `FILE:LINE:COL: message` about anything it rejects.

/// A 1-based line and column (columns count Unicode scalars) in a source text.
public struct SourceLocation: Hashable, Sendable, Comparable, CustomStringConvertible {
    public var line: Int
    public var column: Int

    public init(line: Int, column: Int) {
        self.line = line
        self.column = column
    }

    public static let start = SourceLocation(line: 1, column: 1)

    public static func < (a: SourceLocation, b: SourceLocation) -> Bool {
        (a.line, a.column) < (b.line, b.column)
    }

    public var description: String { "\(line):\(column)" }
}

public struct TOMLDate: Hashable, Sendable {
    public var year: Int, month: Int, day: Int
    public init(year: Int, month: Int, day: Int) {
        self.year = year; self.month = month; self.day = day
    }
}

public struct TOMLTime: Hashable, Sendable {
    public var hour: Int, minute: Int, second: Int
    /// Fractional seconds in nanoseconds; digits past the ninth are truncated (TOML allows it).
    public var nanosecond: Int
    public init(hour: Int, minute: Int, second: Int, nanosecond: Int = 0) {
        self.hour = hour; self.minute = minute; self.second = second; self.nanosecond = nanosecond
    }
}

/// A value and where it starts in the source.
public struct TOMLNode: Sendable, Equatable {
    public var value: TOMLValue
    public var location: SourceLocation
    public init(_ value: TOMLValue, at location: SourceLocation) {
        self.value = value
        self.location = location
    }
}

public indirect enum TOMLValue: Sendable, Equatable {
    case string(String)
    case integer(Int64)
    case float(Double)
    case boolean(Bool)
    /// `offsetMinutes` is 0 for `Z`.
    case offsetDateTime(TOMLDate, TOMLTime, offsetMinutes: Int)
    case localDateTime(TOMLDate, TOMLTime)
    case localDate(TOMLDate)
    case localTime(TOMLTime)
    case array([TOMLNode])
    case table(TOMLTable)

    /// The type's name as a person writing TOML would say it, for error messages.
    public var typeName: String {
        switch self {
        case .string: "string"
        case .integer: "integer"
        case .float: "float"
        case .boolean: "boolean"
        case .offsetDateTime: "offset date-time"
        case .localDateTime: "local date-time"
        case .localDate: "local date"
        case .localTime: "local time"
        case .array: "array"
        case .table: "table"
        }
    }
}

/// One `key = value` (or sub-table) of a table, in source order.
public struct TOMLEntry: Sendable, Equatable {
    public var key: String
    /// Where the key (its last dotted part, or the header naming the sub-table) was written.
    public var keyLocation: SourceLocation
    public var node: TOMLNode
    public init(key: String, keyLocation: SourceLocation, node: TOMLNode) {
        self.key = key
        self.keyLocation = keyLocation
        self.node = node
    }
}

/// A table: entries in the order they were first written.
public struct TOMLTable: Sendable, Equatable {
    public var entries: [TOMLEntry]
    /// Where the table was opened: its `[header]`, its `{`, its first dotted key; 1:1 for the root.
    public var location: SourceLocation

    public init(entries: [TOMLEntry] = [], location: SourceLocation = .start) {
        self.entries = entries
        self.location = location
    }

    public var keys: [String] { entries.map(\.key) }

    public func entry(_ key: String) -> TOMLEntry? {
        entries.first { $0.key == key }
    }

    public subscript(key: String) -> TOMLNode? {
        entry(key)?.node
    }
}

/// Why a text is not TOML 1.0, and where.
public struct TOMLError: Error, Sendable, Equatable, CustomStringConvertible {
    public var location: SourceLocation
    public var message: String
    public init(_ message: String, at location: SourceLocation) {
        self.message = message
        self.location = location
    }
    public var description: String { "\(location): \(message)" }
}
