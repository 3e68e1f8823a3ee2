import Foundation
import System
import TrapperCore

/// The engine's folder: the append journal, per-target state (the last write, the redo stack, the
/// inputs' digests), and the lock files that keep two processes from writing one target at once.
///
///     journal/KEY.json      an append or create in flight (removed when it is durable)
///     targets/KEY.json      the last revision written and the undone revisions that redo can restore
///     targets/KEY.N.tail    the bytes of an undone revision
///     locks/KEY.lock        flock(2) per target
///
/// KEY is the SHA-256 of the target's name (see `name(of:)`), so no path needs escaping.
///
/// In a library's `.pdftrapper` folder, a target is named by its path inside the library, and so
/// are the paths the journal and the state record (the target, its temporary and kept files):
/// hosts that mount one shared library at different paths then take the same locks, and each
/// reads the other's journal and undo history as paths of its own mount.
public struct StateDirectory: Sendable {
    public let path: String
    /// The library this state folder belongs to (the folder holding it), when it is a library's
    /// `.pdftrapper`; nil for a state folder elsewhere, whose paths stay absolute.
    public let library: String?

    public init(path: String) {
        self.path = path
        let standard = (path as NSString).standardizingPath as NSString
        library = standard.lastPathComponent == Self.libraryFolderName ? standard.deletingLastPathComponent : nil
    }

    /// How the state folder names `path`: relative to the library when it is inside it (the
    /// same on every host), else the absolute path itself.
    public func name(of path: String) -> String {
        guard let library else { return path }
        let standard = (path as NSString).standardizingPath
        let prefix = library == "/" ? "/" : library + "/"
        return standard.hasPrefix(prefix) ? String(standard.dropFirst(prefix.count)) : path
    }

    /// The path on this host of a name `name(of:)` gave (on this host or another).
    public func path(named name: String) -> String {
        guard let library, !name.hasPrefix("/") else { return name }
        return library == "/" ? "/" + name : library + "/" + name
    }

    /// A target's key: its name's SHA-256, so every host sharing the library agrees on it.
    public func key(for target: String) -> String { Self.key(for: name(of: target)) }

    public var journal: String { path + "/journal" }
    public var targets: String { path + "/targets" }
    public var locks: String { path + "/locks" }

    public func prepare(in folders: ConfinedFolders) throws(Durable.Failure) {
        for folder in [journal, targets, locks] { try folders.makeFolder(folder) }
    }

    public static func key(for name: String) -> String {
        String(SHA256.hex(SHA256.hash(Array(name.utf8))).prefix(32))
    }

    /// Where a config's targets keep their journal, locks and undo history: beside them, in the
    /// library's `.pdftrapper` folder, so that every process writing the library (the daemon, a
    /// command, a second daemon on another host sharing the library) takes the same locks and sees
    /// the same journal before it appends.
    public static func forLibrary(_ config: Config) -> StateDirectory {
        StateDirectory(path: config.library.root + "/" + libraryFolderName)
    }

    public static let libraryFolderName = ".pdftrapper"

    /// The nearest `.pdftrapper` folder in or above the folder of `target`, as git finds `.git`;
    /// nil when there is none up to `/`.
    public static func nearest(to target: String) -> String? {
        var folder = ((target as NSString).standardizingPath as NSString).deletingLastPathComponent
        while !folder.isEmpty {
            let candidate = folder + "/" + libraryFolderName
            var status = stat()
            if stat(candidate, &status) == 0, status.st_mode & S_IFMT == S_IFDIR { return candidate }
            guard folder != "/" else { return nil }
            folder = (folder as NSString).deletingLastPathComponent
        }
        return nil
    }

    /// The state folder for targets outside any config: `$PDFTRAPPER_STATE_DIR`, systemd's
    /// `$STATE_DIRECTORY`, `$XDG_STATE_HOME/pdftrapper`, `~/.local/state/pdftrapper`.
    public static func fallback(environment: [String: String]) -> String {
        if let explicit = environment["PDFTRAPPER_STATE_DIR"], !explicit.isEmpty { return explicit }
        return ConfigParser.defaultStateDir(environment: environment)
    }
}
