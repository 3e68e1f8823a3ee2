import Foundation
import Glibc
import System
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
        func note(_ reason: String) -> Data {
            Data("""
                reason: \(reason.oneLine)
                rule: \((rule ?? "none").oneLine)
                time: \(ISO8601DateFormatter().string(from: date))
                from: \(relativePath.oneLine)

                """.utf8)
        }
        // Queued once the note is durable and before the input leaves its claim, once by its key:
        // a kill between leaves the input in its claim, whose retry queues the same event again,
        // not a second one, and a quarantine is never left unannounced.
        func announce(_ placed: String) {
            guard let outbox else { return }
            _ = outbox.emitOrSay(OutboundEvent.refused(event, file: relativePath, reason: reason.oneLine, rule: rule,
                                                       quarantinedAs: placed, identity: identity, time: date, host: outbox.host),
                                 once: true)
        }
        let placed: String
        if let status = folders.status(path), status.st_mode & S_IFMT == S_IFLNK {
            let pointed = folders.linkTarget(path) ?? "?"
            reason += "; the link (to \(pointed)) was removed, not kept"
            placed = try freeName(folder + "/" + Self.folded(relativePath), from: relativePath)
            try folders.replace(placed + Self.noteSuffix, with: note(reason))
            announce(placed)
            try folders.remove(path)
        } else {
            placed = try place(path, relativePath, note: note(reason), announce: announce)
        }
        return placed + Self.noteSuffix
    }

    /// Into the quarantine under its path below the inbox, its name leaving room for the note's
    /// suffix; where a folder on that path leads outside the quarantine (a link placed there), at
    /// the top, the path folded into one name.
    private func place(_ path: String, _ relativePath: String, note: Data, announce: (String) -> Void) throws(Durable.Failure) -> String {
        do {
            return try place(path, at: folder + "/" + relativePath, from: relativePath, note: note, announce: announce)
        } catch where error.outside != nil || error.code == ENOTDIR {
            return try place(path, at: folder + "/" + Self.folded(relativePath), from: relativePath, note: note, announce: announce)
        }
    }

    /// The note goes first, durable, under the name the file is to take; then the file. A power cut
    /// between leaves the file in its claim (the daemon takes it again) and a note without its file,
    /// whose name the next try takes over; the other way round it left a file in the quarantine
    /// that nothing explained.
    private func place(_ path: String, at wanted: String, from relativePath: String, note: Data,
                       announce: (String) -> Void) throws(Durable.Failure) -> String {
        let chosen = try freeName(wanted, from: relativePath)
        try folders.replace(chosen + Self.noteSuffix, with: note)
        announce(chosen)
        CrashPoint.quarantineAnnounced.hit()
        let placed = try folders.move(path, to: chosen, reserve: Self.noteSuffix.utf8.count)
        if placed != chosen {  // another file took the name meanwhile: the note follows this one
            try folders.replace(placed + Self.noteSuffix, with: note)
            try folders.remove(chosen + Self.noteSuffix)
        }
        return placed
    }

    /// A name in the quarantine that neither a file nor its note has; or the name of a note left
    /// without its file by an earlier try for the same input (a power cut between the two).
    private func freeName(_ wanted: String, from relativePath: String) throws(Durable.Failure) -> String {
        let folderPath = (wanted as NSString).deletingLastPathComponent
        let name = (wanted as NSString).lastPathComponent
        let free = FileName.candidates(name, reserve: Self.noteSuffix.utf8.count).first { candidate in
            let placed = folderPath + "/" + candidate
            return !folders.exists(placed) && (!folders.exists(placed + Self.noteSuffix) || isLeftOver(placed, from: relativePath))
        }
        return folderPath + "/" + free!
    }

    /// A note without its file, written for the same input: an earlier try cut short.
    private func isLeftOver(_ placed: String, from relativePath: String) -> Bool {
        guard !folders.exists(placed), let text = folders.read(placed + Self.noteSuffix) else { return false }
        let lines = String(decoding: text, as: UTF8.self).split(separator: "\n")
        return lines.contains("from: \(relativePath.oneLine)") && !lines.contains { $0.hasPrefix("reason: ") && $0.contains("; the link (to ") }
    }

    /// `a/b/c.jpg` → `a%2Fb%2Fc.jpg`.
    static func folded(_ relativePath: String) -> String {
        relativePath.replacingOccurrences(of: "%", with: "%25").replacingOccurrences(of: "/", with: "%2F")
    }
}
