import Foundation

/// What a search asks: the words in FTS5's query syntax (words, "phrases", prefix*, AND, OR, NOT,
/// NEAR, as SQLite documents it), where to look, and how many hits. A query FTS5 cannot parse (an
/// apostrophe, a lone quote, a colon) is searched as the words written, each a phrase.
public struct SearchQuery: Sendable, Equatable {
    public struct Refusal: Error, CustomStringConvertible, Equatable {
        public var description: String
    }

    /// Longer queries are refused: nobody types them, and FTS5 would parse them for nothing.
    public static let maxBytes = 1024

    public var text: String
    /// Only this document (its path below the library's root), for a find within it.
    public var document: String?
    /// Only documents below this folder of the library.
    public var folder: String?
    /// Only documents with a revision on or after `after`, and begun before `before`.
    public var after: Date?
    public var before: Date?
    public var limit: Int
    public var offset: Int
    /// How many words a snippet shows around the words found.
    public var snippetWords = 12

    public init(_ text: String, document: String? = nil, folder: String? = nil, after: Date? = nil, before: Date? = nil,
                limit: Int = 50, offset: Int = 0) throws(Refusal) {
        if text.utf8.contains(0) { throw Refusal(description: "the query holds a NUL byte") }
        if text.utf8.count > Self.maxBytes {
            throw Refusal(description: "the query is \(text.utf8.count) bytes long; at most \(Self.maxBytes)")
        }
        if text.allSatisfy({ $0.isWhitespace }) { throw Refusal(description: "the query is empty") }
        if let after, let before, after >= before { throw Refusal(description: "--after must come before --before") }
        if let short = Self.shortPrefix(text) {
            throw Refusal(description: "\(short): a prefix needs at least 2 letters (every word that begins with one letter is most of the library)")
        }
        self.text = text
        self.document = document
        self.folder = folder.map { $0.hasSuffix("/") ? String($0.dropLast()) : $0 }.flatMap { $0.isEmpty ? nil : $0 }
        self.after = after
        self.before = before
        self.limit = min(max(limit, 1), 1000)
        self.offset = max(offset, 0)
    }

    /// Each word as written, a phrase of its own (`"don't"` is the phrase don t); nil when there
    /// is no word at all.
    var literalMatch: String? {
        let words = text.split(whereSeparator: \.isWhitespace)
            .filter { $0.contains { $0.isLetter || $0.isNumber } }
            .map { "\"" + $0.replacingOccurrences(of: "\"", with: "\"\"") + "\"" }
        return words.isEmpty ? nil : words.joined(separator: " ")
    }

    /// A prefix of one letter (`b*`), which FTS5 would answer by merging the lists of every word
    /// that begins with it: seconds on a large library. Prefixes of 2 and 3 letters have indexes.
    static func shortPrefix(_ text: String) -> String? {
        let scalars = Array(text.unicodeScalars)
        for (index, scalar) in scalars.enumerated() where scalar == "*" && index > 0 {
            let letter = scalars[index - 1]
            guard letter.properties.isAlphabetic || ("0"..."9").contains(letter) else { continue }
            if index == 1 || !(scalars[index - 2].properties.isAlphabetic || ("0"..."9").contains(scalars[index - 2])) {
                return String(String.UnicodeScalarView([letter, scalar]))
            }
        }
        return nil
    }

    /// Whether SQLite refused the query as FTS5's syntax (and not for another reason).
    static func isSyntaxError(_ message: String) -> Bool {
        ["fts5:", "unterminated string", "unknown special query", "no such column"].contains {
            message.contains($0)
        }
    }

    /// A day as `YYYY-MM-DD` (its start, in the local time zone) or a moment in ISO 8601.
    public static func date(_ text: String) -> Date? {
        if let moment = ISO8601DateFormatter().date(from: text) { return moment }
        let parts = text.split(separator: "-").compactMap { Int($0) }
        guard parts.count == 3, text.count == 10 else { return nil }
        var components = DateComponents()
        (components.year, components.month, components.day) = (parts[0], parts[1], parts[2])
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = .current
        guard let day = calendar.date(from: components), calendar.component(.day, from: day) == parts[2] else { return nil }
        return day
    }
}

/// A page that matched.
public struct SearchHit: Sendable, Equatable {
    /// Around each word found in a snippet (private-use characters, never in indexed text).
    public static let markStart: Unicode.Scalar = "\u{E000}"
    public static let markEnd: Unicode.Scalar = "\u{E001}"

    /// The document's path below the library's root.
    public var path: String
    /// The page, from 1, and how many the document has.
    public var page: Int
    public var pages: Int
    public var modified: Date
    /// Words around what was found, each found word between `markStart` and `markEnd`.
    public var snippet: String
    /// bm25: lower is better.
    public var rank: Double

    /// The snippet as pieces, each either found (`true`) or around it.
    public var pieces: [(text: String, found: Bool)] {
        var pieces: [(String, Bool)] = []
        var current = ""
        var found = false
        for scalar in snippet.unicodeScalars {
            if scalar == Self.markStart || scalar == Self.markEnd {
                if !current.isEmpty { pieces.append((current, found)) }
                current = ""
                found = scalar == Self.markStart
            } else {
                current.unicodeScalars.append(scalar)
            }
        }
        if !current.isEmpty { pieces.append((current, found)) }
        return pieces
    }
}

/// The hits of a search, and whether there are more after them.
public struct SearchResults: Sendable, Equatable {
    public var hits: [SearchHit]
    public var more: Bool
    /// The query was not FTS5's syntax, and its words were searched as written.
    public var literal: Bool
    /// More pages than this held the words: the hits are the best of this many of the newest.
    public var window: Int?

    public init(hits: [SearchHit], more: Bool, literal: Bool, window: Int? = nil) {
        self.hits = hits
        self.more = more
        self.literal = literal
        self.window = window
    }
}
