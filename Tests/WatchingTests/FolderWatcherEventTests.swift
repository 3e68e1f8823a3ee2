import Foundation
import Glibc
import Testing
@testable import Watching

/// What comes out, and what never does: renames, folders, ignored names, files already there, and
/// entries that are not files.
extension OneInotifyAtATime {
    @Suite struct FolderWatcherEventTests {
        @Test func fileRenamedInComesOutAfterSettling() throws {
            let dir = try TestFolder(), staging = try TestFolder()
            let watcher = FolderWatcher([folder(dir.path, settle: 2)], system: ScriptedClockSystem())
            _ = try watcher.start()
            try staging.write("phone.jpg")
            try rename(staging.at("phone.jpg"), dir.at("phone.jpg"))
            #expect(watcher.next(timeout: 1.5).isEmpty)
            // Settling compares the file's real mtime with the scripted wall clock, which began
            // when the system was made: up to 1.5 s of a loaded machine's delay before the write
            // is allowed for (a CI run with a build beside it took over 0.5 s).
            let ready = watcher.next(timeout: 2)
            #expect(ready == [ReadyEntry(root: dir.path, path: dir.at("phone.jpg"), relativePath: "phone.jpg", kind: .file)])
        }

        /// Hidden files, partial downloads, NAS thumbnails folders and the like never come out, whether
        /// there before start or written after; `scan.pdf.part` renamed to `scan.pdf` does.
        @Test func ignoredNamesNeverComeOutButAPartRenamedToARealNameDoes() throws {
            let dir = try TestFolder()
            try dir.mkdir("@eaDir")
            try dir.write("@eaDir/old-thumb.jpg")
            try dir.write(".old-hidden.pdf")
            let system = ScriptedClockSystem()
            let watcher = FolderWatcher([folder(dir.path, settle: 1)], system: system)
            _ = try watcher.start()

            for name in [".hidden.pdf", "download.pdf.part", "Thumbs.db", "letter.pdf~", "chrome.crdownload", "x.tmp",
                         ".~lock.report.odt#", "._resource.pdf", ".syncthing.a.pdf.tmp"] { try dir.write(name) }
            try dir.mkdir("@eaDir/deeper")
            try dir.write("@eaDir/deeper/thumb.jpg")
            try dir.mkdir(".git")
            try dir.write(".git/config")
            try dir.write("scan.pdf.part", "half;")
            try dir.append("scan.pdf.part", "rest")
            try rename(dir.at("scan.pdf.part"), dir.at("scan.pdf"))

            let ready = watcher.collect(1, within: 20)
            #expect(ready.map(\.relativePath) == ["scan.pdf"])
        }

        @Test func filesPresentBeforeStartComeOutSettledByMtime() throws {
            let dir = try TestFolder()
            try dir.mkdir("2024/03")
            try dir.write("old.pdf")
            try dir.age("old.pdf", by: 3600)
            try dir.write("2024/03/older.pdf")
            try dir.age("2024/03/older.pdf", by: 7200)
            try dir.write("young.pdf")
            let watcher = FolderWatcher([folder(dir.path, settle: 5)], system: ScriptedClockSystem())
            _ = try watcher.start()
            // Old enough: ready at once, oldest first. The one just written waits out its settle time.
            #expect(watcher.next(timeout: 0).map(\.relativePath) == ["2024/03/older.pdf", "old.pdf"])
            #expect(watcher.next(timeout: 4).isEmpty)
            #expect(watcher.next(timeout: 2).map(\.relativePath) == ["young.pdf"])
        }

        @Test func subfoldersCreatedLaterAreWatched() throws {
            let dir = try TestFolder()
            let watcher = FolderWatcher([folder(dir.path, settle: 1)], system: ScriptedClockSystem())
            _ = try watcher.start()
            try dir.mkdir("a")
            try dir.write("a/one.pdf")          // may land before the watch on a/ exists: the scan of a/ finds it
            #expect(watcher.collect(1, within: 5).map(\.relativePath) == ["a/one.pdf"])
            try dir.mkdir("a/b/c")
            try dir.write("a/b/c/deep.pdf")
            try dir.write("a/two.pdf")
            #expect(Set(watcher.collect(2, within: 5).map(\.relativePath)) == ["a/b/c/deep.pdf", "a/two.pdf"])
        }

