import Foundation
import Glibc
import Synchronization
import System
import Testing
import Watching

extension OneInotifyAtATime {
    @Suite struct InotifySessionTests {
        /// A real folder, a real write: libinotifytools reports the close-after-write with the file's path.
        @Test func seesAFileClosedAfterWriting() throws {
            let dir = try TestFolder()
            let session = try InotifySession()
            try session.watchRecursively(dir.path)
            try dir.write("scan.jpg")

            var seen: [FolderEvent] = []
            while let event = session.nextEvent(timeoutSeconds: 2) {
                seen.append(event)
                if event.isCloseWrite { break }
            }
            let closed = seen.first { $0.isCloseWrite }
            try #require(closed != nil, "events seen: \(seen)")
            #expect(closed?.path == dir.at("scan.jpg"))
            #expect(closed?.name == "scan.jpg")
        }

        @Test func refusesAFolderThatDoesNotExist() throws {
            let session = try InotifySession()
            #expect(throws: WatchError.self) { try session.watchRecursively("/nonexistent/\(UUID().uuidString)") }
        }

        /// libinotifytools' own next_event(0) blocks forever; ours must not, and waits are sub-second.
        @Test func readsWithoutBlockingAndWaitsLessThanASecond() throws {
            let dir = try TestFolder()
            let session = try InotifySession()
            #expect(session.fileDescriptor != nil)
            _ = try session.watchFolder(dir.path)
            let start = Date()
            #expect(session.nextEvent(timeoutSeconds: 0) == nil)
            #expect(session.pendingEvents().isEmpty)
            #expect(session.waitForEvents(seconds: 0.1) == false)
            // Returned at all: the bound is generous, a loaded machine is slow, a blocking read never returns.
            #expect(Date().timeIntervalSince(start) < 10)

            try dir.write("a.pdf")
            // The create and the close may come in separate reads: gather until the close is in.
            var seen: [Bool] = []
            for _ in 0..<50 where !seen.contains(true) {
                guard session.waitForEvents(seconds: 0.2) else { continue }
                seen += session.pendingEvents().map { $0.isCloseWrite && $0.name == "a.pdf" }
            }
            #expect(seen.contains(true))
        }

        /// The session finds libinotifytools' private descriptor by what is new among the process's
        /// inotify descriptors after opening it. Other threads open and close instances of their own
        /// meanwhile (the workspace's FileChanges beside the daemon's watcher): were one opened or
        /// closed at that moment, the session could take another's descriptor and add its watches
        /// there. Each session here, opened while another thread opens and closes instances as fast
        /// as it can, must hold libinotifytools' own: the one through which its watch shows in
        /// /proc/self/fdinfo (the folder's inode) and the folder's events come.
        @Test func findsItsOwnDescriptorWhileOtherInstancesComeAndGo() throws {
            let dir = try TestFolder()
            var status = stat()
            try #require(stat(dir.path, &status) == 0)
            let inode = "ino:" + String(status.st_ino, radix: 16)
            let stop = Atomic<Bool>(false)
            // one instance of its own always open, replaced by a new one over and over
            let churn = Thread {
                var held = InotifyInstances.open(flags: Int32(IN_CLOEXEC))
                while !stop.load(ordering: .relaxed) {
                    let next = InotifyInstances.open(flags: Int32(IN_CLOEXEC))
                    if held >= 0 { InotifyInstances.close(held) }
                    held = next
                }
                if held >= 0 { InotifyInstances.close(held) }
            }
            churn.start()
            defer { stop.store(true, ordering: .relaxed) }
            for round in 0..<200 {
                let session = try InotifySession()
                let descriptor = try #require(session.fileDescriptor, "round \(round): the session's descriptor was not told apart")
                let watch = try session.watchFolder(dir.path)
                let info = try String(contentsOfFile: "/proc/self/fdinfo/\(descriptor)", encoding: .utf8)
                try #require(info.split(separator: "\n").contains { $0.contains("wd:\(String(watch, radix: 16)) ") && $0.contains(inode + " ") },
                             "round \(round): descriptor \(descriptor) is another instance's: \(info)")
            }
        }

        @Test func onlyOneSessionPerProcess() throws {
            do {
                let first = try InotifySession()
                #expect(throws: WatchError.self) { _ = try InotifySession() }
                withExtendedLifetime(first) {}
            }
            _ = try InotifySession()   // free again once the first is gone
        }
    }
}
