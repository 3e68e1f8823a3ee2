/// Every system call the folder watcher makes goes through this seam, so tests can script the clock
/// and the events while the watcher's own loop runs unchanged (entr's habit).
public protocol WatchSystem {
    /// Seconds on a clock that never jumps: settle deadlines, poll and rescan schedules.
    func monotonicSeconds() -> Double
    /// Seconds since 1970: only to tell how old a file's mtime is.
    func wallClockSeconds() -> Double
    /// lstat (or stat when `followingLink`, used for the roots alone); nil when nothing is there.
    func status(of path: String, followingLink: Bool) -> EntryStatus?
    /// The names in a folder, without "." and ".."; nil when it cannot be listed.
    func names(in folder: String) -> [String]?
    /// statfs's f_type for the file system holding `path`.
    func fileSystemType(of path: String) -> UInt32?

    /// Opens the (one per process) inotify session.
    func startEvents() throws(WatchError)
    /// Watches one folder, not the ones below it; returns its watch descriptor. Symlinks are followed
    /// only when asked (roots).
    func watchFolder(_ path: String, followingLink: Bool) throws(WatchError) -> Int32
    func removeWatch(_ watch: Int32)
    /// Events already queued, without waiting.
    func readEvents() -> [FolderEvent]
    /// Waits `seconds`, or less if events arrive.
    func wait(seconds: Double)
}

/// What lstat says about an entry, reduced to what the watcher needs.
public struct EntryStatus: Sendable, Equatable {
    public enum Kind: Sendable, Equatable { case folder, file, symlink, fifo, socket, device, other }

    public var kind: Kind
    public var device: UInt64
    public var inode: UInt64
    public var size: Int64
    /// Modification time in nanoseconds since 1970.
    public var modified: Int64

    public init(kind: Kind, device: UInt64, inode: UInt64, size: Int64, modified: Int64) {
        self.kind = kind
        self.device = device
        self.inode = inode
        self.size = size
        self.modified = modified
    }

    public var modifiedSeconds: Double { Double(modified) / 1e9 }
}

/// What a ready entry is; anything but `.file` is for the daemon to quarantine, never to open.
public enum EntryKind: String, Sendable, Equatable {
    case file, symlink, fifo, socket, device, other

    init?(_ kind: EntryStatus.Kind) {
        switch kind {
        case .folder: return nil
        case .file: self = .file
        case .symlink: self = .symlink
        case .fifo: self = .fifo
        case .socket: self = .socket
        case .device: self = .device
        case .other: self = .other
        }
    }
}
