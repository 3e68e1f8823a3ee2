import CLinux
import Foundation
import Glibc
import TrapperCore

/// One configured folder (the inbox, its claims, the archive, the quarantine, the library, the edits
/// folder, the state folder), opened once as a descriptor. Every operation below it is resolved by
/// the kernel relative to that descriptor with `openat2(RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS)`:
/// a symlink anywhere on the way, placed before start or swapped in between a check and a use, can
/// never lead a read or a write outside the folder. The leaf itself is never followed (`O_NOFOLLOW`,
/// `AT_SYMLINK_NOFOLLOW`). Paths are matched to the root as bytes, never as Strings (which would
/// take NFC and NFD spellings of one name for the same folder).
public final class FolderRoot: @unchecked Sendable {
    /// As configured, without a trailing slash.
    public let path: String
    /// What the folder is, for messages: "the library /srv/library".
    let shown: String
    private let descriptor: Int32
    /// The kernel's resolution below the root: no symlink may climb out, none may be magic. Zero
    /// for the unconfined `/` of `ConfinedFolders.anywhere`.
    private let resolution: UInt64

    /// Opens `path` (made first, with its parents, when missing: the configured folder is trusted,
    /// what appears inside it is not).
    public init(_ path: String, label: String? = nil, confined: Bool = true) throws(Durable.Failure) {
        var trimmed = path
        while trimmed.count > 1, trimmed.hasSuffix("/") { trimmed.removeLast() }
        self.path = trimmed
        self.shown = label.map { "\($0) \(trimmed)" } ?? trimmed
        self.resolution = confined ? UInt64(RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS) : 0
        var fd = Glibc.open(trimmed, trapper_O_PATH | O_DIRECTORY | O_CLOEXEC)
        if fd < 0, errno == ENOENT {
            try Durable.makeFolder(trimmed)
            fd = Glibc.open(trimmed, trapper_O_PATH | O_DIRECTORY | O_CLOEXEC)
        }
        guard fd >= 0 else { throw Durable.Failure(step: "open folder", path: trimmed, code: errno) }
        descriptor = fd
    }

    deinit { close(descriptor) }

    // MARK: Where a path is

    /// `path` below the root ("" for the root itself), compared byte for byte; nil when it is not
    /// below, or climbs with `..`.
    public func relative(_ path: String) -> String? {
        // Unconfined (the command line's `--to`), a path is taken as the shell would: from the
        // current folder, `..` and all.
        guard resolution != 0 else {
            return Self.relative(path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path,
                                 to: self.path, climbing: true)
        }
        return Self.relative(path, to: self.path)
    }

