import CInotifyTools
import Glibc
import Synchronization
import System

/// A folder event seen by inotify: the watch it came from, the name inside that folder (empty for
/// events on the folder itself), the full path as libinotifytools knows it, and the raw event mask.
public struct FolderEvent: Sendable, Equatable {
    public var watch: Int32
    public var name: String
    public var path: String
    public var mask: UInt32

    public init(watch: Int32, name: String, path: String, mask: UInt32) {
        self.watch = watch
        self.name = name
        self.path = path
        self.mask = mask
    }

    public var isCloseWrite: Bool { has(IN_CLOSE_WRITE) }
    public var isMovedTo: Bool { has(IN_MOVED_TO) }
    public var isMovedFrom: Bool { has(IN_MOVED_FROM) }
    public var isCreate: Bool { has(IN_CREATE) }
    public var isDelete: Bool { has(IN_DELETE) }
    public var isDirectory: Bool { has(IN_ISDIR) }
    public var isOverflow: Bool { has(IN_Q_OVERFLOW) }
    /// The kernel dropped the watch (folder deleted, file system unmounted, or removed by us).
    public var isWatchGone: Bool { has(IN_IGNORED) }

    private func has(_ bit: Int32) -> Bool { mask & UInt32(bitPattern: bit) != 0 }
}

public enum WatchError: Error, Sendable, CustomStringConvertible {
    case initialize(errno: Int32)
    case watch(path: String, errno: Int32)
    /// libinotifytools keeps its state in globals: a second live session would share and then
    /// tear down the first one's watches.
    case sessionAlreadyOpen
    case notAFolder(path: String)
    case overlappingRoots(String, String)

    public var errno: Int32? {
        switch self {
        case .initialize(let code), .watch(_, let code): code
        default: nil
        }
    }

    public var description: String {
        switch self {
        case .initialize(let code): "inotify: initialize: \(String(cString: strerror(code)))"
        case .watch(let path, let code): "inotify: watch \(path): \(String(cString: strerror(code)))"
        case .sessionAlreadyOpen: "inotify: a session is already open in this process (libinotifytools allows one)"
        case .notAFolder(let path): "watch: \(path) is not a folder"
        case .overlappingRoots(let outer, let inner): "watch: \(inner) lies inside \(outer); watched folders must not overlap"
        }
    }
}

/// libinotifytools keeps one inotify instance per process in global state, so this session is the
/// only door to it: create one, watch folders, read events, and let it go to clean up.
public final class InotifySession {
    /// What a folder watch asks for: files finished or moved in, folders appearing, and removals so
    /// that nothing stale is kept. IN_MODIFY is left out on purpose: a big copy would flood the queue,
    /// and the watcher compares size and mtime before it takes a file anyway.
    public static let folderEvents = UInt32(
        IN_CLOSE_WRITE | IN_MOVED_TO | IN_MOVED_FROM | IN_CREATE | IN_DELETE | IN_DELETE_SELF | IN_MOVE_SELF
            | IN_ONLYDIR | IN_DONT_FOLLOW)

    private static let open = Atomic<Bool>(false)

    /// The inotify descriptor libinotifytools opened (it keeps it private), found in /proc/self/fd;
    /// nil if it could not be told apart (an instance opened by code that does not go through
    /// InotifyInstances, a library's), and then waits fall back to short sleeps.
    public let fileDescriptor: Int32?

    public init() throws(WatchError) {
        guard Self.open.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged
        else { throw .sessionAlreadyOpen }
        // no other inotify instance opened or closed meanwhile (InotifyInstances), so the one new
        // inotify descriptor is libinotifytools'
        let opened: Set<Int32>? = InotifyInstances.exclusively {
            let before = Self.inotifyDescriptors()
            guard inotifytools_initialize() != 0 else { return nil }
            return Self.inotifyDescriptors().subtracting(before)
        }
        guard let opened else {
            let code = Int32(inotifytools_error())
            Self.open.store(false, ordering: .releasing)
            throw .initialize(errno: code)
        }
        fileDescriptor = opened.count == 1 ? opened.first : nil
    }

    deinit {
        InotifyInstances.exclusively { inotifytools_cleanup() }
        Self.open.store(false, ordering: .releasing)
    }

    /// Watches a folder and every folder below it.
    public func watchRecursively(_ folder: String, events: UInt32 = folderEvents) throws(WatchError) {
        guard inotifytools_watch_recursively(folder, Int32(bitPattern: events)) != 0 else {
            throw .watch(path: folder, errno: Int32(inotifytools_error()))
        }
    }

