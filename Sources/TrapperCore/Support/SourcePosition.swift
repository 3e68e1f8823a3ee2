/// Where a parser is in its text, as a person reads it: the line, and the column in characters
/// (UTF-8 continuation bytes do not count). The TOML and JSON readers share it. Asking for the
/// column of a byte counts forward from the last one asked for on the same line, so a long one-line
/// document costs linear time however many locations its errors and keys ask for.
struct SourcePosition {
    /// 1-based line of the parser's current line.
    private(set) var line = 1
    /// Byte offset where the current line starts (after a leading BOM on line 1).
    private(set) var lineStart = 0
    /// Column cache: the column of byte `columnIndex` on the current line.
    private var columnIndex = 0
    private var columnValue = 1

    static let byteOrderMark: [UInt8] = [0xEF, 0xBB, 0xBF]

    /// Line 1 starts after a byte order mark, if the text has one.
    init(_ bytes: [UInt8]) {
        if bytes.starts(with: Self.byteOrderMark) { (lineStart, columnIndex) = (3, 3) }
    }

    /// The parser passed a line feed; the next line starts at `start`.
    mutating func newLine(startingAt start: Int) {
        line += 1
        lineStart = start
    }

    /// The location of byte `index` of `bytes`: from the cache on the current line, or (for an error
    /// that points back at an earlier line) counted from the start.
    mutating func location(of index: Int, in bytes: [UInt8]) -> SourceLocation {
        guard index >= lineStart else { return Self.location(of: index, countingIn: bytes) }
        var (i, column) = columnIndex >= lineStart && columnIndex <= index ? (columnIndex, columnValue) : (lineStart, 1)
        while i < index {
            if bytes[i] & 0xC0 != 0x80 { column += 1 }
            i += 1
        }
        (columnIndex, columnValue) = (index, column)
        return SourceLocation(line: line, column: column)
    }

    /// The location of any byte, counted from the start of the text.
    static func location(of index: Int, countingIn bytes: [UInt8]) -> SourceLocation {
        var (line, column) = (1, 1)
        var i = bytes.starts(with: byteOrderMark) ? 3 : 0
        while i < index {
            if bytes[i] == 0x0A { (line, column) = (line + 1, 1) } else if bytes[i] & 0xC0 != 0x80 { column += 1 }
            i += 1
        }
        return SourceLocation(line: line, column: column)
    }
}
