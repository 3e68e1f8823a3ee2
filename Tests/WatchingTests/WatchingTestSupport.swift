import Foundation
import Glibc
import Testing
import TrapperCore
@testable import Watching

/// libinotifytools keeps one instance per process, so every test that touches inotify lives under this
/// suite and runs one at a time.
@Suite(.serialized) enum OneInotifyAtATime {}

/// The real system (real folders, real inotify) with a scripted clock: time passes only while the
/// watcher waits, by exactly what it asked for, so settle times of seconds cost milliseconds. Events can
/// be dropped (to play "missed") or injected (an overflow), and the file system type can be faked.
final class ScriptedClockSystem: WatchSystem {
    let real = RealWatchSystem()
    private(set) var clock: Double = 0
    private let wallAtStart = RealWatchSystem().wallClockSeconds()
    var fileSystemTypeOverride: UInt32?
    var dropEvent: (FolderEvent) -> Bool = { _ in false }
    var injected: [FolderEvent] = []
    private(set) var startedEvents = false
    var failStartEvents: WatchError?

    func monotonicSeconds() -> Double { clock }
    func wallClockSeconds() -> Double { wallAtStart + clock }
    func status(of path: String, followingLink: Bool) -> EntryStatus? { real.status(of: path, followingLink: followingLink) }
    func names(in folder: String) -> [String]? { real.names(in: folder) }
    func fileSystemType(of path: String) -> UInt32? { fileSystemTypeOverride ?? real.fileSystemType(of: path) }
    func startEvents() throws(WatchError) {
        if let failStartEvents { throw failStartEvents }
        try real.startEvents()
        startedEvents = true
    }
    func watchFolder(_ path: String, followingLink: Bool) throws(WatchError) -> Int32 {
        try real.watchFolder(path, followingLink: followingLink)
    }
    func removeWatch(_ watch: Int32) { real.removeWatch(watch) }
    func readEvents() -> [FolderEvent] {
        defer { injected = [] }
        return injected + real.readEvents().filter { !dropEvent($0) }
    }
    func wait(seconds: Double) {
        real.wait(seconds: min(seconds, 0.01))
        clock += seconds
    }
}

/// A fresh folder under the temporary directory, removed afterwards, with the file operations the
/// tests need.
final class TestFolder: @unchecked Sendable {
    let url: URL
    var path: String { url.path }

    init(_ label: String = "watch") throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("\(label)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: url) }

    func at(_ relative: String) -> String { path + "/" + relative }

    @discardableResult
    func write(_ relative: String, _ text: String = "page") throws -> String {
        let target = at(relative)
        try Data(text.utf8).write(to: URL(fileURLWithPath: target))
        return target
    }

    /// Opens for appending, writes, closes: one IN_CLOSE_WRITE.
    func append(_ relative: String, _ text: String) throws {
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: at(relative)))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data(text.utf8))
        try handle.close()
    }

    func mkdir(_ relative: String) throws {
        try FileManager.default.createDirectory(atPath: at(relative), withIntermediateDirectories: true)
    }

    /// Sets the modification time `seconds` in the past (no inotify event we watch for: IN_ATTRIB).
    func age(_ relative: String, by seconds: Double) throws {
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: -seconds)], ofItemAtPath: at(relative))
    }

    func size(_ relative: String) -> Int {
        (try? FileManager.default.attributesOfItem(atPath: at(relative))[.size] as? Int) ?? -1
    }
}

func rename(_ from: String, _ to: String) throws {
    guard Glibc.rename(from, to) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
}

func folder(_ root: String, settle: Double, mode: WatchMode = .auto, poll: Double = 10, rescan: Double = 0,
            ignore: [String] = InboxSettings.defaultIgnore) -> WatchedFolder {
    WatchedFolder(root: root, settleSeconds: settle, mode: mode, pollSeconds: poll, rescanSeconds: rescan, ignore: ignore.map(Glob.init))
}

extension FolderWatcher {
    /// Calls `next` until `count` entries came out or `seconds` of the watcher's clock passed; then
    /// keeps listening a little longer so that duplicates would show.
    func collect(_ count: Int, within seconds: Double, step: Double = 1) -> [ReadyEntry] {
        var entries: [ReadyEntry] = []
        var waited = 0.0
        while entries.count < count && waited < seconds {
            let batch = next(timeout: step)
            if batch.isEmpty { waited += step }   // a productive call may return early
            entries += batch
        }
        entries += next(timeout: step)
        return entries
    }
}
