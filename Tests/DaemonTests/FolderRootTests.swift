import Daemon
import Foundation
import Glibc
import System
import TestSupport
import Testing

/// FolderRoot on real folders: what lies below a root is decided on bytes, and the kernel refuses
/// every way out (a link on the path, `..`), however the path was built.
@Suite struct FolderRootTests {
    func world() throws -> (Scratch, FolderRoot, outside: String) {
        let scratch = try Scratch()
        for folder in ["root/sub", "outside"] {
            try FileManager.default.createDirectory(atPath: scratch.path + "/" + folder, withIntermediateDirectories: true)
        }
        return (scratch, try FolderRoot(scratch.path + "/root"), scratch.path + "/outside")
    }

    @Test func belowIsDecidedOnBytes() {
        let nfc = "/srv/caf\u{E9}", nfd = "/srv/cafe\u{301}"
        #expect(nfc == nfd, "Swift takes them for one string")
        #expect(FolderRoot.relative(nfd + "/a.pdf", to: nfc) == nil)
        #expect(FolderRoot.relative(nfc + "/a.pdf", to: nfc) == "a.pdf")
        #expect(FolderRoot.relative(nfc + "/x/../../etc/passwd", to: nfc) == nil, "no climbing")
        #expect(FolderRoot.relative(nfc + "other/a.pdf", to: nfc) == nil, "a sibling with a longer name")
        #expect(FolderRoot.relative("/srv/a//b/", to: "/srv/") == "a/b")
    }

    @Test func aLinkOnThePathIsRefusedByTheKernel() throws {
        let (scratch, root, outside) = try world()
        try FileManager.default.createSymbolicLink(atPath: scratch.path + "/root/out", withDestinationPath: outside)
        let refusals: [() throws -> Void] = [
            { try root.replace(scratch.path + "/root/out/x.txt", with: Data("x".utf8)) },
            { try root.makeFolder(scratch.path + "/root/out/deeper") },
            { _ = try root.open(scratch.path + "/root/out/x.txt", flags: O_WRONLY | O_CREAT) },
        ]
        for refusal in refusals {
            #expect { try refusal() } throws: { ($0 as? Durable.Failure)?.outside != nil }
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: outside).isEmpty)
        // The link itself is no file to open, and removing it removes the link, not what it points at.
        try FileManager.default.createSymbolicLink(atPath: scratch.path + "/root/file", withDestinationPath: outside + "/kept")
        _ = try scratch.write("outside/kept", "kept")
        #expect(throws: Durable.Failure.self) { _ = try root.open(scratch.path + "/root/file", flags: O_RDONLY) }
        #expect(root.read(scratch.path + "/root/file") == nil)
        try root.remove(scratch.path + "/root/file")
        #expect(FileManager.default.fileExists(atPath: outside + "/kept"))
        #expect(root.status(scratch.path + "/root/file") == nil)
    }

    @Test func movesNeverReplaceAndNumberTakenNames() throws {
        let (scratch, root, _) = try world()
        for (name, text) in [("a.png", "first"), ("b.png", "second"), ("c.png", "third")] { _ = try scratch.write("root/" + name, text) }
        let first = try FolderRoot.move(scratch.path + "/root/a.png", in: root, to: scratch.path + "/root/sub/x.png", in: root)
        let second = try FolderRoot.move(scratch.path + "/root/b.png", in: root, to: scratch.path + "/root/sub/x.png", in: root)
        let third = try FolderRoot.move(scratch.path + "/root/c.png", in: root, to: scratch.path + "/root/sub/x.png", in: root)
        #expect([first, second, third].map { ($0 as NSString).lastPathComponent } == ["x.png", "x-2.png", "x-3.png"])
        #expect(try String(contentsOfFile: first, encoding: .utf8) == "first")
        #expect(try String(contentsOfFile: third, encoding: .utf8) == "third")
    }

    @Test func namesAreKeptWithin255Bytes() throws {
        let (scratch, root, _) = try world()
        let long = String(repeating: "é", count: 127) + ".png"
        #expect(long.utf8.count == 258)
        _ = try scratch.write("root/short.png", "picture")
        let placed = try FolderRoot.move(scratch.path + "/root/short.png", in: root, to: scratch.path + "/root/sub/" + long,
                                         in: root, reserve: 8)
        let name = (placed as NSString).lastPathComponent
        #expect(name.utf8.count <= 247 && name.hasSuffix(".png") && name.hasPrefix("éé"), "\(name.utf8.count) bytes")
        try root.replace(placed + ".why.txt", with: Data("note".utf8))
        #expect(FileManager.default.fileExists(atPath: placed + ".why.txt"))
    }

    @Test func createWritesANewFileWholeAndNeverOverAnother() throws {
        let (scratch, root, _) = try world()
        let path = scratch.path + "/root/sub/sig.json"
        try root.create(path, with: Data("first".utf8))
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "first")
        #expect { try root.create(path, with: Data("second".utf8)) } throws: { ($0 as? Durable.Failure)?.code == EEXIST }
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "first", "the file that had the name is untouched")
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.path + "/root/sub") == ["sig.json"],
                "no temporary file is left")
    }
}
