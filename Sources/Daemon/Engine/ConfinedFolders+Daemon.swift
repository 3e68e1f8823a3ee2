import Foundation
import System
import TrapperCore

/// The daemon's folders, and which paths in the library may be targets.
extension ConfinedFolders {
    /// Every folder the daemon writes in for `config`: the inbox (and its claims), archive,
    /// quarantine, library (and its `.pdftrapper` state), edits, signatures and the state folder.
    public static func daemon(_ config: Config) throws(Durable.Failure) -> ConfinedFolders {
        try ConfinedFolders([(path: config.inbox.path, label: "the inbox"), (config.inbox.archive, "the archive"),
                             (config.inbox.quarantine, "the quarantine"), (config.library.root, "the library"),
                             (config.edits.path, "the edits folder"), (config.signatures.path, "the signatures folder"),
                             (config.daemon.stateDir, "the state folder")])
    }

    /// True when `path` lies in `folder` (compared as bytes, `..` refused) and not in `.pdftrapper`.
    public static func isTarget(_ path: String, inLibrary library: String) -> Bool {
        guard let relative = FolderRoot.relative(path, to: library), !relative.isEmpty else { return false }
        return relative != StateDirectory.libraryFolderName && !relative.hasPrefix(StateDirectory.libraryFolderName + "/")
    }

    /// Why `target` may not be written: outside the library, or in the engine's own folder there
    /// (said the same way by every way in: the inbox, a scan, `ingest`, an edit script); nil when it may.
    public static func targetRefusal(_ target: String, library: String) -> String? {
        isTarget(target, inLibrary: library) ? nil : "outside the library \(library)"
    }
}
