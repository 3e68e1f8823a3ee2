/// File names as the file system takes them: at most 255 bytes a name (NAME_MAX on Linux). A longer
/// one is shortened the way people expect: the stem is cut at a character boundary, and the extension
/// and any uniqueness suffix ("-2") are kept.
public enum FileName {
    public static let maximumBytes = 255

    /// `name` with `suffix` before its extension, the stem cut so the whole fits in 255 bytes, less
    /// `reserve` (room for a note's suffix added to the name later).
    public static func fitted(_ name: String, suffix: String = "", reserve: Int = 0) -> String {
        let (stem, ext) = split(name)
        let room = maximumBytes - reserve - suffix.utf8.count - ext.utf8.count
        guard stem.utf8.count > room else { return stem + suffix + ext }
        var cut = ""
        for character in stem {
            guard cut.utf8.count + String(character).utf8.count <= max(room, 1) else { break }
            cut.append(character)
        }
        return cut + suffix + ext
    }

    /// `b.jpg`, 2 → `b-2.jpg`, within 255 bytes.
    public static func numbered(_ name: String, _ number: Int, reserve: Int = 0) -> String {
        fitted(name, suffix: "-\(number)", reserve: reserve)
    }

    /// The names to try, in order, for a new file that must not replace one already there: `name`
    /// fitted, then `NAME-2`, `NAME-3`, ... Each place that makes a new name (a move that never
    /// replaces, the quarantine, an upload) tries them with its own atomic step (a rename without
    /// replacing, an exclusive create) and takes the first that succeeds.
    public static func candidates(_ name: String, reserve: Int = 0) -> some Sequence<String> {
        (1...).lazy.map { $0 == 1 ? fitted(name, reserve: reserve) : numbered(name, $0, reserve: reserve) }
    }

    /// A hidden temporary name beside `name`: `.NAME` then `tag`, the name cut so the whole fits.
    public static func temporary(for name: String, tag: String) -> String {
        "." + fitted(name, reserve: 1 + tag.utf8.count) + tag
    }

    /// Every component of a relative path fitted.
    public static func fittedPath(_ path: String) -> String {
        path.split(separator: "/", omittingEmptySubsequences: false).map { fitted(String($0)) }.joined(separator: "/")
    }

    /// `a.tar.pdf` → (`a.tar`, `.pdf`); a name without a dot, or with only a leading one, has none.
    /// An "extension" longer than 16 bytes is none either (a long name with a dot in it).
    static func split(_ name: String) -> (stem: String, ext: String) {
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return (name, "") }
        let ext = String(name[dot...])
        guard ext.utf8.count <= 16, !ext.contains(" ") else { return (name, "") }
        return (String(name[..<dot]), ext)
    }
}
