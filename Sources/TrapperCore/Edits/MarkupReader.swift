/// Reads the markup ops (text markup, ink, shapes, text boxes, notes), `signature` and `erase`,
/// each key checked where it was written, as `EditReader` does for page operations.
extension EditReader {
    /// Keys every markup op takes besides its own.
    static let styleKeys = ["page", "color", "opacity", "author", "contents"]

    static let markupOps: KeyValuePairs<String, [String]> = [
        "highlight": styleKeys + ["rects", "text"],
        "underline": styleKeys + ["rects", "text"],
        "strikeout": styleKeys + ["rects", "text"],
        "squiggly": styleKeys + ["rects", "text"],
        "ink": styleKeys + ["strokes", "preset", "width"],
        "rect": styleKeys + ["box", "fill", "width"],
        "oval": styleKeys + ["box", "fill", "width"],
        "line": styleKeys + ["from", "to", "width"],
        "arrow": styleKeys + ["from", "to", "width"],
        "textbox": styleKeys + ["box", "text", "size"],
        "note": styleKeys + ["at"],
        "polygon": styleKeys + ["points", "fill", "width"],
        "signature": ["page", "name", "box", "flatten", "author"],
        "erase": ["pages", "ids", "kind", "author", "region", "made_by_pdftrapper"],
        "loupe": ["page", "at", "radius", "zoom", "author"],
        "change": ["page", "id", "box", "move", "rotate", "color", "width", "opacity", "text", "size", "copy"],
    ]

    /// Ink presets, as a phone's markup toolbar has them: width in points, colour, opacity.
    static let inkPresets: KeyValuePairs<String, (width: Double, color: RGBColor, opacity: Double)> = [
        "pen": (2, .black, 1),
        "marker": (12, RGBColor(1, 0.9, 0.1), 0.4),
        "pencil": (1, RGBColor(0.3, 0.3, 0.3), 0.8),
    ]

    /// A text box or a note holds at most this much text; a search for more is a mistake.
    static let maxTextLength = 10_000
    /// All the points of one ink op.
    static let maxInkPoints = 1_000_000

    func markupOperation(_ op: String, _ table: inout TableReader, place: String) -> EditOperation? {
        switch op {
        case "signature": return signature(&table, place: place)
        case "erase": return erase(&table, place: place)
        case "change": return change(&table, place: place)
        case "loupe": return loupe(&table, place: place)
        default: break
        }
        let page = required("page", &table, place) { $0.integer("page", in: 1...PageSelection.maxPage, what: "a page number") }
        let author = table.string("author")?.value
        let contents = table.string("contents")?.value
        let opacity = table.table["opacity"] == nil ? nil : table.fraction("opacity")
        var color = table.table["color"] == nil ? nil : table.color("color", allowNone: ["rect", "oval", "polygon"].contains(op))
        let shape: MarkupShape?
        var defaultColor: RGBColor? = .black
        var defaultOpacity = 1.0
        switch op {
        case "highlight", "underline", "strikeout", "squiggly":
            let kind = TextMarkupKind(rawValue: op)!
            shape = textArea(&table, place: place).map { .text(kind, $0) }
            defaultColor = kind == .highlight ? RGBColor(1, 0.9, 0.1) : RGBColor(0.9, 0.1, 0.1)
        case "ink":
            let preset = table.table["preset"] == nil ? Self.inkPresets[0].value : presetValue(&table)
            let width = table.table["width"] == nil ? preset?.width : table.width("width")
            let strokes = required("strokes", &table, place) { strokeList(&$0) }
            defaultColor = preset?.color
            defaultOpacity = preset?.opacity ?? 1
            guard let strokes, let width else { return nil }
            shape = .ink(strokes: strokes, width: width)
        case "rect", "oval":
            let box = required("box", &table, place) { $0.box("box", units: units) }
            guard let style = outline(&table, color: color, place: place), let box else { return nil }
            shape = op == "rect" ? .rect(box: box, fill: style.fill, width: style.width) : .oval(box: box, fill: style.fill, width: style.width)
        case "line", "arrow":
            let from = required("from", &table, place) { $0.point("from", units: units) }
            let to = required("to", &table, place) { $0.point("to", units: units) }
            let width = table.table["width"] == nil ? 2 : table.width("width")
            guard let from, let to, let width else { return nil }
            if from == to {
                log.add("\(place): from and to are the same point, so there is no line to draw", at: table.table.location)
                return nil
            }
            shape = .line(from: from, to: to, arrow: op == "arrow", width: width)
        case "textbox":
            let box = required("box", &table, place) { $0.box("box", units: units) }
            let text = required("text", &table, place) { $0.boundedText("text", max: Self.maxTextLength) }
            let size = table.table["size"] == nil ? 12 : table.number("size", in: 1...200, what: "a font size in points")
            guard let box, let text, let size else { return nil }
            shape = .textbox(box: box, text: text, size: size)
        case "polygon":
            let points = required("points", &table, place) { vertices(&$0) }
            guard let style = outline(&table, color: color, place: place), let points else { return nil }
            shape = .polygon(points: points, fill: style.fill, width: style.width)
        case "note":
            let at = required("at", &table, place) { $0.point("at", units: units) }
            if table.table["contents"] == nil { table.missing("contents", in: place) }
            defaultColor = RGBColor(1, 0.85, 0.2)
            guard let at, contents != nil else { return nil }
            shape = .note(at: at)
        default:
            return nil
        }
        guard let page, let shape, let opacity = opacity ?? .some(defaultOpacity) else { return nil }
        if color == nil { color = .some(defaultColor) }
        guard let color else { return nil }
        return .markup(Markup(page: page, shape: shape, color: color, opacity: opacity, author: author, contents: contents))
    }

