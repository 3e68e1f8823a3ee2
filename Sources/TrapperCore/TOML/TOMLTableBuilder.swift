/// The mutable tree the parser builds, and TOML's rules about which table may be defined or extended
/// where:
///
/// - `[a.b]` makes `a` implicitly; a later `[a]` may define it once. A table is defined once.
/// - `a.b.c = 1` makes `a` and `a.b` as dotted tables; they can take more dotted keys in the same
///   table, and sub-tables by header (`[a.b.x]`), but cannot be named by a header themselves.
/// - Dotted keys cannot reach into a table defined by a header (`[a.b]` then under `[a]`, `b.c = 1`)
///   nor into an array of tables.
/// - Inline tables and static arrays are values: closed once written.
/// - `[[a]]` appends to an array of tables made by `[[a]]`, never to a static array `a = […]`;
///   headers below it (`[a.x]`, `[[a.y]]`) go into its last element.

final class TableBox {
    enum Origin {
        /// The document root, or the root of an inline table while it is being read.
        case root
        /// Made because a header named something below it; a header may still define it once.
        case implicit
        /// Made by dotted keys.
        case dotted
        /// Defined by a `[header]` or as an element of an array of tables.
        case header
    }

    struct Entry {
        var key: String
        var keyLocation: SourceLocation
        var slot: Slot
    }

    enum Slot {
        case table(TableBox)
        case arrayOfTables(ArrayOfTablesBox)
        case value(TOMLNode)
    }

    var origin: Origin
    var location: SourceLocation
    /// For a dotted table, the key part that made or claimed it (for messages).
    var dottedAt: SourceLocation?
    /// How many tables and arrays enclose this table (the root is 0).
    let level: Int
    var entries: [Entry] = []
    var index: [ExactKey: Int] = [:]

    init(origin: Origin, location: SourceLocation, level: Int) {
        self.origin = origin
        self.location = location
        self.level = level
    }

    func find(_ key: String) -> Int? { index[ExactKey(key)] }

    func append(_ key: String, at keyLocation: SourceLocation, _ slot: Slot) {
        index[ExactKey(key)] = entries.count
        entries.append(Entry(key: key, keyLocation: keyLocation, slot: slot))
    }

    /// The finished, immutable table.
    func freeze() -> TOMLTable {
        var out: [TOMLEntry] = []
        out.reserveCapacity(entries.count)
        for entry in entries {
            let node: TOMLNode
            switch entry.slot {
            case .table(let table):
                node = TOMLNode(.table(table.freeze()), at: table.location)
            case .arrayOfTables(let array):
                node = TOMLNode(.array(array.elements.map { TOMLNode(.table($0.freeze()), at: $0.location) }),
                                at: array.location)
            case .value(let value):
                node = value
            }
            out.append(TOMLEntry(key: entry.key, keyLocation: entry.keyLocation, node: node))
        }
        return TOMLTable(entries: out, location: location)
    }
}

final class ArrayOfTablesBox {
    var elements: [TableBox]
    let location: SourceLocation
    init(first: TableBox, location: SourceLocation) {
        elements = [first]
        self.location = location
    }
}

/// Keys compare by their exact scalars (Swift's `String ==` would merge canonically equivalent keys,
/// which TOML keeps apart).
struct ExactKey: Hashable {
    var string: String
    init(_ string: String) { self.string = string }
    static func == (a: ExactKey, b: ExactKey) -> Bool { a.string.utf8.elementsEqual(b.string.utf8) }
    func hash(into hasher: inout Hasher) {
        var s = string
        s.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
    }
}

extension TOMLParser {
    // MARK: Dotted keys

    /// Walks or makes the tables named by all but the last part of a dotted key, from `table`.
    /// Then checks that the last part is still free there. Returns the table that gets the value.
    mutating func tableForKeyValue(_ parts: [TOMLKeyPart], in table: TableBox) throws(TOMLError) -> TableBox {
        var current = table
        for (i, part) in parts.dropLast().enumerated() {
            if let at = current.find(part.name) {
                let entry = current.entries[at]
                switch entry.slot {
                case .table(let sub):
                    switch sub.origin {
                    case .dotted: break
                    case .implicit:
                        sub.origin = .dotted
                        sub.dottedAt = part.location
                    case .header, .root:
                        throw TOMLError(
                            "cannot add to table \"\(tomlDisplayKey(parts[...i]))\" with a dotted key: it is defined by a header at \(sub.location)",
                            at: part.location)
                    }
                    current = sub
                case .arrayOfTables(let array):
                    throw TOMLError(
                        "cannot add to array of tables \"\(tomlDisplayKey(parts[...i]))\" (defined at \(array.location)) with a dotted key",
                        at: part.location)
                case .value(let node):
                    throw notATable(tomlDisplayKey(parts[...i]), entry: entry, node: node, at: part.location)
                }
            } else {
                let sub = try newTable(.dotted, at: part.location, under: current)
                sub.dottedAt = part.location
                current.append(part.name, at: part.location, .table(sub))
                current = sub
            }
        }
        let last = parts[parts.count - 1]
        if let at = current.find(last.name) {
            throw TOMLError("key \"\(tomlDisplayKey(parts))\" is already defined at \(current.entries[at].keyLocation)",
                            at: last.location)
        }
        return current
    }

    // MARK: Headers