        /// A folder moved in with files (and a folder) inside: all of it is scanned, and it is watched.
        @Test func folderMovedInIsScannedAndWatched() throws {
            let dir = try TestFolder(), staging = try TestFolder()
            try staging.mkdir("batch/sub")
            for name in ["batch/p1.jpg", "batch/p2.jpg", "batch/sub/p3.jpg"] {
                try staging.write(name)
                try staging.age(name, by: 600)
            }
            let watcher = FolderWatcher([folder(dir.path, settle: 2)], system: ScriptedClockSystem())
            _ = try watcher.start()
            try rename(staging.at("batch"), dir.at("batch"))
            let ready = watcher.collect(3, within: 5)
            #expect(Set(ready.map(\.relativePath)) == ["batch/p1.jpg", "batch/p2.jpg", "batch/sub/p3.jpg"])
            #expect(ready.count == 3)
            try dir.write("batch/sub/p4.jpg")
            #expect(watcher.collect(1, within: 5).map(\.relativePath) == ["batch/sub/p4.jpg"])
        }

        /// A watched folder renamed inside the root keeps being watched under its new name; one moved out
        /// of the root is let go.
        @Test func foldersRenamedInsideAndMovedOut() throws {
            let dir = try TestFolder(), outside = try TestFolder()
            try dir.mkdir("a")
            try dir.mkdir("gone")
            let watcher = FolderWatcher([folder(dir.path, settle: 1)], system: ScriptedClockSystem())
            _ = try watcher.start()
            try rename(dir.at("a"), dir.at("b"))
            try rename(dir.at("gone"), outside.at("gone"))
            #expect(watcher.next(timeout: 2).isEmpty)
            try dir.write("b/new.pdf")
            try outside.write("gone/elsewhere.pdf")
            #expect(watcher.collect(1, within: 5).map(\.relativePath) == ["b/new.pdf"])
            #expect(watcher.pendingCount == 0)
        }

        /// Symlinks (never followed, not even to a folder), FIFOs and sockets come out with their kind, and are never opened:
        /// opening the FIFO (or the symlink, which points at another FIFO) for reading would block the
        /// test forever, and a non-blocking writer still finds no reader afterwards.
        @Test(.timeLimit(.minutes(1)))
        func entriesThatAreNotFilesComeOutWithTheirKindUnopened() throws {
            let dir = try TestFolder(), outside = try TestFolder()
            #expect(mkfifo(outside.at("target.fifo"), 0o600) == 0)
            #expect(symlink(outside.at("target.fifo"), dir.at("before.lnk")) == 0)
            let watcher = FolderWatcher([folder(dir.path, settle: 1)], system: ScriptedClockSystem())
            _ = try watcher.start()
            #expect(symlink(outside.at("target.fifo"), dir.at("link.pdf")) == 0)
            #expect(symlink("/nonexistent/dangling", dir.at("dangling.pdf")) == 0)
            #expect(mkfifo(dir.at("pipe.pdf"), 0o600) == 0)
            try outside.mkdir("folder")
            try outside.write("folder/behind-the-link.pdf")
            #expect(symlink(outside.at("folder"), dir.at("folder.lnk")) == 0)
            let socketDescriptor = try bindSocket(at: dir.at("socket.pdf"))
            defer { close(socketDescriptor) }

            let ready = watcher.collect(6, within: 5)
            let kinds = Dictionary(uniqueKeysWithValues: ready.map { ($0.relativePath, $0.kind) })
            #expect(kinds == ["before.lnk": .symlink, "link.pdf": .symlink, "dangling.pdf": .symlink, "pipe.pdf": .fifo,
                              "socket.pdf": .socket, "folder.lnk": .symlink])
            #expect(ready.count == 6)
            for fifo in [dir.at("pipe.pdf"), outside.at("target.fifo")] {
                let writer = open(fifo, O_WRONLY | O_NONBLOCK)
                #expect(writer == -1 && errno == ENXIO, "someone has \(fifo) open for reading")
                if writer >= 0 { close(writer) }
            }
        }
    }
}

/// A listening Unix socket at `path` (binding creates the socket file).
func bindSocket(at path: String) throws -> Int32 {
    let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    withUnsafeMutableBytes(of: &address.sun_path) { buffer in
        for (index, byte) in path.utf8.prefix(buffer.count - 1).enumerated() { buffer[index] = byte }
    }
    let bound = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
    }
    guard bound == 0 else { throw POSIXError(.EADDRINUSE) }
    return descriptor
}
