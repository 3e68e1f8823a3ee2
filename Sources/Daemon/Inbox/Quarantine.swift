import Foundation

/// Where inputs that cannot be ingested go: the file itself, untouched, and beside it
/// `NAME.why.txt` saying why in one line, which rule was meant to take it, and when.
public struct Quarantine: Sendable {
    public let folder: String

    public init(folder: String) { self.folder = folder }

    /// Moves `path` (keeping its path below the inbox, `relativePath`) into quarantine with its note.
    @discardableResult
    public func put(_ path: String, relativePath: String, reason: String, rule: String?, date: Date = Date())
        throws(Durable.Failure) -> String
    {
        let placed = try FolderMoves.move(path, to: folder + "/" + relativePath)
        let note = """
            reason: \(reason.oneLine)
            rule: \((rule ?? "none").oneLine)
            time: \(ISO8601DateFormatter().string(from: date))
            from: \(relativePath.oneLine)

            """
        try Durable.replace(placed + ".why.txt", with: Data(note.utf8))
        return placed
    }
}
