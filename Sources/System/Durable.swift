import Foundation
import Glibc

/// The few file-system steps whose order makes a write survive a crash: fsync a file, fsync the
/// folder that names it, and replace a small file atomically. These take paths as they are, for the
/// host-local state folder (status, scan spool, OCR queue); everything below a folder others can
/// write into goes through FolderRoot, which resolves beneath the folder's descriptor.
public enum Durable {
    public struct Failure: Error, CustomStringConvertible {
        public var step: String
        public var path: String
        public var code: Int32
        /// The configured folder that `path` would have left (through a symlink, or by its spelling).
        public var outside: String?

        public init(step: String, path: String, code: Int32, outside: String? = nil) {
            self.step = step
            self.path = path
            self.code = code
            self.outside = outside
        }

        public var description: String {
            if let outside { return "\(step) \(path): leads outside \(outside) (through a symbolic link, or by its name); refused" }
            return "\(step) \(path): \(String(cString: strerror(code)))"
        }

        /// Trying again cannot help: the name is too long, or the path leads outside its folder.
        public var isPermanent: Bool { outside != nil || code == ENAMETOOLONG || code == ELOOP }
    }

    /// Writes all of `bytes` to `fd`; 0, or the errno of the write that failed.
    public static func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) -> Int32 {
        var offset = 0
        while offset < bytes.count {
            let count = Glibc.write(fd, bytes.baseAddress! + offset, bytes.count - offset)
            if count < 0 {
                if errno == EINTR { continue }
                return errno
            }
            offset += count
        }
        return 0
    }

    /// Flushes a folder's entries (a rename or a new name in it) to disk.
    public static func syncFolder(_ path: String) throws(Failure) {
        let fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { throw Failure(step: "open folder", path: path, code: errno) }
        defer { close(fd) }
        guard fsync(fd) == 0 else { throw Failure(step: "fsync folder", path: path, code: errno) }
    }

    /// Flushes a file's bytes to disk.
    public static func syncFile(_ path: String) throws(Failure) {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw Failure(step: "open", path: path, code: errno) }
        defer { close(fd) }
        guard fsync(fd) == 0 else { throw Failure(step: "fsync", path: path, code: errno) }
    }

    /// Writes `data` to a temporary name beside `path`, fsyncs it, renames it over `path` and
    /// fsyncs the folder: a reader sees the old content or the new, never a mix. `mode`: the new
    /// file's permissions (0600 for a secret), set on the file itself, never through the process's
    /// umask, which every thread shares.
    public static func replace(_ path: String, with data: Data, mode: mode_t = 0o644) throws(Failure) {
        try replace(path, with: data, synced: true, mode: mode)
        try syncFolder(parent(of: path))
    }

    /// Replaces `path` as `replace` does, for a reader of a running program, but syncs nothing: after
    /// a power cut the file may be old, new, empty or cut short, and whoever reads it must take a
    /// broken one for none. For what is only shown to people and written anew at every start (the
    /// daemon's status.json): its three fsyncs after every job bought nothing (Tests/PowerLoss).
    public static func replaceUnsynced(_ path: String, with data: Data) throws(Failure) {
        try replace(path, with: data, synced: false)
    }

    /// The bytes under a temporary name beside `path` (fsynced when `synced`), renamed over it.
    /// Written here, not with FileManager.createFile: that stages its own temporary file and fsyncs
    /// it too, one fsync and one rename more for every scanned page and spool manifest.
    private static func replace(_ path: String, with data: Data, synced: Bool, mode: mode_t = 0o644) throws(Failure) {
        let temporary = path + ".tmp-\(getpid())"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, mode)
        guard fd >= 0 else { throw Failure(step: "create", path: temporary, code: errno) }
        if mode != 0o644 { fchmod(fd, mode) }  // a leftover temporary keeps its old mode through O_CREAT
        let written = data.withUnsafeBytes { writeAll(fd, $0) }
        let code = written != 0 ? written : (synced && fsync(fd) != 0 ? errno : 0)
        close(fd)
        guard code == 0 else {
            unlink(temporary)
            throw Failure(step: written != 0 ? "write" : "fsync", path: temporary, code: code)
        }
        guard rename(temporary, path) == 0 else {
            let code = errno
            unlink(temporary)
            throw Failure(step: "rename", path: path, code: code)
        }
    }

    /// Removes a file and makes the removal durable; a file already gone is fine.
    public static func remove(_ path: String) throws(Failure) {
        guard unlink(path) == 0 || errno == ENOENT else { throw Failure(step: "remove", path: path, code: errno) }
        try syncFolder(parent(of: path))
    }

    /// Makes the folder at `path` and any missing folder above it, each new one made durable by a
    /// sync of the folder that holds it (or a power cut could take it, and all renamed into it since).
    public static func makeFolder(_ path: String) throws(Failure) {
        var status = stat()
        guard stat(path, &status) != 0 else {
            guard status.st_mode & S_IFMT == S_IFDIR else { throw Failure(step: "create folder", path: path, code: ENOTDIR) }
            return
        }
        let above = parent(of: path)
        if above != path, above != "." { try makeFolder(above) }
        guard mkdir(path, 0o777) == 0 else {
            if errno == EEXIST { return }
            throw Failure(step: "create folder", path: path, code: errno)
        }
        try syncFolder(above)
    }

    /// The folder that holds `path` ("." for a bare name).
    public static func parent(of path: String) -> String {
        (path as NSString).deletingLastPathComponent.isEmpty ? "." : (path as NSString).deletingLastPathComponent
    }
}