    /// `rects = [[x0, y0, x1, y1], …]` or `text = "…"`, exactly one of them.
    private func textArea(_ table: inout TableReader, place: String) -> TextArea? {
        switch (table.table["rects"], table.table["text"]) {
        case (nil, nil):
            log.add("\(place) needs \"rects\" (boxes to mark) or \"text\" (words to find on the page)", at: table.table.location)
            return nil
        case (.some, .some):
            log.add("\(place) takes \"rects\" or \"text\", not both", at: table.table.location)
            return nil
        case (.some, nil):
            return table.boxes("rects", units: units).map(TextArea.rects)
        case (nil, .some):
            return table.boundedText("text", max: Self.maxTextLength).map(TextArea.text)
        }
    }

    /// A closed shape's `fill` (none by default) and outline `width` (2 by default); nil, logged,
    /// when either is wrong or the shape would draw nothing (no outline colour and no fill).
    private func outline(_ table: inout TableReader, color: RGBColor??, place: String) -> (fill: RGBColor?, width: Double)? {
        let fill = table.table["fill"] == nil ? .some(nil) : table.color("fill", allowNone: true)
        let width = table.table["width"] == nil ? 2 : table.width("width")
        guard let fill, let width else { return nil }
        if color == .some(nil), fill == nil {
            log.add("\(place) draws nothing: color = \"none\" and no fill", at: table.table.location)
            return nil
        }
        return (fill, width)
    }

    /// `points = [[x, y], …]` or `"x y x y …"`: three corners at least, at most 10,000.
    private func vertices(_ table: inout TableReader) -> [ScriptPoint]? {
        guard let node = table.node("points") else { return nil }
        let name = table.qualified("points")
        var points: [ScriptPoint] = []
        switch node.value {
        case .array(let items):
            for (number, item) in items.enumerated() {
                guard let point = table.pointValue(item, name: "\(name)[\(number + 1)]", units: units) else { return nil }
                points.append(point)
            }
        case .string(let text):
            guard let read = textPoints(text, name: name, at: node.location) else { return nil }
            points = read
        default:
            table.complain("points", node, expected: "a list of [x, y] corners or a string \"x y x y …\"")
            return nil
        }
        guard (3...10_000).contains(points.count) else {
            log.add("\(name) must have from 3 to 10000 corners, not \(points.count)", at: node.location)
            return nil
        }
        return points
    }

