import Foundation
import Glibc

/// Moving inputs between the daemon's folders (inbox, claims, archive, quarantine) by rename(2):
/// atomic, so a file is always in exactly one of them, and never copied.
enum FolderMoves {
    /// Renames `source` to `destination`, creating its folders; a taken name gets "-2", "-3", ...
    /// before the extension (never overwriting). Returns where it went.
    static func move(_ source: String, to destination: String) throws(Durable.Failure) -> String {
        let folder = (destination as NSString).deletingLastPathComponent
        try Durable.makeFolder(folder)
        var candidate = destination
        var number = 2
        while true {
            // link + unlink refuses to replace an existing name, which rename(2) would do silently.
            if link(source, candidate) == 0 {
                guard unlink(source) == 0 else { throw Durable.Failure(step: "unlink", path: source, code: errno) }
                try Durable.syncFolder(folder)
                return candidate
            }
            let code = errno
            if code == EEXIST {
                candidate = numbered(destination, number)
                number += 1
                continue
            }
            // link(2) is refused for symlinks on some file systems and for directories; rename them.
            if code == EPERM || code == EXDEV || code == ENOTSUP {
                guard !FileManager.default.fileExists(atPath: candidate), rename(source, candidate) == 0 else {
                    if errno == EEXIST || FileManager.default.fileExists(atPath: candidate) {
                        candidate = numbered(destination, number)
                        number += 1
                        continue
                    }
                    throw Durable.Failure(step: "rename", path: source, code: errno)
                }
                try Durable.syncFolder(folder)
                return candidate
            }
            throw Durable.Failure(step: "link", path: candidate, code: code)
        }
    }

    /// `a/b.jpg`, 2 → `a/b-2.jpg`.
    static func numbered(_ path: String, _ number: Int) -> String {
        let ext = (path as NSString).pathExtension
        let base = ext.isEmpty ? path : String(path.dropLast(ext.count + 1))
        return ext.isEmpty ? "\(base)-\(number)" : "\(base)-\(number).\(ext)"
    }
}
