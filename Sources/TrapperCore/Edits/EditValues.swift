/// The typed values of edit scripts, read the way `TableReader` reads the config's: a wrong type or a
/// bad value is logged where it was written and reads as nil.
extension TableReader {
    /// The place a required key is missing from: `edit[2] (delete)`, or `the script`.
    func missing(_ key: String, in place: String) {
        log.add("\(place) is missing the required key \"\(key)\"", at: table.location)
    }

    /// An integer in `range`; `what` names it in the message ("a page number").
    mutating func integer(_ key: String, in range: ClosedRange<Int>, what: String) -> Int? {
        guard let node = node(key) else { return nil }
        guard case .integer(let value) = node.value, value >= range.lowerBound, value <= range.upperBound else {
            complain(key, node, expected: "\(what) from \(range.lowerBound) to \(range.upperBound)")
            return nil
        }
        return Int(value)
    }

    /// A page list: a string (`"1-3,5,last"`), a page number, or an array of page numbers.
    /// Absent, it is `all` unless it is required.
    mutating func pages(required: Bool, in place: String) -> PageSelection? {
        guard let node = node("pages") else {
            if required { missing("pages", in: place) }
            return required ? nil : .all
        }
        switch node.value {
        case .string(let text):
            do {
                return try PageSelection(parsing: text)
            } catch {
                // Point at the character inside the string: one past the opening quote.
                let at = SourceLocation(line: node.location.line, column: node.location.column + 1 + error.offset)
                log.add("\(qualified("pages")): \(error.message)", at: at)
                return nil
            }
        case .integer:
            return pageNumbers([node]).map(PageSelection.init(pages:))
        case .array(let items) where !items.isEmpty:
            return pageNumbers(items).map(PageSelection.init(pages:))
        case .array:
            log.add("\(qualified("pages")): the page list is empty", at: node.location)
            return nil
        default:
            complain("pages", node, expected: "a page list such as \"1-3,5,last\", a page number or an array of page numbers")
            return nil
        }
    }

    private func pageNumbers(_ nodes: [TOMLNode]) -> [Int]? {
        var pages: [Int] = []
        for node in nodes {
            switch node.value {
            case .integer(let page) where page < 1:
                log.add("\(qualified("pages")): pages are numbered from 1, so there is no page \(page)", at: node.location)
            case .integer(let page) where page > PageSelection.maxPage:
                log.add("\(qualified("pages")): page \(page) is beyond the limit of \(PageSelection.maxPage) pages",
                        at: node.location)
            case .integer(let page):
                pages.append(Int(page))
            default:
                complain("pages", node, expected: "a page number")
            }
        }
        return pages.count == nodes.count ? pages : nil
    }

    /// An array of exactly `names.count` lengths in `units`, each finite and within what a PDF page
    /// can span; `positive` also requires each to be more than 0.
    mutating func lengths(_ key: String, _ names: [String], units: LengthUnit, positive: Bool) -> [Double]? {
        guard let node = node(key) else { return nil }
        let shape = "[" + names.joined(separator: ", ") + "]"
        guard case .array(let items) = node.value, items.count == names.count else {
            complain(key, node, expected: "\(shape), \(names.count) numbers in \(units.rawValue)")
            return nil
        }
        var values: [Double] = []
        for (index, item) in items.enumerated() {
            let name = "\(qualified(key))[\(index + 1)]"
            let value: Double
            switch item.value {
            case .integer(let number): value = Double(number)
            case .float(let number): value = number
            default:
                log.add("\(name) (\(names[index])) must be a number, not \(Self.describe(item.value))", at: item.location)
                continue
            }
            if let problem = Self.lengthProblem(value, units: units, positive: positive) {
                log.add("\(name) (\(names[index])) \(problem)", at: item.location)
                continue
            }
            values.append(value)
        }
        return values.count == names.count ? values : nil
    }

    /// PDF's largest page is 14,400 points (200 inches) a side; any length beyond it is a mistake.
    static let maxLengthPoints = 14_400.0

    static func lengthProblem(_ value: Double, units: LengthUnit, positive: Bool) -> String? {
        guard value.isFinite else { return "must be a finite number, not \(value)" }
        if positive, value <= 0 { return "must be more than 0, not \(format(value))" }
        let points = value * units.points
        guard abs(points) <= maxLengthPoints else {
            let written = units == .pt ? "" : " (\(format(value)) \(units.rawValue))"
            return "is \(format(points)) pt\(written), beyond the \(format(maxLengthPoints)) pt (200 in) a PDF page can span"
        }
        return nil
    }

    /// A number as a person would write it: `21600`, `850.39`.
    static func format(_ value: Double) -> String {
        let rounded = (value * 100).rounded() / 100
        return rounded == rounded.rounded() && abs(rounded) < 1e15 ? String(Int(rounded)) : String(rounded)
    }
}
