/// Reading a page list as a script writes it, and checking it against a document's page count.
extension PageSelection {
    /// Why a page list was refused, and at which character (0-based, in Unicode scalars), so a message
    /// can point into the string as the config's path templates do.
    public struct Problem: Error, Equatable, Sendable {
        public var offset: Int
        public var message: String

        public init(offset: Int, message: String) {
            self.offset = offset
            self.message = message
        }
    }

    /// Why a selection does not fit a document: `page 12 of a 10-page document`.
    public struct ResolveError: Error, Equatable, Sendable, CustomStringConvertible {
        public var message: String

        public init(_ message: String) { self.message = message }

        public var description: String { message }
    }

    /// The highest page number a script may write; far beyond any real document, low enough that no
    /// arithmetic on page numbers can overflow.
    public static let maxPage = 1_000_000

    /// Every page: `1-last`. On an empty document it selects nothing (see `resolve`).
    public static let all = PageSelection(parts: [.range(.page(1), .last)], text: "all")

    /// The words a list may hold besides numbers.
    static let words = ["all", "odd", "even", "last"]

    /// `"1-3, 5, last"`, `"2-last"`, `"all"`, `"odd"`, `"even"`: items separated by commas, with
    /// spaces and tabs around them allowed. Ranges run forwards and may end at `last`.
    public init(parsing text: String) throws(Problem) {
        let scalars = Array(text.unicodeScalars)
        guard scalars.contains(where: { !Self.isBlank($0) }) else {
            throw Problem(offset: 0, message: "the page list is empty")
        }
        var parts: [Part] = []
        var start = 0
        while start <= scalars.count {
            let comma = scalars[start...].firstIndex(of: ",") ?? scalars.count
            let (from, to) = Self.trimmed(scalars, start..<comma)
            guard from < to else {
                let message = comma == scalars.count ? "nothing follows the last ','"
                    : start == 0 ? "nothing comes before the first ','" : "nothing stands between two commas"
                throw Problem(offset: comma == scalars.count ? start - 1 : comma, message: message)
            }
            parts.append(try Self.item(scalars, from..<to))
            start = comma + 1
        }
        self.init(parts: parts, text: text)
    }

    /// Page numbers written as integers (`pages = 3`, `pages = [1, 4]`), already checked to be from 1
    /// to `maxPage`; its text reads as the same list written as a string.
    public init(pages: [Int]) {
        self.init(parts: pages.map { .single(.page($0)) }, text: pages.map(String.init).joined(separator: ","))
    }

    /// One item: a word, a page, or `first-last`.
    private static func item(_ scalars: [Unicode.Scalar], _ range: Range<Int>) throws(Problem) -> Part {
        let written = String(String.UnicodeScalarView(scalars[range]))
        switch written {
        case "all": return .range(.page(1), .last)
        case "odd": return .odd
        case "even": return .even
        default: break
        }
        guard let dash = scalars[range].firstIndex(of: "-") else {
            return .single(try bound(scalars, range))
        }
        let (firstFrom, firstTo) = trimmed(scalars, range.lowerBound..<dash)
        let (lastFrom, lastTo) = trimmed(scalars, (dash + 1)..<range.upperBound)
        guard firstFrom < firstTo else {
            throw Problem(offset: dash, message: "a range needs a first page before its '-', as in \"1-3\"")
        }
        guard lastFrom < lastTo else {
            let first = String(String.UnicodeScalarView(scalars[firstFrom..<firstTo]))
            throw Problem(offset: dash,
                          message: "the range \"\(first)-\" has no end (write \"\(first)-last\" for every page from \(first) on)")
        }
        let first = try bound(scalars, firstFrom..<firstTo)
        let last = try bound(scalars, lastFrom..<lastTo)
        switch (first, last) {
        case (.last, _):
            throw Problem(offset: firstFrom, message: "a range cannot start at \"last\"; ranges run forwards, as in \"3-last\"")
        case (.page(let a), .page(let b)) where a > b:
            throw Problem(offset: range.lowerBound, message: "the range \(a)-\(b) runs backwards (write \(b)-\(a))")
        default:
            return .range(first, last)
        }
    }

    /// A page number from 1 to `maxPage`, or `last`.
    private static func bound(_ scalars: [Unicode.Scalar], _ range: Range<Int>) throws(Problem) -> Bound {
        let written = String(String.UnicodeScalarView(scalars[range]))
        if written == "last" { return .last }
        if written.unicodeScalars.allSatisfy({ ("0"..."9").contains($0) }) {
            guard let number = Int(written), number <= maxPage else {
                throw Problem(offset: range.lowerBound, message: "page \(written) is beyond the limit of \(maxPage) pages")
            }
            guard number >= 1 else {
                throw Problem(offset: range.lowerBound, message: "pages are numbered from 1, so there is no page \(written)")
            }
            return .page(number)
        }
        if words.contains(written) {
            throw Problem(offset: range.lowerBound, message: "\"\(written)\" cannot be one end of a range")
        }
        throw Problem(offset: range.lowerBound,
                      message: "\"\(written)\" is not a page number, a range such as \"2-5\" or one of all, odd, even, last"
                        + Suggestion.hint(for: written, among: words))
    }

    private static func isBlank(_ scalar: Unicode.Scalar) -> Bool { scalar == " " || scalar == "\t" }

    /// `range` without the blanks at either end.
    private static func trimmed(_ scalars: [Unicode.Scalar], _ range: Range<Int>) -> (Int, Int) {
        var (from, to) = (range.lowerBound, range.upperBound)
        while from < to, isBlank(scalars[from]) { from += 1 }
        while to > from, isBlank(scalars[to - 1]) { to -= 1 }
        return (from, to)
    }
}

extension PageSelection {
    /// The selected pages of a document with `pageCount` pages, as 0-based indexes in document order,
    /// each once. A page past the end is an error, with one exception: a range ending at `last` that
    /// starts just after the last page selects nothing, so `all` (which is `1-last`) is empty on an
    /// empty document, and `2-last` ("every page after the first") is empty on a 1-page one.
    public func resolve(pageCount: Int) throws(ResolveError) -> [Int] {
        let count = max(0, pageCount)
        let document = count == 0 ? "an empty document" : "a \(count)-page document"
        func number(_ bound: Bound) throws(ResolveError) -> Int {
            switch bound {
            case .page(let page) where page < 1:
                throw ResolveError("pages are numbered from 1, so there is no page \(page)")
            case .page(let page) where page > count:
                throw ResolveError("page \(page) of \(document)")
            case .page(let page):
                return page
            case .last where count == 0:
                throw ResolveError("there is no last page in an empty document")
            case .last:
                return count
            }
        }
        var chosen = [Bool](repeating: false, count: count)
        for part in parts {
            switch part {
            case .single(let bound):
                chosen[try number(bound) - 1] = true
            case .range(.page(let first), .last) where first == count + 1:
                continue
            case .range(let from, let to):
                let (first, last) = (try number(from), try number(to))
                guard first <= last else {
                    throw ResolveError("the range \(Self.written(from))-\(Self.written(to)) runs backwards in \(document)")
                }
                for page in first...last { chosen[page - 1] = true }
            case .odd:
                for index in stride(from: 0, to: count, by: 2) { chosen[index] = true }
            case .even:
                for index in stride(from: 1, to: count, by: 2) { chosen[index] = true }
            }
        }
        return chosen.indices.filter { chosen[$0] }
    }

    private static func written(_ bound: Bound) -> String {
        switch bound {
        case .page(let page): String(page)
        case .last: "last"
        }
    }
}