    private func presetValue(_ table: inout TableReader) -> (width: Double, color: RGBColor, opacity: Double)? {
        guard let written = table.string("preset") else { return nil }
        guard let preset = Self.inkPresets.first(where: { $0.key == written.value })?.value else {
            let names = Self.inkPresets.map(\.key)
            log.add("\(table.qualified("preset")) must be one of \(names.joined(separator: ", ")), not \"\(written.value)\""
                    + Suggestion.hint(for: written.value, among: names), at: written.location)
            return nil
        }
        return preset
    }

    /// `strokes = [[[x, y], [x, y], …], …]`: each stroke a list of points, or one string of
    /// numbers `"x y x y …"` (`PointText`: what the workspace writes, a million points cheaply).
    private func strokeList(_ table: inout TableReader) -> [[ScriptPoint]]? {
        guard let node = table.node("strokes") else { return nil }
        guard case .array(let strokes) = node.value, !strokes.isEmpty else {
            table.complain("strokes", node, expected: "a list of strokes, each a list of [x, y] points")
            return nil
        }
        var result: [[ScriptPoint]] = []
        var total = 0
        for (index, stroke) in strokes.enumerated() {
            let name = "\(table.qualified("strokes"))[\(index + 1)]"
            let line: [ScriptPoint]
            switch stroke.value {
            case .array(let points) where !points.isEmpty:
                var read: [ScriptPoint] = []
                for (number, point) in points.enumerated() {
                    guard let value = table.pointValue(point, name: "\(name)[\(number + 1)]", units: units) else { return nil }
                    read.append(value)
                }
                line = read
            case .string(let text):
                guard let read = textPoints(text, name: name, at: stroke.location) else { return nil }
                line = read
            default:
                log.add("\(name) must be a list of [x, y] points or a string \"x y x y …\", not \(TableReader.describe(stroke.value))",
                        at: stroke.location)
                return nil
            }
            total += line.count
            guard total <= Self.maxInkPoints else {
                log.add("\(table.qualified("strokes")) has more than \(Self.maxInkPoints) points", at: stroke.location)
                return nil
            }
            result.append(line)
        }
        return result
    }

    /// A stroke written as `"x y x y …"`: an even number of numbers, one point at least, each a
    /// length a page can hold.
    private func textPoints(_ text: String, name: String, at location: SourceLocation) -> [ScriptPoint]? {
        let numbers: [Double]
        switch PointText.numbers(text) {
        case .success(let read): numbers = read
        case .failure(let problem):
            log.add("\(name): \"\(problem.word)\" is not a number; a stroke as a string is \"x y x y …\"", at: location)
            return nil
        }
        guard !numbers.isEmpty, numbers.count % 2 == 0 else {
            log.add("\(name) must hold x and y of each point (\"x y x y …\"), not \(numbers.count) numbers", at: location)
            return nil
        }
        var points: [ScriptPoint] = []
        points.reserveCapacity(numbers.count / 2)
        for index in stride(from: 0, to: numbers.count, by: 2) {
            let (x, y) = (numbers[index], numbers[index + 1])
            if let problem = TableReader.lengthProblem(x, units: units, positive: false)
                ?? TableReader.lengthProblem(y, units: units, positive: false) {
                log.add("\(name)[\(index / 2 + 1)]: \(problem)", at: location)
                return nil
            }
            points.append(ScriptPoint(x, y))
        }
        return points
    }

    private func signature(_ table: inout TableReader, place: String) -> EditOperation? {
        let page = required("page", &table, place) { $0.integer("page", in: 1...PageSelection.maxPage, what: "a page number") }
        let name = required("name", &table, place) { $0.signatureName("name") }
        let box = required("box", &table, place) { $0.box("box", units: units) }
        let flatten = table.bool("flatten") ?? false
        let author = table.string("author")?.value
        guard let page, let name, let box else { return nil }
        return .signature(SignaturePlacement(page: page, name: name, box: box, flatten: flatten, author: author))
    }

