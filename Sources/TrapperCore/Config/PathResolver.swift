/// Turns the paths written in a config into absolute, normalised ones: `~/x` is below `$HOME`; a
/// relative path is below the config file's folder (so a config and its folders can move together).
struct PathResolver {
    let base: String
    let home: String?

    func resolve(_ written: String) -> String? {
        if written == "~" || written.hasPrefix("~/") {
            guard let home else { return nil }
            return Self.normalize(home + written.dropFirst())
        }
        return Self.normalize(written.hasPrefix("/") ? written : base + "/" + written)
    }

    /// Removes `.`, empty parts and `..` (lexically: the path need not exist yet).
    static func normalize(_ path: String) -> String {
        var parts: [Substring] = []
        for part in path.split(separator: "/") {
            switch part {
            case ".": continue
            case "..": _ = parts.popLast()
            default: parts.append(part)
            }
        }
        return "/" + parts.joined(separator: "/")
    }

    static func parent(of path: String) -> String {
        let parts = path.split(separator: "/").dropLast()
        return "/" + parts.joined(separator: "/")
    }

    /// Whether `inner` is `outer` or below it.
    static func isWithin(_ inner: String, _ outer: String) -> Bool {
        inner == outer || outer == "/" || inner.hasPrefix(outer + "/")
    }
}