    /// Watches one folder (not the ones below it) and returns its watch descriptor. A symlink is not
    /// followed (the watch fails) unless `followingLink`, which is for roots given through a link.
    public func watchFolder(_ folder: String, followingLink: Bool = false, events: UInt32 = folderEvents) throws(WatchError) -> Int32 {
        let mask = followingLink ? events & ~UInt32(IN_DONT_FOLLOW) : events
        guard inotifytools_watch_file(folder, Int32(bitPattern: mask)) != 0 else {
            throw .watch(path: folder, errno: Int32(inotifytools_error()))
        }
        // Ask the kernel which watch that is: adding the same watch again is idempotent and returns it.
        // libinotifytools' own name lookup can answer with a dead watch: after IN_IGNORED (folder
        // deleted) it keeps the old record under the same name, and a folder made again at that path
        // would be looked up as the old one.
        if let fd = fileDescriptor {
            let watch = inotify_add_watch(fd, folder, mask)
            if watch >= 0 { return watch }
        }
        // libinotifytools records a folder as "path/", but a symlink to one (lstat) as "path".
        let recorded = inotifytools_wd_from_filename(folder.hasSuffix("/") ? folder : folder + "/")
        return Int32(recorded >= 0 ? recorded : inotifytools_wd_from_filename(folder))
    }

    /// Stops a watch the kernel still holds. (For one the kernel already dropped, IN_IGNORED, do not
    /// call this: libinotifytools would print an error and keep its record.)
    public func removeWatch(_ watch: Int32) {
        _ = inotifytools_remove_watch_by_wd(watch)
    }

    /// The next event, or nil when none came within `timeoutSeconds`; 0 returns at once.
    /// (`inotifytools_next_event` treats 0 as "block forever", so this calls `next_events` itself.)
    public func nextEvent(timeoutSeconds: Int) -> FolderEvent? {
        guard let event = inotifytools_next_events(timeoutSeconds, 1) else { return nil }
        let wd = event.pointee.wd
        let mask = event.pointee.mask
        var name = ""
        let directory = inotifytools_filename_from_wd(wd).map { String(cString: $0) } ?? ""
        if event.pointee.len > 0 {
            // The name is a NUL-padded array that follows the struct.
            let bytes = UnsafeRawBufferPointer(start: UnsafeRawPointer(event).advanced(by: MemoryLayout<inotify_event>.size),
                                               count: Int(event.pointee.len))
            let raw = Array(bytes.prefix { $0 != 0 })
            // A name that is not UTF-8 is renamed, which brings an event of its own for the new name.
            name = String(validating: raw, as: UTF8.self)
                ?? (directory.isEmpty || mask & UInt32(IN_DELETE | IN_MOVED_FROM) != 0 ? nil : FileNames.usable(raw, in: String(directory.dropLast())))
                ?? String(decoding: raw, as: UTF8.self)
        }
        return FolderEvent(watch: wd, name: name, path: directory.isEmpty ? "" : directory + name, mask: mask)
    }

    /// Every event already queued, without waiting (at most `limit`, so a flood cannot pin the caller).
    public func pendingEvents(limit: Int = 16_384) -> [FolderEvent] {
        var events: [FolderEvent] = []
        while events.count < limit, let event = nextEvent(timeoutSeconds: 0) { events.append(event) }
        return events
    }

    /// Waits until events can be read or `seconds` pass. Sub-second, unlike libinotifytools' own timeout.
    @discardableResult
    public func waitForEvents(seconds: Double) -> Bool {
        guard let fd = fileDescriptor else {
            usleep(useconds_t(min(max(seconds, 0), 0.05) * 1_000_000))
            return true
        }
        var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        let milliseconds = Int32(min(max(seconds, 0) * 1000, Double(Int32.max)).rounded(.up))
        return poll(&entry, 1, milliseconds) > 0
    }

    private static func inotifyDescriptors() -> Set<Int32> {
        guard let directory = opendir("/proc/self/fd") else { return [] }
        defer { closedir(directory) }
        var found: Set<Int32> = []
        var target = [CChar](repeating: 0, count: 64)
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(cString: $0.bindMemory(to: CChar.self).baseAddress!) }
            guard let fd = Int32(name) else { continue }
            let length = readlink("/proc/self/fd/\(name)", &target, target.count - 1)
            guard length > 0 else { continue }
            if String(decoding: target[0..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self) == "anon_inode:inotify" {
                found.insert(fd)
            }
        }
        return found
    }
}
