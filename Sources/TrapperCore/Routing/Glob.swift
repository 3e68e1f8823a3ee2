/// A shell-style pattern: `*` (any run of characters except `/`), `**` (any run, `/` included),
/// `?`, `[abc]`, `[a-z]`, `[!abc]`, and `\` to take the next character literally. Matching ignores
/// case, since phones and scanners write `IMG_0001.JPG` as readily as `scan.jpg`.
public struct Glob: Sendable, Equatable, CustomStringConvertible {
    public let pattern: String
    private let scalars: [Character]

    public init(_ pattern: String) {
        self.pattern = pattern
        self.scalars = Array(pattern.lowercased())
    }

    public var description: String { pattern }

    /// A pattern with a `/` is matched against the path relative to the inbox; one without, against
    /// the file's name alone.
    public func matches(relativePath: String) -> Bool {
        let subject = pattern.contains("/") ? relativePath : String(relativePath.split(separator: "/").last ?? "")
        var failed = Set<Int>()
        return matches(Array(subject.lowercased()), 0, 0, &failed)
    }

    public func matches(name: String) -> Bool {
        var failed = Set<Int>()
        return matches(Array(name.lowercased()), 0, 0, &failed)
    }

    /// `failed` holds the (text, pattern) positions already known not to match, so each is tried
    /// once: without it, every `*` retries every split the stars before it tried, which takes time
    /// exponential in the number of stars.
    private func matches(_ text: [Character], _ t: Int, _ p: Int, _ failed: inout Set<Int>) -> Bool {
        var t = t, p = p
        while p < scalars.count {
            switch scalars[p] {
            case "*":
                let crossesFolders = p + 1 < scalars.count && scalars[p + 1] == "*"
                let next = crossesFolders ? p + 2 : p + 1
                var end = t
                while true {
                    let state = end * (scalars.count + 1) + next
                    if !failed.contains(state) {
                        if matches(text, end, next, &failed) { return true }
                        failed.insert(state)
                    }
                    guard end < text.count, crossesFolders || text[end] != "/" else { return false }
                    end += 1
                }
            case "?":
                guard t < text.count, text[t] != "/" else { return false }
                t += 1; p += 1
            case "[":
                guard t < text.count, let (matched, after) = matchClass(text[t], from: p + 1) else {
                    // An unclosed `[` is a literal bracket.
                    guard t < text.count, text[t] == "[" else { return false }
                    t += 1; p += 1
                    continue
                }
                guard matched else { return false }
                t += 1; p = after
            case "\\" where p + 1 < scalars.count:
                guard t < text.count, text[t] == scalars[p + 1] else { return false }
                t += 1; p += 2
            default:
                guard t < text.count, text[t] == scalars[p] else { return false }
                t += 1; p += 1
            }
        }
        return t == text.count
    }

    /// Whether `character` is in the class starting at `start` (just past `[`), and where the class ends.
    private func matchClass(_ character: Character, from start: Int) -> (Bool, Int)? {
        var p = start
        let negated = p < scalars.count && (scalars[p] == "!" || scalars[p] == "^")
        if negated { p += 1 }
        var matched = false, first = true
        while p < scalars.count, scalars[p] != "]" || first {
            first = false
            if p + 2 < scalars.count, scalars[p + 1] == "-", scalars[p + 2] != "]" {
                if scalars[p] <= character && character <= scalars[p + 2] { matched = true }
                p += 3
            } else {
                if scalars[p] == character { matched = true }
                p += 1
            }
        }
        guard p < scalars.count else { return nil }
        return (matched != negated, p + 1)
    }
}
