/// Reads one `[[edit]]` table into its operation: the `op`, then that op's keys, each checked where it
/// was written. Unknown keys are reported against the op's own keys.
struct EditReader {
    let log: DiagnosticLog
    let units: LengthUnit

    /// Every op this version applies, and the keys each takes besides `op`.
    static let ops: KeyValuePairs<String, [String]> = [
        "rotate": ["pages", "degrees"],
        "delete": ["pages"],
        "move": ["pages", "to"],
        "insert-blank": ["after", "size"],
        "duplicate": ["pages"],
        "extract": ["pages", "into"],
        "crop": ["pages", "box"],
        "metadata": ["title", "author", "subject", "keywords"],
        "bookmark": ["title", "page"],
        "reframe": ["page", "corners"],
        "undo": ["steps"],
        "redo": ["steps"],
    ]

    /// Paper sizes in points (ISO A sizes from their millimetres).
    static let paperSizes: [(name: String, width: Double, height: Double)] = [
        ("A3", 297 * LengthUnit.mm.points, 420 * LengthUnit.mm.points),
        ("A4", 210 * LengthUnit.mm.points, 297 * LengthUnit.mm.points),
        ("A5", 148 * LengthUnit.mm.points, 210 * LengthUnit.mm.points),
        ("Letter", 612, 792),
        ("Legal", 612, 1008),
    ]

    /// The op as written (nil when missing or not a string) and the edit, nil when anything was wrong.
    func edit(_ reader: TableReader, index: Int) -> (op: String?, edit: Edit?) {
        var table = reader
        guard let op = table.string("op") else {
            if table.table["op"] == nil {
                log.add("\(table.name) is missing the required key \"op\" (one of \(Self.opList))", at: table.table.location)
            }
            return (nil, nil)
        }
        guard let keys = Self.keys(of: op.value) else {
            let hint = Suggestion.hint(for: op.value, among: Self.opNames)
            log.add("\(table.qualified("op")): unknown op \"\(op.value)\"\(hint); the ops are \(Self.opList)", at: op.location)
            return (op.value, nil)
        }
        let place = "\(table.name) (\(op.value))"
        let operation = self.operation(op.value, &table, place: place)
        reportUnknownKeys(table, op: op.value, keys: keys)
        return (op.value, operation.map { Edit(index: index, location: table.table.location, operation: $0) })
    }

    static var opNames: [String] { ops.map(\.key) + markupOps.map(\.key) }
    static var opList: String { opNames.joined(separator: ", ") }

    /// The keys `op` takes besides `op`; nil for an unknown op.
    static func keys(of op: String) -> [String]? {
        ops.first(where: { $0.key == op })?.value ?? markupOps.first(where: { $0.key == op })?.value
    }

    private func operation(_ op: String, _ table: inout TableReader, place: String) -> EditOperation? {
        switch op {
        case "rotate":
            let pages = table.pages(required: false, in: place)
            guard let degrees = required("degrees", &table, place, { $0.degrees() }), let pages else { return nil }
            return .rotate(pages: pages, degrees: degrees)
        case "delete":
            return table.pages(required: true, in: place).map { .delete(pages: $0) }
        case "move":
            let pages = table.pages(required: true, in: place)
            guard let to = required("to", &table, place, { $0.moveTarget() }), let pages else { return nil }
            return .move(pages: pages, to: to)
        case "insert-blank":
            let after = required("after", &table, place) {
                $0.integer("after", in: 0...PageSelection.maxPage, what: "a page number")
            }
            let size = pageSize(&table)
            guard let after, let size else { return nil }
            return .insertBlank(after: after, size: size)
        case "duplicate":
            return table.pages(required: true, in: place).map { .duplicate(pages: $0) }
        case "extract":
            let pages = table.pages(required: true, in: place)
            let into = required("into", &table, place) { RuleReader(log: log).template(&$0, "into", required: false, pdf: true) }
            guard let pages, let into else { return nil }
            return .extract(pages: pages, into: into)
        case "crop":
            let pages = table.pages(required: false, in: place)
            guard let box = required("box", &table, place, { cropBox(&$0) }), let pages else { return nil }
            return .crop(pages: pages, box: box)
        case "metadata":
            let keys = ["title", "author", "subject", "keywords"]
            let fields = keys.map { table.string($0)?.value }
            guard keys.contains(where: { table.table[$0] != nil }) else {
                log.add("\(place) sets nothing: give at least one of \(keys.joined(separator: ", "))", at: table.table.location)
                return nil
            }
            return .metadata(title: fields[0], author: fields[1], subject: fields[2], keywords: fields[3])
        case "bookmark":
            let title = required("title", &table, place) { $0.nonEmptyString("title") }
            let page = required("page", &table, place) {
                $0.integer("page", in: 1...PageSelection.maxPage, what: "a page number")
            }
            guard let title, let page else { return nil }
            return .bookmark(title: title, page: page)
        case "reframe":
            let page = required("page", &table, place) {
                $0.integer("page", in: 1...PageSelection.maxPage, what: "a page number")
            }
            guard let corners = required("corners", &table, place, { photoCorners(&$0) }), let page else { return nil }
            return .reframe(page: page, corners: corners)
        case "undo", "redo":
            let steps = table.table["steps"] == nil ? 1 : table.integer("steps", in: 1...Self.maxSteps, what: "a number of steps")
            guard let steps else { return nil }
            return op == "undo" ? .undo(steps: steps) : .redo(steps: steps)
        default:
            return markupOperation(op, &table, place: place)
        }
    }

    /// More steps than any history holds is a mistake, not a request.
    static let maxSteps = 10_000

