import Foundation
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
