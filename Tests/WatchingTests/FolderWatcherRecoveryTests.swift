import Foundation
import Glibc
import Testing
@testable import Watching

/// Nothing left behind, nothing taken twice: polling, rescans, overflows, bursts.
extension OneInotifyAtATime {
    @Suite struct FolderWatcherRecoveryTests {
        /// watch = "poll": no inotify at all; a file is taken once size and mtime held still for the
        /// settle time between listings, and a file there before start is not trusted by its mtime.
        @Test func forcedPollingFindsFilesAndRespectsSettling() throws {
            let dir = try TestFolder()
            try dir.write("before.pdf")
            try dir.age("before.pdf", by: 3600)
            let system = ScriptedClockSystem()
            let watcher = FolderWatcher([folder(dir.path, settle: 5, mode: .poll, poll: 2)], system: system)
            let log = try watcher.start()
            #expect(log == ["polling \(dir.path) every 2s (watch = poll), settling 5s"])
            #expect(watcher.modes == [dir.path: "poll (watch = poll)"])
            #expect(!system.startedEvents)
            #expect(watcher.next(timeout: 4.5).isEmpty)                             // seen at 0, due at 5
            #expect(watcher.next(timeout: 1).map(\.relativePath) == ["before.pdf"])  // t = 5

            try dir.write("scan.pdf", "1;")                           // t = 5; the poll at 6 sees it: due at 11
            #expect(watcher.next(timeout: 3).isEmpty)                 // t = 8
            try dir.append("scan.pdf", "2;")                          // the poll at 10 sees it changed: due at 15
            #expect(watcher.next(timeout: 6).isEmpty)                 // t = 14: unchanged-since-11 would have been taken
            #expect(watcher.next(timeout: 2).map(\.relativePath) == ["scan.pdf"])
            #expect(system.clock == 15)
            #expect(watcher.next(timeout: 20).isEmpty)
        }

        /// watch = "auto" on NFS, SMB/CIFS, FUSE or 9p: polled, and the log says why. The temporary folder
        /// itself is local.
        @Test(arguments: [(0x6969, "nfs"), (0xFF53_4D42, "cifs"), (0xFE53_4D42, "smb2"), (0x6573_5546, "fuse"), (0x0102_1997, "9p")])
        func networkFileSystemsArePolled(magic: UInt32, name: String) throws {
            let dir = try TestFolder()
            let system = ScriptedClockSystem()
            system.fileSystemTypeOverride = magic
            let watcher = FolderWatcher([folder(dir.path, settle: 1, poll: 3)], system: system)
            #expect(try watcher.start() == ["polling \(dir.path) every 3s (\(name)), settling 1s"])
            #expect(watcher.modes[dir.path] == "poll (\(name))")
            try dir.write("share.pdf")
            #expect(watcher.collect(1, within: 10).map(\.relativePath) == ["share.pdf"])
            #expect(FileSystemKind.remoteName(RealWatchSystem().fileSystemType(of: dir.path)) == nil)
        }

        @Test func forcedInotifyOnAShareSaysWhatItMisses() throws {
            let dir = try TestFolder()
            let system = ScriptedClockSystem()
            system.fileSystemTypeOverride = 0x6969
            let watcher = FolderWatcher([folder(dir.path, settle: 1, mode: .inotify, rescan: 60)], system: system)
            let log = try watcher.start()
            #expect(log == ["watching \(dir.path) with inotify (watch = inotify, although it is on nfs: changes made by other machines will not be seen), settling 1s, rescanning every 60s"])
            #expect(watcher.modes[dir.path] == "inotify")
        }

