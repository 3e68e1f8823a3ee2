import Foundation
import Testing
@testable import Watching

/// Settling: nothing is taken while it is still being written, each write restarts the quiet time.
extension OneInotifyAtATime {
    @Suite struct FolderWatcherSettleTests {
        /// Scripted clock: a writer that closes after each chunk restarts the 5 s settle time each time.
        @Test func slowWriterIsNotTakenUntilItSettles() throws {
            let dir = try TestFolder()
            let system = ScriptedClockSystem()
            let watcher = FolderWatcher([folder(dir.path, settle: 5)], system: system)
            _ = try watcher.start()

            try dir.write("scan.pdf", "chunk 1;")        // t = 0: due at 5
            #expect(watcher.next(timeout: 3).isEmpty)     // t = 3
            try dir.append("scan.pdf", "chunk 2;")        // due at 8
            #expect(watcher.next(timeout: 3).isEmpty)     // t = 6: the first close alone would have made it ready at 5
            try dir.append("scan.pdf", "chunk 3;")        // due at 11
            #expect(watcher.next(timeout: 4.5).isEmpty)   // t = 10.5
            let ready = watcher.next(timeout: 5)
            #expect(ready.map(\.relativePath) == ["scan.pdf"])
            #expect(system.clock == 11)
            #expect(dir.size("scan.pdf") == 24)
            #expect(watcher.next(timeout: 30).isEmpty)    // once only
        }

        /// Real time: a writer thread appends a chunk every 150 ms (opening and closing each time) for
        /// 1.2 s; settle is 0.5 s. Nothing may come out before the writer is done, and then exactly once.
        @Test func slowWriterInRealTime() throws {
            let dir = try TestFolder()
            let watcher = FolderWatcher([folder(dir.path, settle: 0.5)])
            _ = try watcher.start()
            try dir.write("slow.pdf", "0")
            let done = Flag(false)
            let writer = Thread {
                for chunk in 1...8 {
                    usleep(150_000)
                    try? dir.append("slow.pdf", "\(chunk)")
                }
                done.set(true)
            }
            writer.start()
            var taken: [ReadyEntry] = []
            while !done.get() {
                let batch = watcher.next(timeout: 0.1)
                #expect(batch.isEmpty || done.get(), "taken while still being written: \(batch)")
                taken += batch
            }
            taken += watcher.collect(1, within: 3, step: 0.5)
            #expect(taken.map(\.relativePath) == ["slow.pdf"])
            #expect(dir.size("slow.pdf") == 9)
        }

        /// A writer that keeps the file open and writes without closing (no IN_CLOSE_WRITE) is found by
        /// the start-up scan, and held back as long as its size keeps changing.
        @Test func fileKeptOpenAndGrowingIsHeldBack() throws {
            let dir = try TestFolder()
            try dir.write("open.pdf", "start;")
            let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: dir.at("open.pdf")))
            try handle.seekToEnd()
            let system = ScriptedClockSystem()
            let watcher = FolderWatcher([folder(dir.path, settle: 2)], system: system)
            _ = try watcher.start()
            for _ in 0..<4 {
                try handle.write(contentsOf: Data("more;".utf8))
                #expect(watcher.next(timeout: 1.5).isEmpty)
            }
            try handle.close()
            #expect(watcher.next(timeout: 3).map(\.relativePath) == ["open.pdf"])
        }

        /// Deleted or moved away while settling: never handed over, nothing left pending.
        @Test func fileGoneBeforeSettlingNeverComesOut() throws {
            let dir = try TestFolder(), outside = try TestFolder()
            let watcher = FolderWatcher([folder(dir.path, settle: 2)], system: ScriptedClockSystem())
            _ = try watcher.start()
            try dir.write("deleted.pdf")
            try dir.write("moved.pdf")
            #expect(watcher.next(timeout: 1).isEmpty)
            try FileManager.default.removeItem(atPath: dir.at("deleted.pdf"))
            try rename(dir.at("moved.pdf"), outside.at("moved.pdf"))
            #expect(watcher.next(timeout: 10).isEmpty)
            #expect(watcher.pendingCount == 0)
        }
    }
}

/// A tiny lock-guarded flag for the writer thread.
final class Flag<Value>: @unchecked Sendable {
    private var value: Value
    private let lock = NSLock()
    init(_ value: Value) { self.value = value }
    func get() -> Value { lock.withLock { value } }
    func set(_ new: Value) { lock.withLock { value = new } }
}
