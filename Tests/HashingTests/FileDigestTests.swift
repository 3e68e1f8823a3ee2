import Foundation
import Hashing
import Testing
import TrapperCore

@Suite struct FileDigestTests {
    @Test func agreesWithTheCoreAndWithSha256sum() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("digest-\(UUID().uuidString)")
        let bytes = (0..<3_000_001).map { UInt8(truncatingIfNeeded: $0 &* 7 ^ ($0 >> 9)) }
        try Data(bytes).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let digest = try FileDigest.sha256(path: file.path)
        #expect(digest == SHA256.hash(bytes))
        #expect(FileDigest.sha256(Data(bytes)) == digest)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/sha256sum")
        process.arguments = [file.path]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(output.hasPrefix(SHA256.hex(digest)))
    }

    @Test func aDigestWorkedOutOnAnotherThreadIsTheSameAskedTwice() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("pending-\(UUID().uuidString)")
        let bytes = (0..<2_000_003).map { UInt8(truncatingIfNeeded: $0 &* 13 ^ ($0 >> 7)) }
        try Data(bytes).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let pending = FileDigest.Pending(path: file.path)
        #expect(try pending.value() == SHA256.hash(bytes))
        #expect(try pending.value() == SHA256.hash(bytes))
        #expect(throws: FileDigest.Failure.self) { try FileDigest.Pending(path: "/nonexistent/\(UUID().uuidString)").value() }
    }

    @Test func anUnreadableFileIsAFailure() {
        #expect(throws: FileDigest.Failure.self) { try FileDigest.sha256(path: "/nonexistent/\(UUID().uuidString)") }
    }
}
