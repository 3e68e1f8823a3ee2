import Glibc

/// The watcher's system calls, for real: lstat, readdir, statfs, clock_gettime, and inotify through
/// libinotifytools. Owns the process's one `InotifySession` once `startEvents()` is called.
public final class RealWatchSystem: WatchSystem {
    private var session: InotifySession?

    public init() {}

    public func monotonicSeconds() -> Double { Self.clock(CLOCK_MONOTONIC) }
    public func wallClockSeconds() -> Double { Self.clock(CLOCK_REALTIME) }

    private static func clock(_ id: clockid_t) -> Double {
        var now = timespec()
        clock_gettime(id, &now)
        return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
    }

    public func status(of path: String, followingLink: Bool) -> EntryStatus? {
        var info = stat()
        guard (followingLink ? stat(path, &info) : lstat(path, &info)) == 0 else { return nil }
        let kind: EntryStatus.Kind = switch info.st_mode & S_IFMT {
        case S_IFDIR: .folder
        case S_IFREG: .file
        case S_IFLNK: .symlink
        case S_IFIFO: .fifo
        case S_IFSOCK: .socket
        case S_IFCHR, S_IFBLK: .device
        default: .other
        }
        return EntryStatus(kind: kind, device: UInt64(info.st_dev), inode: UInt64(info.st_ino), size: Int64(info.st_size),
                           modified: Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec))
    }

    public func names(in folder: String) -> [String]? {
        guard let directory = opendir(folder) else { return nil }
        defer { closedir(directory) }
        var names: [String] = []
        while let entry = readdir(directory) {
            let raw = withUnsafeBytes(of: entry.pointee.d_name) { Array($0.prefix { $0 != 0 }) }
            guard raw != [UInt8(ascii: ".")], raw != [UInt8(ascii: "."), UInt8(ascii: ".")],
                  let name = FileNames.usable(raw, in: folder) else { continue }
            names.append(name)
        }
        return names
    }

    public func fileSystemType(of path: String) -> UInt32? {
        // Swift's Glibc module leaves out <sys/statfs.h> (statvfs has no f_type), and the shims are not
        // ours to change, so statfs is looked up and called through a C function pointer. f_type is the
        // struct's first field (a long) on every Linux ABI Swift runs on; the buffer is larger than the struct.
        guard let statfs = Self.statfs else { return nil }
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: 512, alignment: 16)
        defer { buffer.deallocate() }
        buffer.initializeMemory(as: UInt8.self, repeating: 0, count: 512)
        guard statfs(path, buffer) == 0 else { return nil }
        // CIFS's magic has the top bit set: compare the low 32 bits.
        return UInt32(truncatingIfNeeded: buffer.load(as: Int.self))
    }

    private typealias StatFS = @convention(c) (UnsafePointer<CChar>, UnsafeMutableRawPointer) -> Int32
    private static let statfs: StatFS? = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "statfs")
        .map { unsafeBitCast($0, to: StatFS.self) }

    public func startEvents() throws(WatchError) {
        if session == nil { session = try InotifySession() }
    }

    public func watchFolder(_ path: String, followingLink: Bool) throws(WatchError) -> Int32 {
        guard let session else { throw .initialize(errno: EBADF) }
        return try session.watchFolder(path, followingLink: followingLink)
    }

    public func removeWatch(_ watch: Int32) { session?.removeWatch(watch) }

    public func readEvents() -> [FolderEvent] { session?.pendingEvents() ?? [] }

    public func wait(seconds: Double) {
        guard seconds > 0 else { return }
        if let session {
            session.waitForEvents(seconds: seconds)
        } else {
            var pause = timespec(tv_sec: Int(seconds), tv_nsec: Int((seconds - seconds.rounded(.down)) * 1e9))
            nanosleep(&pause, nil)
        }
    }
}
