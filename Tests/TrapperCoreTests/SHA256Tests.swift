import Foundation
import Testing
import TrapperCore

@Suite struct SHA256Tests {
    @Test(arguments: [
        ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
        ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        ("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
         "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"),
    ])
    func knownDigests(text: String, digest: String) {
        #expect(SHA256.hex(SHA256.hash(Array(text.utf8))) == digest)
    }

    @Test func piecesHashLikeTheWhole() throws {
        let bytes = (0..<100_003).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        var hasher = SHA256()
        var index = 0
        for size in [1, 63, 64, 65, 1000, 7] {
            hasher.update(bytes[index..<(index + size)])
            index += size
        }
        hasher.update(bytes[index...])
        #expect(hasher.finish() == SHA256.hash(bytes))
    }

    @Test func agreesWithSha256sum() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("sha-\(UUID().uuidString)")
        let bytes = (0..<1_000_000).map { UInt8(truncatingIfNeeded: $0 ^ ($0 >> 8)) }
        try Data(bytes).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/sha256sum")
        process.arguments = [file.path]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(output.hasPrefix(SHA256.hex(SHA256.hash(bytes))))
    }
}
