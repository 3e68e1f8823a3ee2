import Glibc

/// Files finished below a folder tree, as inotify(7) tells of them: written and closed, moved in,
/// or linked in. An inotify instance of its own, read on its owner's thread.
///
/// The inbox's watcher uses libinotifytools, which keeps one inotify instance per process in global
/// state (`InotifySession` is the only door to it). The library is watched in the same process (the
/// workspace beside the daemon), on another thread, so this is a second instance, made with the
/// kernel's calls directly: it only adds folders and reads names, and keeps none of
/// libinotifytools' bookkeeping beyond the folder each watch is for.
/// (Sendable to be handed to the thread that reads it; one thread at a time uses it.)
public final class FileChanges: @unchecked Sendable {
    /// What was seen: a file finished at `path`, or that events were lost (`overflowed`: the
    /// kernel's queue was full, so whoever reads must look at everything again).
    public enum Change: Equatable, Sendable {
        case finished(path: String)
        case overflowed
    }

    private let descriptor: Int32
    /// Each watch's folder, with no trailing slash.
    private var folders: [Int32: String] = [:]
    private let skipFolder: (String) -> Bool

    /// Files written and closed, moved in, or made (a link(2) makes a whole file at once); folders
    /// made or moved in, to be watched in turn.
    private static let mask = UInt32(IN_CLOSE_WRITE | IN_MOVED_TO | IN_CREATE | IN_ONLYDIR | IN_DONT_FOLLOW)

    /// Watches `root` and every folder below it for which `skipFolder` (given its path) is false.
    /// Throws the errno when inotify cannot be had or `root` cannot be watched.
    public init(root: String, skipFolder: @escaping (String) -> Bool = { _ in false }) throws(SystemError) {
        descriptor = InotifyInstances.open(flags: Int32(IN_CLOEXEC | IN_NONBLOCK))
        guard descriptor >= 0 else { throw SystemError(call: "inotify_init1", path: root, code: errno) }
        self.skipFolder = skipFolder
        guard add(root.hasSuffix("/") && root.count > 1 ? String(root.dropLast()) : root) else {
            let code = errno
            InotifyInstances.close(descriptor)
            throw SystemError(call: "inotify_add_watch", path: root, code: code)
        }
    }

    deinit { InotifyInstances.close(descriptor) }

    /// Waits up to `seconds` for changes and returns them (none when nothing came).
    public func next(waiting seconds: Double) -> [Change] {
        var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        guard poll(&entry, 1, Int32(max(0, seconds) * 1000)) > 0 else { return [] }
        var changes: [Change] = []
        let size = 64 * 1024
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: MemoryLayout<inotify_event>.alignment)
        defer { buffer.deallocate() }
        while true {
            let count = read(descriptor, buffer, size)
            guard count > 0 else { break }
            var offset = 0
            while offset + MemoryLayout<inotify_event>.size <= count {
                let event = buffer.advanced(by: offset).assumingMemoryBound(to: inotify_event.self).pointee
                let nameStart = buffer.advanced(by: offset + MemoryLayout<inotify_event>.size).assumingMemoryBound(to: CChar.self)
                let name = event.len > 0 ? String(cString: nameStart) : ""
                offset += MemoryLayout<inotify_event>.size + Int(event.len)
                if event.mask & UInt32(IN_Q_OVERFLOW) != 0 {
                    changes.append(.overflowed)
                    continue
                }
                if event.mask & UInt32(IN_IGNORED) != 0 {
                    folders[event.wd] = nil
                    continue
                }
                guard let folder = folders[event.wd], !name.isEmpty else { continue }
                let path = folder == "/" ? "/" + name : folder + "/" + name
                if event.mask & UInt32(IN_ISDIR) != 0 {
                    // A folder made or moved in: watched, and what it already holds told of (files
                    // may have been finished in it before its watch began).
                    if event.mask & UInt32(IN_CREATE | IN_MOVED_TO) != 0, !skipFolder(path), add(path) {
                        changes += Self.files(below: path, skipFolder: skipFolder).map { .finished(path: $0) }
                    }
                    continue
                }
                changes.append(.finished(path: path))
            }
        }
        return changes
    }

    /// Adds a watch on `folder` and on the folders below it; false when `folder`'s own failed.
    @discardableResult
    private func add(_ folder: String) -> Bool {
        let watch = inotify_add_watch(descriptor, folder, Self.mask)
        guard watch >= 0 else { return false }
        folders[watch] = folder
        for sub in Self.subfolders(of: folder) where !skipFolder(sub) { add(sub) }
        return true
    }

    private static func subfolders(of folder: String) -> [String] {
        entries(of: folder).filter { $0.isFolder }.map(\.path)
    }

    /// Every file below `folder`, in folders not skipped.
    private static func files(below folder: String, skipFolder: (String) -> Bool) -> [String] {
        entries(of: folder).flatMap { entry -> [String] in
            if !entry.isFolder { return [entry.path] }
            return skipFolder(entry.path) ? [] : files(below: entry.path, skipFolder: skipFolder)
        }
    }

    private static func entries(of folder: String) -> [(path: String, isFolder: Bool)] {
        guard let directory = opendir(folder) else { return [] }
        defer { closedir(directory) }
        var found: [(String, Bool)] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(cString: $0.bindMemory(to: CChar.self).baseAddress!) }
            guard name != ".", name != ".." else { continue }
            let path = folder + "/" + name
            var status = stat()
            // The type from lstat: a link to a folder is not followed (it may lead out of the tree).
            let isFolder = lstat(path, &status) == 0 && status.st_mode & S_IFMT == S_IFDIR
            found.append((path, isFolder))
        }
        return found
    }
}

/// A system call that failed: which, on what, and errno.
public struct SystemError: Error, Sendable, CustomStringConvertible {
    public var call: String
    public var path: String
    public var code: Int32

    public init(call: String, path: String, code: Int32) {
        self.call = call
        self.path = path
        self.code = code
    }

    public var description: String { "\(call) \(path): \(String(cString: strerror(code)))" }
}
