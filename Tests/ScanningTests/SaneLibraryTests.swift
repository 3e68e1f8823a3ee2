import Foundation
import Scanning
import Testing

@Suite struct SaneLibraryTests {
    /// sane_init through a private config dir that loads only the `test` backend.
    @Test func saneInitReportsItsVersion() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("sane-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        try "test\n".write(to: dir.appendingPathComponent("dll.conf"), atomically: true, encoding: .utf8)
        setenv("SANE_CONFIG_DIR", dir.path, 1)
        let version = try SaneLibrary.version()
        #expect(version.hasPrefix("1."), "got \(version)")
    }
}
