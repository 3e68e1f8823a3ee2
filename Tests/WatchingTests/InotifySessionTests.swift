import Foundation
import Testing
import Watching

/// libinotifytools has one instance per process, so these run one at a time.
@Suite(.serialized) struct InotifySessionTests {
    /// A real folder, a real write: libinotifytools reports the close-after-write with the file's path.
    @Test func seesAFileClosedAfterWriting() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("watch-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }

        let session = try InotifySession()
        try session.watchRecursively(dir.path)
        try Data("page".utf8).write(to: dir.appendingPathComponent("scan.jpg"))

        var seen: [FolderEvent] = []
        while let event = session.nextEvent(timeoutSeconds: 2) {
            seen.append(event)
            if event.isCloseWrite { break }
        }
        let closed = seen.first { $0.isCloseWrite }
        try #require(closed != nil, "events seen: \(seen)")
        #expect(closed?.path == dir.appendingPathComponent("scan.jpg").path)
    }

    @Test func refusesAFolderThatDoesNotExist() throws {
        let session = try InotifySession()
        #expect(throws: WatchError.self) { try session.watchRecursively("/nonexistent/\(UUID().uuidString)") }
    }
}