    /// A key the op cannot do without: reported as missing when absent, else read by `read`.
    func required<Value>(_ key: String, _ table: inout TableReader, _ place: String,
                                 _ read: (inout TableReader) -> Value?) -> Value? {
        guard table.table[key] != nil else {
            table.missing(key, in: place)
            return nil
        }
        return read(&table)
    }

    /// `size = "A4"` (a paper name, any case) or `size = [width, height]` in the script's units;
    /// absent, nil (the size of a neighbouring page). The outer optional is nil when the size is wrong.
    private func pageSize(_ table: inout TableReader) -> PageSize?? {
        guard let node = table.table["size"] else { return .some(nil) }
        if case .string(let name) = node.value {
            guard let paper = Self.paperSizes.first(where: { $0.name.lowercased() == name.lowercased() }) else {
                let names = Self.paperSizes.map(\.name)
                log.add("\(table.qualified("size")) must be one of " + names.map { "\"\($0)\"" }.joined(separator: ", ")
                        + " or [width, height], not \"\(name)\"" + Suggestion.hint(for: name, among: names), at: node.location)
                return nil
            }
            return .some(.named(paper.name, width: paper.width, height: paper.height))
        }
        guard let sides = table.lengths("size", ["width", "height"], units: units, positive: true) else { return nil }
        return .some(.custom(width: sides[0], height: sides[1]))
    }

    /// `box = [x0, y0, x1, y1]`, its corners in order.
    private func cropBox(_ table: inout TableReader) -> ScriptBox? {
        guard let corners = table.lengths("box", ["x0", "y0", "x1", "y1"], units: units, positive: false) else { return nil }
        let box = ScriptBox(corners[0], corners[1], corners[2], corners[3])
        let location = table.table["box"]!.location
        let problems = box.areaProblems(TableReader.format)
        for problem in problems { log.add("\(table.qualified("box")): \(problem)", at: location) }
        return problems.isEmpty ? box : nil
    }

    /// `corners = [[x, y], [x, y], [x, y], [x, y]]`: fractions of the photo (0 to 1, y down), in any
    /// order, making a convex shape of at least a hundredth of the photo.
    private func photoCorners(_ table: inout TableReader) -> [SheetGeometry.Point]? {
        let node = table.table["corners"]!
        let shape = "four corners [[x, y], [x, y], [x, y], [x, y]], fractions of the photo from 0 to 1"
        guard case .array(let items) = node.value, items.count == 4 else {
            table.complain("corners", node, expected: shape)
            return nil
        }
        var points: [SheetGeometry.Point] = []
        for (index, item) in items.enumerated() {
            let numbers: [Double]
            if case .array(let pair) = item.value, pair.count == 2 {
                numbers = pair.compactMap {
                    switch $0.value {
                    case .integer(let value): Double(value)
                    case .float(let value): value
                    default: nil
                    }
                }
            } else {
                numbers = []
            }
            let name = "\(table.qualified("corners"))[\(index + 1)]"
            guard numbers.count == 2, numbers.allSatisfy(\.isFinite) else {
                log.add("\(name) must be [x, y], two numbers, not \(TableReader.describe(item.value))", at: item.location)
                return nil
            }
            guard numbers.allSatisfy({ (0...1).contains($0) }) else {
                log.add("\(name) = [\(TableReader.format(numbers[0])), \(TableReader.format(numbers[1]))] lies outside the photo: "
                        + "x and y are fractions of its width and height, from 0 to 1", at: item.location)
                return nil
            }
            points.append(SheetGeometry.Point(numbers[0], numbers[1]))
        }
        guard let ordered = SheetGeometry.quadrilateral(points) else {
            log.add("\(table.qualified("corners")): the four corners do not make a convex shape", at: node.location)
            return nil
        }
        guard SheetGeometry.quadArea(ordered) >= 0.01 else {
            log.add("\(table.qualified("corners")): the four corners enclose less than a hundredth of the photo", at: node.location)
            return nil
        }
        return ordered
    }

    /// A key the op does not take: with the nearest of its keys as a hint, or else the keys it takes.
    private func reportUnknownKeys(_ table: TableReader, op: String, keys: [String]) {
        for entry in table.table.entries where entry.key != "op" && !keys.contains(entry.key) {
            let hint = Suggestion.hint(for: entry.key, among: keys)
            let help = hint.isEmpty ? " (\(op) takes \(keys.joined(separator: ", ")))" : hint
            log.add("unknown key \"\(entry.key)\" in [\(table.name)]\(help)", at: entry.keyLocation)
        }
    }
}

extension TableReader {
    /// A non-zero multiple of 90, at most three quarter turns either way.
    fileprivate mutating func degrees() -> Int? {
        guard let node = node("degrees") else { return nil }
        guard case .integer(let value) = node.value, value != 0, value % 90 == 0, abs(value) <= 270 else {
            complain("degrees", node, expected: "a non-zero multiple of 90 from -270 to 270")
            return nil
        }
        return Int(value)
    }

    /// `to = 3` (before page 3) or `to = "end"`.
    fileprivate mutating func moveTarget() -> PageTarget? {
        guard let node = node("to") else { return nil }
        switch node.value {
        case .integer(let page) where (1...Int64(PageSelection.maxPage)).contains(page): return .before(Int(page))
        case .string("end"): return .end
        default:
            complain("to", node, expected: "a page number from 1 to \(PageSelection.maxPage) or \"end\"")
            return nil
        }
    }

    /// Also `change`'s id (MarkupReader).
    mutating func nonEmptyString(_ key: String) -> String? {
        guard let written = string(key) else { return nil }
        guard !written.value.isEmpty else {
            log.add("\(qualified(key)) must not be empty", at: written.location)
            return nil
        }
        return written.value
    }
}
