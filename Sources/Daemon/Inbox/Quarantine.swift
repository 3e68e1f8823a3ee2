import Foundation
import Glibc
import TrapperCore

/// Where inputs that cannot be ingested go: the file itself, untouched, and beside it
/// `NAME.why.txt` saying why in one line, which rule was meant to take it, and when. A symlink is
/// never moved there (a later move into it would follow): it is removed, and only its note stays,
/// saying what it pointed at.
public struct Quarantine: Sendable {
    public let folder: String
    let folders: any CaptureFileSystem
    /// Told of each input put here (`quarantined`, or `incomplete` for an upload given up on).
    let outbox: EventOutbox?

    public init(folder: String, folders: any CaptureFileSystem, outbox: EventOutbox? = nil) {
        self.folder = folder
        self.folders = folders
        self.outbox = outbox
    }

    static let noteSuffix = ".why.txt"

    /// Moves `path` (keeping its path below the inbox, `relativePath`) into quarantine with its note.
    /// Returns where the note is.
    @discardableResult
    public func put(_ path: String, relativePath: String, reason: String, rule: String?, date: Date = Date(),
                    event: OutboundEvent.Kind = .quarantined) throws(Durable.Failure) -> String
    {
        var reason = reason
        // Which file this was, told from a later one of the same name (taken before it moves).
        let identity = folders.status(path).map { "\($0.st_ino) \($0.st_size) \($0.st_ctim.tv_sec).\($0.st_ctim.tv_nsec)" } ?? ""
        let placed: String
        if let status = folders.status(path), status.st_mode & S_IFMT == S_IFLNK {
            let pointed = folders.linkTarget(path) ?? "?"
            try folders.remove(path)
            reason += "; the link (to \(pointed)) was removed, not kept"
            placed = try freeName(folder + "/" + Self.folded(relativePath))
        } else {
            placed = try move(path, relativePath)
        }
        let note = """
            reason: \(reason.oneLine)
            rule: \((rule ?? "none").oneLine)
            time: \(ISO8601DateFormatter().string(from: date))
            from: \(relativePath.oneLine)

            """
        let notePath = placed + Self.noteSuffix
        try folders.replace(notePath, with: Data(note.utf8))
        // Once the input and its note are safe: the event says where they are.
        if let outbox {
            let event = OutboundEvent.refused(event, file: relativePath, reason: reason.oneLine, rule: rule, quarantinedAs: placed,
                                              identity: identity, time: date, host: outbox.host)
            _ = outbox.emitOrSay(event)
        }
        return notePath
    }

    /// Into the quarantine under its path below the inbox, its name leaving room for the note's
    /// suffix; where a folder on that path leads outside the quarantine (a link placed there), at
    /// the top, the path folded into one name.
    private func move(_ path: String, _ relativePath: String) throws(Durable.Failure) -> String {
        let room = Self.noteSuffix.utf8.count
        do {
            return try folders.move(path, to: folder + "/" + relativePath, reserve: room)
        } catch where error.outside != nil || error.code == ENOTDIR {
            return try folders.move(path, to: folder + "/" + Self.folded(relativePath), reserve: room)
        }
    }

    /// A name for a removed link's note that no file in the quarantine has.
    private func freeName(_ wanted: String) throws(Durable.Failure) -> String {
        let folderPath = (wanted as NSString).deletingLastPathComponent
        let name = (wanted as NSString).lastPathComponent
        var candidate = FileName.fitted(name, reserve: Self.noteSuffix.utf8.count)
        var number = 2
        while folders.exists(folderPath + "/" + candidate) || folders.exists(folderPath + "/" + candidate + Self.noteSuffix) {
            candidate = FileName.numbered(name, number, reserve: Self.noteSuffix.utf8.count)
            number += 1
        }
        return folderPath + "/" + candidate
    }

    /// `a/b/c.jpg` → `a%2Fb%2Fc.jpg`.
    static func folded(_ relativePath: String) -> String {
        relativePath.replacingOccurrences(of: "%", with: "%25").replacingOccurrences(of: "/", with: "%2F")
    }
}