    private func loupe(_ table: inout TableReader, place: String) -> EditOperation? {
        let page = required("page", &table, place) { $0.integer("page", in: 1...PageSelection.maxPage, what: "a page number") }
        let at = required("at", &table, place) { $0.point("at", units: units) }
        let radius = table.table["radius"] == nil ? 40 : table.number("radius", in: 5...500, what: "a radius in points")
        let zoom = table.table["zoom"] == nil ? 2 : table.number("zoom", in: 1.25...8, what: "a magnification")
        let author = table.string("author")?.value
        guard let page, let at, let radius, let zoom else { return nil }
        return .loupe(LoupePlacement(page: page, at: at, radius: radius, zoom: zoom, author: author))
    }

    private func change(_ table: inout TableReader, place: String) -> EditOperation? {
        let page = required("page", &table, place) { $0.integer("page", in: 1...PageSelection.maxPage, what: "a page number") }
        let id = required("id", &table, place) { $0.nonEmptyString("id") }
        func optional<T>(_ key: String, _ read: (inout TableReader) -> T?) -> T?? {
            table.table[key] == nil ? .some(nil) : read(&table).map { .some($0) } ?? nil
        }
        let box = optional("box") { $0.box("box", units: units) }
        let move = optional("move") { $0.point("move", units: units) }
        let rotate = optional("rotate") { $0.number("rotate", in: -360...360, what: "an angle in degrees") }
        let color = optional("color") { $0.color("color", allowNone: false).flatMap { $0 } }
        let width = optional("width") { $0.width("width") }
        let opacity = optional("opacity") { $0.fraction("opacity") }
        let text = optional("text") { $0.boundedText("text", max: Self.maxTextLength) }
        let size = optional("size") { $0.number("size", in: 1...200, what: "a font size in points") }
        let copy = table.bool("copy") ?? false
        guard let page, let id, let box, let move, let rotate, let color, let width, let opacity, let text, let size else { return nil }
        if box != nil, move != nil {
            log.add("\(place) takes box (where the annotation goes) or move (by how much), not both", at: table.table.location)
            return nil
        }
        let change = AnnotationChange(page: page, id: id, box: box, move: move, rotate: rotate, color: color, width: width,
                                      opacity: opacity, text: text, size: size, copy: copy)
        if change.isEmpty, !copy {
            log.add("\(place) changes nothing: give at least one of box, move, rotate, color, width, opacity, text, size "
                    + "(or copy = true)", at: table.table.location)
            return nil
        }
        return .change(change)
    }

    private func erase(_ table: inout TableReader, place: String) -> EditOperation? {
        let pages = table.pages(required: false, in: place)
        let ids = table.table["ids"] == nil ? nil : table.strings("ids")?.map(\.value)
        let kinds: [String]?
        if let node = table.table["kind"], case .string = node.value {
            kinds = table.string("kind").map { [$0.value] }
        } else {
            kinds = table.table["kind"] == nil ? nil : table.strings("kind")?.map(\.value)
        }
        let author = table.string("author")?.value
        let region = table.table["region"] == nil ? nil : table.box("region", units: units)
        let mine = table.bool("made_by_pdftrapper") ?? false
        let criteria = ["ids", "kind", "author", "region", "made_by_pdftrapper"]
        guard criteria.contains(where: { table.table[$0] != nil }) else {
            log.add("\(place) names nothing to erase: give at least one of \(criteria.joined(separator: ", "))",
                    at: table.table.location)
            return nil
        }
        for kind in kinds ?? [] where !AnnotationKinds.known(kind) {
            let hint = Suggestion.hint(for: kind, among: AnnotationKinds.names)
            log.add("\(table.qualified("kind")): unknown kind \"\(kind)\"\(hint); the kinds are "
                    + AnnotationKinds.names.joined(separator: ", "), at: table.table["kind"]!.location)
            return nil
        }
        guard let pages else { return nil }
        if table.table["ids"] != nil, ids == nil { return nil }
        if table.table["kind"] != nil, kinds == nil { return nil }
        if table.table["region"] != nil, region == nil { return nil }
        return .erase(AnnotationFilter(pages: pages, ids: ids, kinds: kinds, author: author, region: region,
                                       madeByPDFTrapper: mine))
    }
}

