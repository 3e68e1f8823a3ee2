extension String {
    /// The text for one line of a log or a note: control characters (a newline in a file name,
    /// say) written as `\n`, `\t` or `\u{1b}`, so that one entry stays one line.
    public var oneLine: String {
        guard unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else { return self }
        return String(String.UnicodeScalarView(unicodeScalars.flatMap { scalar -> [Unicode.Scalar] in
            guard scalar.properties.generalCategory == .control else { return [scalar] }
            switch scalar {
            case "\n": return ["\\", "n"]
            case "\t": return ["\\", "t"]
            case "\r": return ["\\", "r"]
            default: return Array("\\u{\(String(scalar.value, radix: 16))}".unicodeScalars)
            }
        }))
    }
}
