import Foundation
import Glibc
import Testing
@testable import Watching

/// Many files at once, in real time: every one comes out, once. `WATCH_BURST_FILES=20000` for the long run.
extension OneInotifyAtATime {
    @Suite struct FolderWatcherBurstTests {
        static let burst = ProcessInfo.processInfo.environment["WATCH_BURST_FILES"].flatMap(Int.init) ?? 2000
        static let queueLimit = "/proc/sys/fs/inotify/max_queued_events"

        @Test func burstOfFilesAllComeOutExactlyOnce() throws {
            let dir = try TestFolder()
            try dir.mkdir("early-1")
            try dir.mkdir("early-2")
            let watcher = FolderWatcher([folder(dir.path, settle: 0.3)])
            _ = try watcher.start()
            let folders = ["", "early-1/", "early-2/", "late-1/", "late-2/"]
            var expected: Set<String> = []
            for index in 0..<Self.burst {
                if index == Self.burst / 3 { try dir.mkdir("late-1"); try dir.mkdir("late-2") }
                let name = folders[index % (index < Self.burst / 3 ? 3 : 5)] + "page-\(index).jpg"
                try dir.write(name, "page \(index)")
                expected.insert(name)
            }
            let ready = watcher.collect(Self.burst, within: 60, step: 0.5)
            let names = ready.map(\.relativePath)
            #expect(names.count == Self.burst, "overflows: \(watcher.statistics.overflows)")
            #expect(Set(names) == expected)
            #expect(watcher.pendingCount == 0)
            #expect(watcher.handedOverInPlaceCount == Self.burst)
            print("burst of \(Self.burst): \(watcher.statistics)")

            // The daemon takes them away: nothing stays remembered.
            for name in expected { try FileManager.default.removeItem(atPath: dir.at(name)) }
            // (20,000 deletions overflow the default queue too; reading it all may take a few calls.)
            for _ in 0..<20 where watcher.handedOverInPlaceCount > 0 { #expect(watcher.next(timeout: 0.5).isEmpty) }
            #expect(watcher.handedOverInPlaceCount == 0)
        }

        /// A real overflow: the queue limit is lowered to 32 for the moment the watcher's inotify instance
        /// is created (the kernel reads it then), and restored at once. 500 files written without reading
        /// overflow it; the rescan that follows recovers every one.
        @Test(.enabled(if: access(queueLimit, W_OK) == 0, "needs root to lower \(queueLimit)"))
        func realOverflowIsRecoveredByARescan() throws {
            let original = try String(contentsOfFile: Self.queueLimit, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
            let dir = try TestFolder()
            let watcher = FolderWatcher([folder(dir.path, settle: 0.3)])
            try "32".write(toFile: Self.queueLimit, atomically: false, encoding: .utf8)
            let started = Result { try watcher.start() }
            try original.write(toFile: Self.queueLimit, atomically: false, encoding: .utf8)
            #expect(try String(contentsOfFile: Self.queueLimit, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines) == original)
            _ = try started.get()

            let count = 500
            for index in 0..<count { try dir.write("overflow-\(index).pdf") }
            let ready = watcher.collect(count, within: 20, step: 0.5)
            #expect(watcher.statistics.overflows >= 1)
            #expect(ready.count == count)
            #expect(Set(ready.map(\.relativePath)) == Set((0..<count).map { "overflow-\($0).pdf" }))
        }
    }
}