/// The kinds `erase` and `pdftrapper annotations` name, by op name, and the PDF subtype each is.
public enum AnnotationKinds {
    public static let subtypes: KeyValuePairs<String, String> = [
        "highlight": "Highlight", "underline": "Underline", "strikeout": "StrikeOut", "squiggly": "Squiggly",
        "ink": "Ink", "rect": "Square", "oval": "Circle", "line": "Line", "arrow": "Line", "textbox": "FreeText",
        "note": "Text", "polygon": "Polygon", "signature": "Stamp", "stamp": "Stamp", "link": "Link",
    ]

    public static var names: [String] { subtypes.map(\.key) }

    /// The PDF subtype an op name means, or the name itself when it is a subtype already.
    public static func subtype(_ kind: String) -> String {
        subtypes.first { $0.key == kind.lowercased() }?.value ?? kind
    }

    static func known(_ kind: String) -> Bool {
        subtypes.contains { $0.key == kind.lowercased() || $0.value == kind }
    }
}

extension TableReader {
    /// A number in `range` (integers count), or nil with the place logged.
    mutating func number(_ key: String, in range: ClosedRange<Double>, what: String) -> Double? {
        guard let node = node(key) else { return nil }
        let value: Double
        switch node.value {
        case .integer(let number): value = Double(number)
        case .float(let number): value = number
        default:
            complain(key, node, expected: what)
            return nil
        }
        guard value.isFinite, range.contains(value) else {
            log.add("\(qualified(key)) must be \(what) from \(Self.format(range.lowerBound)) to "
                    + "\(Self.format(range.upperBound)), not \(Self.format(value))", at: node.location)
            return nil
        }
        return value
    }

    mutating func fraction(_ key: String) -> Double? { number(key, in: 0.01...1, what: "an opacity") }

    /// A stroke width in points.
    mutating func width(_ key: String) -> Double? { number(key, in: 0.1...100, what: "a width in points") }

    /// `"#RRGGBB"`, `"#RGB"`, a colour name or `[r, g, b]` from 0 to 1; `"none"` where allowed is
    /// `.some(nil)`. nil when wrong.
    mutating func color(_ key: String, allowNone: Bool) -> RGBColor?? {
        guard let node = node(key) else { return nil }
        let names = RGBColor.named.map(\.key)
        let expected = "a colour: \"#RRGGBB\", [r, g, b] from 0 to 1, or one of " + names.joined(separator: ", ")
            + (allowNone ? ", \"none\"" : "")
        switch node.value {
        case .string("none") where allowNone:
            return .some(nil)
        case .string(let text):
            if let named = RGBColor.named.first(where: { $0.key == text.lowercased() }) { return .some(named.value) }
            if let parsed = Self.hexColor(text) { return .some(parsed) }
            log.add("\(qualified(key)) must be \(expected), not \"\(text)\"" + Suggestion.hint(for: text, among: names),
                    at: node.location)
            return nil
        case .array(let items) where items.count == 3:
            let channels = items.compactMap { item -> Double? in
                switch item.value {
                case .integer(let number) where (0...1).contains(number): return Double(number)
                case .float(let number) where (0...1).contains(number): return number
                default: return nil
                }
            }
            if channels.count == 3 { return .some(RGBColor(channels[0], channels[1], channels[2])) }
        default:
            break
        }
        complain(key, node, expected: expected)
        return nil
    }

    static func hexColor(_ text: String) -> RGBColor? {
        guard text.hasPrefix("#") else { return nil }
        var digits = Array(text.dropFirst())
        if digits.count == 3 { digits = digits.flatMap { [$0, $0] } }
        guard digits.count == 6 else { return nil }
        let values = stride(from: 0, to: 6, by: 2).compactMap { UInt8(String(digits[$0...$0 + 1]), radix: 16) }
        guard values.count == 3 else { return nil }
        return RGBColor(Double(values[0]) / 255, Double(values[1]) / 255, Double(values[2]) / 255)
    }