    /// `[a.b.c]` opened at `open`: the table that following keys go into.
    mutating func defineTable(_ parts: [TOMLKeyPart], root: TableBox, open: SourceLocation) throws(TOMLError) -> TableBox {
        let parent = try parentForHeader(parts, root: root)
        let last = parts[parts.count - 1]
        if let at = parent.find(last.name) {
            let entry = parent.entries[at]
            let written = tomlDisplayKey(parts)
            switch entry.slot {
            case .table(let table):
                switch table.origin {
                case .implicit:
                    table.origin = .header
                    table.location = open
                    parent.entries[at].keyLocation = last.location
                    return table
                case .dotted:
                    throw TOMLError("table \"\(written)\" is already defined by dotted keys at \(table.dottedAt ?? entry.keyLocation)",
                                    at: last.location)
                case .header, .root:
                    throw TOMLError("table \"\(written)\" is already defined at \(table.location)", at: last.location)
                }
            case .arrayOfTables(let array):
                throw TOMLError("\"\(written)\" is already defined at \(array.location) as an array of tables",
                                at: last.location)
            case .value(let node):
                throw alreadyAValue(written, entry: entry, node: node, at: last.location)
            }
        }
        let table = try newTable(.header, at: open, under: parent)
        parent.append(last.name, at: last.location, .table(table))
        return table
    }

    /// `[[a.b.c]]` opened at `open`: appends a table to the array `a.b.c` and returns it.
    mutating func appendArrayTable(_ parts: [TOMLKeyPart], root: TableBox, open: SourceLocation) throws(TOMLError) -> TableBox {
        let parent = try parentForHeader(parts, root: root)
        let last = parts[parts.count - 1]
        let element = try newTable(.header, at: open, under: parent)
        if let at = parent.find(last.name) {
            let entry = parent.entries[at]
            let written = tomlDisplayKey(parts)
            switch entry.slot {
            case .arrayOfTables(let array):
                array.elements.append(element)
                return element
            case .table(let table):
                let already: String
                switch table.origin {
                case .implicit: already = "already exists (implied by the header at \(table.location))"
                case .dotted: already = "is already defined by dotted keys at \(table.dottedAt ?? entry.keyLocation)"
                case .header, .root: already = "is already defined at \(table.location)"
                }
                throw TOMLError("table \"\(written)\" \(already); it cannot also be an array of tables",
                                at: last.location)
            case .value(let node):
                if case .array = node.value {
                    throw TOMLError("cannot append to \"\(written)\": it is a static array defined at \(entry.keyLocation), not an array of tables",
                                    at: last.location)
                }
                throw alreadyAValue(written, entry: entry, node: node, at: last.location)
            }
        }
        parent.append(last.name, at: last.location, .arrayOfTables(ArrayOfTablesBox(first: element, location: open)))
        return element
    }

    /// Walks or makes (implicitly) the tables above a header's last part; arrays of tables lead into
    /// their last element.
    private mutating func parentForHeader(_ parts: [TOMLKeyPart], root: TableBox) throws(TOMLError) -> TableBox {
        var current = root
        for (i, part) in parts.dropLast().enumerated() {
            if let at = current.find(part.name) {
                let entry = current.entries[at]
                switch entry.slot {
                case .table(let sub):
                    current = sub
                case .arrayOfTables(let array):
                    current = array.elements[array.elements.count - 1]
                case .value(let node):
                    throw notATable(tomlDisplayKey(parts[...i]), entry: entry, node: node, at: part.location)
                }
            } else {
                let sub = try newTable(.implicit, at: part.location, under: current)
                current.append(part.name, at: part.location, .table(sub))
                current = sub
            }
        }
        return current
    }

    // MARK: Helpers

    func newTable(_ origin: TableBox.Origin, at location: SourceLocation, under parent: TableBox) throws(TOMLError) -> TableBox {
        let level = parent.level + 1
        try checkDepth(level, at: location)
        return TableBox(origin: origin, location: location, level: level)
    }

    func checkDepth(_ level: Int, at location: SourceLocation) throws(TOMLError) {
        if level > limits.maxDepth {
            throw TOMLError("nesting is deeper than the limit of \(limits.maxDepth) tables and arrays", at: location)
        }
    }

    /// A header names a key that already holds a value (an inline table included).
    private func alreadyAValue(_ written: String, entry: TableBox.Entry, node: TOMLNode, at location: SourceLocation) -> TOMLError {
        if case .table = node.value {
            return TOMLError("table \"\(written)\" is already defined at \(entry.keyLocation) as an inline table, which is closed once written",
                             at: location)
        }
        return TOMLError("key \"\(written)\" is already defined at \(entry.keyLocation) as \(tomlArticle(node.value.typeName))",
                         at: location)
    }

    private func notATable(_ written: String, entry: TableBox.Entry, node: TOMLNode, at location: SourceLocation) -> TOMLError {
        if case .table = node.value {
            return TOMLError("cannot add to inline table \"\(written)\" defined at \(node.location); an inline table is closed once written",
                             at: location)
        }
        return TOMLError("key \"\(written)\" is already defined at \(entry.keyLocation) as \(tomlArticle(node.value.typeName)), not a table",
                         at: location)
    }
}

func tomlArticle(_ typeName: String) -> String {
    let vowel = typeName.first.map { "aeio".contains($0) } ?? false
    return (vowel ? "an " : "a ") + typeName
}
