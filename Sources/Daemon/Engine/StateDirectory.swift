import Foundation
import TrapperCore

/// The engine's folder: the append journal, per-target state (the last write, the redo stack, the
/// inputs' digests), and the lock files that keep two processes from writing one target at once.
///
///     journal/KEY.json      an append or create in flight (removed when it is durable)
///     targets/KEY.json      the last revision written and the undone revisions that redo can restore
///     targets/KEY.N.tail    the bytes of an undone revision
///     locks/KEY.lock        flock(2) per target
///
/// KEY is the SHA-256 of the target's absolute path, so no path needs escaping.
public struct StateDirectory: Sendable {
    public let path: String

    public init(path: String) {
        self.path = path
    }

    public var journal: String { path + "/journal" }
    public var targets: String { path + "/targets" }
    public var locks: String { path + "/locks" }

    public func prepare(in folders: ConfinedFolders) throws(Durable.Failure) {
        for folder in [journal, targets, locks] { try folders.makeFolder(folder) }
    }

    public static func key(for target: String) -> String {
        String(SHA256.hex(SHA256.hash(Array(target.utf8))).prefix(32))
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