    /// `[x, y]` in the script's units.
    mutating func point(_ key: String, units: LengthUnit) -> ScriptPoint? {
        guard let node = node(key) else { return nil }
        return pointValue(node, name: qualified(key), units: units)
    }

    func pointValue(_ node: TOMLNode, name: String, units: LengthUnit) -> ScriptPoint? {
        coordinates(node, name: name, shape: "[x, y]", count: 2, units: units).map { ScriptPoint($0[0], $0[1]) }
    }

    /// `[x0, y0, x1, y1]` with x0 < x1 and y0 < y1, in the script's units.
    mutating func box(_ key: String, units: LengthUnit) -> ScriptBox? {
        guard let node = node(key) else { return nil }
        return boxValue(node, name: qualified(key), units: units)
    }

    func boxValue(_ node: TOMLNode, name: String, units: LengthUnit) -> ScriptBox? {
        guard let values = coordinates(node, name: name, shape: "[x0, y0, x1, y1]", count: 4, units: units) else { return nil }
        let box = ScriptBox(values[0], values[1], values[2], values[3])
        guard let problem = box.areaProblems(Self.format).first else { return box }
        log.add("\(name): \(problem)", at: node.location)
        return nil
    }

    /// An array of `count` numbers, each a length a page can hold; nil (logged) otherwise.
    private func coordinates(_ node: TOMLNode, name: String, shape: String, count: Int, units: LengthUnit) -> [Double]? {
        guard case .array(let items) = node.value, items.count == count else {
            log.add("\(name) must be \(shape), \(count) numbers in \(units.rawValue), not \(Self.describe(node.value))",
                    at: node.location)
            return nil
        }
        var values: [Double] = []
        for item in items {
            let value: Double
            switch item.value {
            case .integer(let number): value = Double(number)
            case .float(let number): value = number
            default:
                log.add("\(name) must be \(shape), numbers only, not \(Self.describe(item.value)) inside", at: item.location)
                return nil
            }
            if let problem = Self.lengthProblem(value, units: units, positive: false) {
                log.add("\(name): \(problem)", at: item.location)
                return nil
            }
            values.append(value)
        }
        return values
    }

    /// `[[x0, y0, x1, y1], …]`, at least one.
    mutating func boxes(_ key: String, units: LengthUnit) -> [ScriptBox]? {
        guard let node = node(key) else { return nil }
        guard case .array(let items) = node.value, !items.isEmpty else {
            complain(key, node, expected: "a list of boxes, each [x0, y0, x1, y1]")
            return nil
        }
        let boxes = items.enumerated().compactMap { boxValue($1, name: "\(qualified(key))[\($0 + 1)]", units: units) }
        return boxes.count == items.count ? boxes : nil
    }

    mutating func boundedText(_ key: String, max: Int) -> String? {
        guard let written = string(key) else { return nil }
        guard !written.value.allSatisfy(\.isWhitespace) else {
            log.add("\(qualified(key)) must not be empty", at: written.location)
            return nil
        }
        guard written.value.count <= max else {
            log.add("\(qualified(key)) has \(written.value.count) characters, more than the limit of \(max)", at: written.location)
            return nil
        }
        return written.value
    }

    /// A saved signature's name: letters, digits, '-', '_' and spaces, so it can only name a file
    /// inside the signatures folder.
    mutating func signatureName(_ key: String) -> String? {
        guard let written = string(key) else { return nil }
        let allowed = written.value.unicodeScalars.allSatisfy {
            $0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "-" || $0 == "_" || $0 == " "
        }
        guard !written.value.isEmpty, written.value.count <= 100, allowed, !written.value.hasPrefix(" ") else {
            log.add("\(qualified(key)) must be a signature's name (letters, digits, '-', '_', spaces; no path or "
                    + "extension), not \"\(written.value)\"", at: written.location)
            return nil
        }
        return written.value
    }
}