    public static func relative(_ path: String, to root: String, climbing: Bool = false) -> String? {
        var bytes = Array(root.utf8)
        while bytes.count > 1, bytes.last == UInt8(ascii: "/") { bytes.removeLast() }
        let given = Array(path.utf8)
        let inside: ArraySlice<UInt8>
        if given == bytes {
            inside = []
        } else if bytes == [UInt8(ascii: "/")], given.first == UInt8(ascii: "/") {
            inside = given.dropFirst()
        } else if given.count > bytes.count, given.starts(with: bytes), given[bytes.count] == UInt8(ascii: "/") {
            inside = given.dropFirst(bytes.count + 1)
        } else {
            return nil
        }
        let parts = inside.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: true)
        if !climbing, parts.contains(where: { $0.elementsEqual("..".utf8) }) { return nil }
        return parts.map { String(decoding: $0, as: UTF8.self) }.joined(separator: "/")
    }

    public func contains(_ path: String) -> Bool { relative(path) != nil }

    private func inside(_ path: String, _ step: String) throws(Durable.Failure) -> String {
        guard let relative = relative(path) else {
            throw Durable.Failure(step: step, path: path, code: EXDEV, outside: shown)
        }
        return relative
    }

    private func resolve(_ relative: String, _ flags: Int32, _ mode: mode_t, _ step: String, _ shown: String)
        throws(Durable.Failure) -> Int32
    {
        // openat2 refuses a mode without O_CREAT (open(2) ignores it).
        let mode = flags & O_CREAT != 0 ? UInt32(mode) : 0
        let fd = trapper_openat2(descriptor, relative.isEmpty ? "." : relative, flags | O_CLOEXEC, mode, resolution)
        guard fd >= 0 else {
            let code = errno
            throw Durable.Failure(step: step, path: shown, code: code, outside: code == EXDEV ? self.shown : nil)
        }
        return fd
    }

    // MARK: Files

    /// A descriptor for the file at `path`, which must not be a symlink itself.
    public func open(_ path: String, flags: Int32, mode: mode_t = 0o644) throws(Durable.Failure) -> Int32 {
        try resolve(try inside(path, "open"), flags | O_NOFOLLOW, mode, "open", path)
    }

    /// The folder that holds `path`, opened below the root (made first when `create`), and the
    /// leaf's name in it.
    func parent(of path: String, create: Bool = false) throws(Durable.Failure) -> (folder: Int32, name: String) {
        let relative = try inside(path, "open")
        guard !relative.isEmpty else { throw Durable.Failure(step: "open", path: path, code: EINVAL) }
        let name = (relative as NSString).lastPathComponent
        let folder = (relative as NSString).deletingLastPathComponent
        if create { try makeFolder(relative: folder, shown: path) }
        return (try resolve(folder, trapper_O_PATH | O_DIRECTORY, 0, "open folder", path), name)
    }

    /// lstat(2) of `path`: what is there, never what a link points at.
    public func status(_ path: String) -> stat? {
        guard let (folder, name) = try? parent(of: path) else { return nil }
        defer { close(folder) }
        var status = stat()
        return fstatat(folder, name, &status, AT_SYMLINK_NOFOLLOW) == 0 ? status : nil
    }

    public func exists(_ path: String) -> Bool { status(path) != nil }

    /// What the symlink at `path` points at (as text), for a note.
    public func linkTarget(_ path: String) -> String? {
        guard let (folder, name) = try? parent(of: path) else { return nil }
        defer { close(folder) }
        var buffer = [UInt8](repeating: 0, count: Int(PATH_MAX))
        let count = readlinkat(folder, name, &buffer, buffer.count)
        return count < 0 ? nil : String(decoding: buffer[..<count], as: UTF8.self)
    }

    /// The whole file at `path` (a regular file, not followed); nil for anything else. Opened
    /// without blocking and checked on the descriptor: a FIFO put where a file was (after its
    /// lstat said "regular file") would otherwise hang the reader for ever.
    public func read(_ path: String) -> Data? {
        guard let fd = try? open(path, flags: O_RDONLY | O_NONBLOCK) else { return nil }
        let handle = FileHandle(fileDescriptor: fd, closeOnDealloc: true)
        var status = stat()
        guard fstat(fd, &status) == 0, status.st_mode & S_IFMT == S_IFREG else { return nil }
        return handle.readDataToEndOfFile()
    }

    /// Names in the folder at `path` (without `.` and `..`); nil when it is no folder below the root.
    public func names(in path: String) -> [String]? {
        guard let fd = try? resolve(try inside(path, "list"), O_RDONLY | O_DIRECTORY, 0, "list", path),
              let stream = fdopendir(fd) else { return nil }
        defer { closedir(stream) }
        var names: [String] = []
        while let entry = readdir(stream) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(cString: $0.bindMemory(to: CChar.self).baseAddress!) }
            if name != ".", name != ".." { names.append(name) }
        }
        return names
    }

    // MARK: Changes, each made durable

    /// Makes the folder at `path` and any missing folder above it, below the root.
    public func makeFolder(_ path: String) throws(Durable.Failure) {
        try makeFolder(relative: try inside(path, "create folder"), shown: path)
    }

    private func makeFolder(relative: String, shown: String) throws(Durable.Failure) {
        var made = ""
        for part in relative.split(separator: "/") {
            let parentFolder = try resolve(made, O_RDONLY | O_DIRECTORY, 0, "create folder", shown)
            defer { close(parentFolder) }
            made += (made.isEmpty ? "" : "/") + part
            guard mkdirat(parentFolder, String(part), 0o755) == 0 else {
                guard errno == EEXIST else { throw Durable.Failure(step: "create folder", path: shown, code: errno) }
                continue
            }
            // A new folder's name is on disk only once the folder holding it is synced; until then a
            // power cut takes the folder away, and with it every file renamed into it meanwhile (a
            // claimed input, an archived one), however well each of those was synced.
            guard fsync(parentFolder) == 0 else { throw Durable.Failure(step: "fsync folder", path: shown, code: errno) }
        }
    }

    /// Flushes the entries of the folder at `path` to disk.
    public func syncFolder(_ path: String) throws(Durable.Failure) {
        let fd = try resolve(try inside(path, "fsync folder"), O_RDONLY | O_DIRECTORY, 0, "open folder", path)
        defer { close(fd) }
        guard fsync(fd) == 0 else { throw Durable.Failure(step: "fsync folder", path: path, code: errno) }
    }

    /// Writes `data` under a temporary name beside `path`, fsyncs it, renames it over `path` and
    /// fsyncs the folder: a reader sees the old content or the new, never a mix.
    public func replace(_ path: String, with data: Data) throws(Durable.Failure) {
        try write(path, data, replacing: true)
    }

    /// Writes `data` as a new file at `path`, whole or not at all (as `replace` does it), but never
    /// over a file already there: a taken name throws the failure with code EEXIST, the file that
    /// has it untouched. No reader ever sees it empty or half-written.
    public func create(_ path: String, with data: Data) throws(Durable.Failure) {
        try write(path, data, replacing: false)
    }

    private func write(_ path: String, _ data: Data, replacing: Bool) throws(Durable.Failure) {
        let (folder, name) = try parent(of: path, create: true)
        defer { close(folder) }
        let temporary = FileName.temporary(for: name, tag: ".tmp-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
        let fd = openat(folder, temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw Durable.Failure(step: "create", path: path, code: errno) }
        let written = data.withUnsafeBytes { Durable.writeAll(fd, $0) }
        let synced = written == 0 && fsync(fd) == 0
        let code = written != 0 ? written : errno
        close(fd)
        let renamed = replacing ? renameat(folder, temporary, folder, name)
            : trapper_renameat2(folder, temporary, folder, name, UInt32(RENAME_NOREPLACE))
        guard synced, renamed == 0 else {
            let failure = Durable.Failure(step: synced ? "rename" : "write", path: path, code: synced ? errno : code)
            unlinkat(folder, temporary, 0)
            throw failure
        }
        try syncFolder((path as NSString).deletingLastPathComponent)
    }

    /// Removes the file or symlink at `path` (never what a link points at); a name already gone is fine.
    /// Removes the file at `path`; `durable`: the removal is synced before this returns.
    public func remove(_ path: String, durable: Bool = true) throws(Durable.Failure) {
        let folder: Int32
        let name: String
        do { (folder, name) = try parent(of: path) } catch { if error.code == ENOENT { return } else { throw error } }
        defer { close(folder) }
        guard unlinkat(folder, name, 0) == 0 || errno == ENOENT else {
            throw Durable.Failure(step: "remove", path: path, code: errno)
        }
        if durable { try syncFolder((path as NSString).deletingLastPathComponent) }
    }

    /// Cuts the file at `path` back to `length` bytes and makes that durable.
    public func truncate(_ path: String, to length: Int) throws(Durable.Failure) {
        let fd = try open(path, flags: O_WRONLY)
        defer { close(fd) }
        guard ftruncate(fd, off_t(length)) == 0 else { throw Durable.Failure(step: "truncate", path: path, code: errno) }
        guard fsync(fd) == 0 else { throw Durable.Failure(step: "fsync", path: path, code: errno) }
    }

    /// Gives the file at `source` (below `from`) the second name `destination` (below `to`);
    /// link(2) refuses a name that exists, and EXDEV tells two file systems apart.
    public static func link(_ source: String, in from: FolderRoot, to destination: String, in to: FolderRoot) throws(Durable.Failure) {
        let (fromFolder, fromName) = try from.parent(of: source)
        defer { close(fromFolder) }
        let (toFolder, toName) = try to.parent(of: destination, create: true)
        defer { close(toFolder) }
        guard linkat(fromFolder, fromName, toFolder, toName, 0) == 0 else {
            throw Durable.Failure(step: "link", path: destination, code: errno)
        }
    }

    /// Renames `source` over `destination`, both in one folder, and syncs the folder: the name
    /// then holds the new file or the old one, never neither.
    public func renameOver(_ source: String, _ destination: String) throws(Durable.Failure) {
        let (folder, name) = try parent(of: destination)
        defer { close(folder) }
        guard (source as NSString).deletingLastPathComponent == (destination as NSString).deletingLastPathComponent,
              renameat(folder, (source as NSString).lastPathComponent, folder, name) == 0 else {
            throw Durable.Failure(step: "rename over", path: destination, code: errno == 0 ? EXDEV : errno)
        }
        try syncFolder((destination as NSString).deletingLastPathComponent)
    }

    /// A path for libraries that only take paths (qpdf): the folder of `path` pinned as this
    /// process's descriptor, so that a swap of any folder on the way cannot redirect it. The
    /// descriptor is closed when `body` returns.
    public func pinned<T>(_ path: String, _ body: (String) throws -> T) throws -> T {
        let (folder, name) = try parent(of: path)
        defer { close(folder) }
        return try body("/proc/self/fd/\(folder)/\(name)")
    }

    // MARK: Moves between folders

    /// Renames `source` (below `from`) to `destination` (below `to`), making its folders there. It
    /// never replaces: a taken name gets "-2", "-3", ... before the extension, kept within 255 bytes
    /// less `reserve`. `durable` fsyncs both folders after (a claim needs no fsync: after a crash the
    /// file is in one folder or the other). Returns where it went.
    public static func move(_ source: String, in from: FolderRoot, to destination: String, in to: FolderRoot,
                            reserve: Int = 0, durable: Bool = true) throws(Durable.Failure) -> String
    {
        let (sourceFolder, sourceName) = try from.parent(of: source)
        defer { close(sourceFolder) }
        let (folder, wanted) = try to.parent(of: destination, create: true)
        defer { close(folder) }
        let base = (destination as NSString).deletingLastPathComponent
        var moved: String?
        for name in FileName.candidates(wanted, reserve: reserve) {
            if trapper_renameat2(sourceFolder, sourceName, folder, name, UInt32(RENAME_NOREPLACE)) == 0 {
                moved = name
                break
            }
            guard errno == EEXIST else { throw Durable.Failure(step: "rename", path: base + "/" + name, code: errno) }
        }
        let name = moved!
        guard durable else { return base + "/" + name }
        try to.syncFolder(base)
        if from.path != to.path || (source as NSString).deletingLastPathComponent != base {
            try from.syncFolder((source as NSString).deletingLastPathComponent)
        }
        return base + "/" + name
    }
}
