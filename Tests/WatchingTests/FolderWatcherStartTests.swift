import Foundation
import Glibc
import Testing
@testable import Watching

/// Start-up: which roots, which mode, and what is refused.
extension OneInotifyAtATime {
    @Suite struct FolderWatcherStartTests {
        /// The inbox and the edits folder beside it, each entry naming its own root.
        @Test func twoRootsEachHandTheirOwnEntries() throws {
            let inbox = try TestFolder("inbox"), edits = try TestFolder("edits")
            let watcher = FolderWatcher([folder(inbox.path, settle: 1), folder(edits.path, settle: 3)], system: ScriptedClockSystem())
            let log = try watcher.start()
            #expect(log.count == 2)
            #expect(watcher.modes == [inbox.path: "inotify", edits.path: "inotify"])
            try inbox.write("scan.pdf")
            try edits.write("rotate.edit")
            #expect(watcher.next(timeout: 2) == [ReadyEntry(root: inbox.path, path: inbox.at("scan.pdf"), relativePath: "scan.pdf", kind: .file)])
            #expect(watcher.next(timeout: 2) == [ReadyEntry(root: edits.path, path: edits.at("rotate.edit"), relativePath: "rotate.edit", kind: .file)])
        }

        /// No inotify to be had (instances used up, say): "auto" roots are polled and say why; a root
        /// that insists on inotify refuses to start.
        @Test func withoutInotifyAutoPollsAndForcedInotifyFails() throws {
            let dir = try TestFolder()
            let system = ScriptedClockSystem()
            system.failStartEvents = .initialize(errno: EMFILE)
            let watcher = FolderWatcher([folder(dir.path, settle: 1, poll: 2)], system: system)
            #expect(try watcher.start() == ["polling \(dir.path) every 2s (inotify unavailable: inotify: initialize: Too many open files), settling 1s"])
            #expect(watcher.modes[dir.path] == "poll (inotify unavailable)")
            try dir.write("still.pdf")
            #expect(watcher.collect(1, within: 10).map(\.relativePath) == ["still.pdf"])

            let forced = ScriptedClockSystem()
            forced.failStartEvents = .initialize(errno: EMFILE)
            #expect(throws: WatchError.self) { try FolderWatcher([folder(dir.path, settle: 1, mode: .inotify)], system: forced).start() }
        }

        @Test func refusesMissingAndOverlappingRoots() throws {
            let dir = try TestFolder()
            try dir.mkdir("edits")
            try dir.write("file.pdf")
            let cases: [[WatchedFolder]] = [
                [folder(dir.at("missing"), settle: 1)],
                [folder(dir.at("file.pdf"), settle: 1)],
                [folder(dir.path, settle: 1), folder(dir.at("edits"), settle: 1)],
                [folder(dir.at("edits"), settle: 1), folder(dir.path + "/", settle: 1)],
            ]
            for roots in cases {
                #expect(throws: WatchError.self) { try FolderWatcher(roots, system: ScriptedClockSystem()).start() }
            }
        }

        /// A root given through a symlink is followed (that one link only) and watched.
        @Test func rootReachedThroughASymlinkIsWatched() throws {
            let dir = try TestFolder(), links = try TestFolder()
            #expect(symlink(dir.path, links.at("inbox")) == 0)
            let watcher = FolderWatcher([folder(links.at("inbox"), settle: 1)], system: ScriptedClockSystem())
            _ = try watcher.start()
            try dir.write("through.pdf")
            #expect(watcher.collect(1, within: 5).map(\.path) == [links.at("inbox/through.pdf")])
        }
    }
}
