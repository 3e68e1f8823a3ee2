import Foundation

/// No template, input name or symlink may make the daemon write outside a configured folder: with
/// every symlink on the way resolved, a path must still be inside its root, and the file itself
/// must not be a symlink (opening it would follow).
public enum PathSafety {
    public static func isInside(_ path: String, root: String) -> Bool {
        if let attributes = try? FileManager.default.attributesOfItem(atPath: path),
           attributes[.type] as? FileAttributeType == .typeSymbolicLink {
            return false
        }
        let resolvedPath = resolve(path), resolvedRoot = resolve(root)
        return resolvedPath == resolvedRoot || resolvedPath.hasPrefix(resolvedRoot == "/" ? "/" : resolvedRoot + "/")
    }

    /// The path with its deepest existing folder's symlinks resolved; the parts that do not exist
    /// yet are appended as written (normalized, so `..` cannot climb).
    static func resolve(_ path: String) -> String {
        var existing = (path as NSString).standardizingPath
        var missing: [String] = []
        while existing != "/", !existing.isEmpty, realPath(existing) == nil {
            missing.insert((existing as NSString).lastPathComponent, at: 0)
            existing = (existing as NSString).deletingLastPathComponent
        }
        let base = realPath(existing.isEmpty ? "/" : existing) ?? existing
        return ([base] + missing).joined(separator: "/").replacingOccurrences(of: "//", with: "/")
    }

    static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// A file with more than one name lives elsewhere too (`ln`, not `cp`): reading it would read
    /// a file outside the configured folders, so it is refused.
    public static func hardLinkReason(links: Int) -> String? {
        links > 1 ? "a hard link (one file with \(links) names, the others elsewhere); only files of their own are read" : nil
    }

    /// A place a target may be: inside the library (every symlink resolved), and not in the
    /// engine's own `.pdftrapper` folder there.
    public static func isTarget(_ path: String, inLibrary library: String) -> Bool {
        isInside(path, root: library) && !isInside(path, root: library + "/" + StateDirectory.libraryFolderName)
    }
}
