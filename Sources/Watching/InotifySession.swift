import CInotifyTools
import Glibc

/// A folder event seen by inotify: the full path and the raw event mask.
public struct FolderEvent: Sendable, Equatable {
    public var path: String
    public var mask: UInt32

    public var isCloseWrite: Bool { mask & UInt32(IN_CLOSE_WRITE) != 0 }
    public var isMovedTo: Bool { mask & UInt32(IN_MOVED_TO) != 0 }
    public var isOverflow: Bool { mask & UInt32(IN_Q_OVERFLOW) != 0 }
}

public enum WatchError: Error, Sendable, CustomStringConvertible {
    case initialize(errno: Int32)
    case watch(path: String, errno: Int32)

    public var description: String {
        switch self {
        case .initialize(let code): "inotify: initialize: \(String(cString: strerror(code)))"
        case .watch(let path, let code): "inotify: watch \(path): \(String(cString: strerror(code)))"
        }
    }
}

/// libinotifytools keeps one inotify instance per process in global state, so this session is the
/// only door to it: create one, watch folders, read events, and let it go to clean up.
public final class InotifySession {
    public static let folderEvents = UInt32(IN_CLOSE_WRITE | IN_MOVED_TO | IN_CREATE | IN_DELETE_SELF)

    public init() throws(WatchError) {
        guard inotifytools_initialize() != 0 else { throw .initialize(errno: Int32(inotifytools_error())) }
    }

    deinit { inotifytools_cleanup() }

    /// Watches a folder and every folder below it.
    public func watchRecursively(_ folder: String, events: UInt32 = folderEvents) throws(WatchError) {
        guard inotifytools_watch_recursively(folder, Int32(bitPattern: events)) != 0 else {
            throw .watch(path: folder, errno: Int32(inotifytools_error()))
        }
    }

    /// The next event, or nil when none came within `timeoutSeconds` (0 returns at once).
    public func nextEvent(timeoutSeconds: Int) -> FolderEvent? {
        guard let event = inotifytools_next_event(timeoutSeconds) else { return nil }
        let mask = event.pointee.mask
        guard let directory = inotifytools_filename_from_wd(event.pointee.wd) else {
            return FolderEvent(path: "", mask: mask)
        }
        var path = String(cString: directory)
        if event.pointee.len > 0 {
            // The name is a NUL-padded array that follows the struct.
            let name = UnsafeRawPointer(event).advanced(by: MemoryLayout<inotify_event>.size)
                .assumingMemoryBound(to: CChar.self)
            path += String(cString: name)
        }
        return FolderEvent(path: path, mask: mask)
    }
}