        /// A hard link made in the inbox raises IN_CREATE only, never IN_CLOSE_WRITE: events miss it,
        /// the periodic rescan finds it.
        @Test func periodicRescanFindsWhatEventsMissed() throws {
            let dir = try TestFolder(), outside = try TestFolder()
            try outside.write("linked.pdf")
            try outside.age("linked.pdf", by: 3600)
            let watcher = FolderWatcher([folder(dir.path, settle: 2, rescan: 30)], system: ScriptedClockSystem())
            #expect(try watcher.start() == ["watching \(dir.path) with inotify, settling 2s, rescanning every 30s"])
            #expect(link(outside.at("linked.pdf"), dir.at("linked.pdf")) == 0)
            #expect(watcher.next(timeout: 25).isEmpty)
            #expect(watcher.next(timeout: 10).map(\.relativePath) == ["linked.pdf"])
            #expect(watcher.statistics.rescans == 1)
        }

        /// Handed over and left in place: rescans do not hand it over again; a change (a write, or just a
        /// new mtime that only a rescan sees) does.
        @Test func handedOverFileLeftInPlaceComesBackOnlyWhenItChanges() throws {
            let dir = try TestFolder()
            let watcher = FolderWatcher([folder(dir.path, settle: 1, rescan: 10)], system: ScriptedClockSystem())
            _ = try watcher.start()
            try dir.write("left.pdf")
            #expect(watcher.collect(1, within: 5).map(\.relativePath) == ["left.pdf"])
            #expect(watcher.next(timeout: 35).isEmpty)
            #expect(watcher.statistics.rescans >= 3)
            // Opened for writing and closed without a write: IN_CLOSE_WRITE, but the same version.
            try FileHandle(forWritingTo: URL(fileURLWithPath: dir.at("left.pdf"))).close()
            #expect(watcher.next(timeout: 5).isEmpty)
            #expect(watcher.statistics.events >= 1)
            try dir.append("left.pdf", " more")
            #expect(watcher.collect(1, within: 5).map(\.relativePath) == ["left.pdf"])
            try dir.age("left.pdf", by: 100)
            #expect(watcher.collect(1, within: 15).map(\.relativePath) == ["left.pdf"])
            #expect(watcher.next(timeout: 25).isEmpty)
        }

        /// The inbox folder removed and made again (a remount, a careless `rm -r`): the next rescan
        /// watches it again.
        @Test func rootRemovedAndMadeAgainIsWatchedAfterTheNextRescan() throws {
            let dir = try TestFolder()
            let watcher = FolderWatcher([folder(dir.path, settle: 1, rescan: 10)], system: ScriptedClockSystem())
            _ = try watcher.start()
            try FileManager.default.removeItem(atPath: dir.path)
            #expect(watcher.next(timeout: 12).isEmpty)    // the rescan at 10 finds no root, and says nothing is wrong
            try FileManager.default.createDirectory(atPath: dir.path, withIntermediateDirectories: false)
            #expect(watcher.next(timeout: 9).isEmpty)     // the rescan at 20 watches it again
            try dir.write("after.pdf")
            #expect(watcher.collect(1, within: 5).map(\.relativePath) == ["after.pdf"])
        }

        /// Scripted: events for two files are lost, then the kernel reports an overflow; the rescan it
        /// triggers hands both over, and nothing twice.
        @Test func overflowEventTriggersARescan() throws {
            let dir = try TestFolder()
            let system = ScriptedClockSystem()
            system.dropEvent = { $0.name.hasPrefix("lost") }
            let watcher = FolderWatcher([folder(dir.path, settle: 1)], system: system)
            _ = try watcher.start()
            try dir.write("kept.pdf")
            try dir.write("lost-1.pdf")
            try dir.write("lost-2.pdf")
            #expect(watcher.collect(1, within: 5).map(\.relativePath) == ["kept.pdf"])
            system.injected = [FolderEvent(watch: -1, name: "", path: "", mask: UInt32(IN_Q_OVERFLOW))]
            #expect(Set(watcher.collect(2, within: 5).map(\.relativePath)) == ["lost-1.pdf", "lost-2.pdf"])
            #expect(watcher.statistics.overflows == 1)
            #expect(watcher.next(timeout: 10).isEmpty)
        }
    }
}
