import Foundation
import TrapperCore
import TestSupport
import Testing

/// One library seen at two paths, as two hosts see a shared file system each at its own mount
/// point: a bind mount of the library stands for the second host. Both agree on every target's
/// lock, journal and undo history, which are named by the target's path inside the library.
/// (Tests/MultiHost runs the same on a real GlusterFS with two FUSE clients.)
@Suite(.serialized) struct TwoMountsTests {
    /// The library at `first` and, bind-mounted, at `second`; nil (the test skips) when this
    /// process may not mount.
    struct TwoMounts {
        let scratch: Scratch
        let first: String
        let second: String

        init?() throws {
            scratch = try Scratch()
            first = scratch.path + "/hostA/library"
            second = scratch.path + "/hostB/library"
            for folder in [first + "/.pdftrapper", second] {
                try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            }
            guard getuid() == 0, (try? PDFReaders.run("mount", ["--bind", first, second]))?.status == 0 else {
                print("TwoMountsTests: skipped, a bind mount needs root (tests run as root in CI)")
                return nil
            }
        }

        /// `pdftrapper ARGS` as the host whose library is at `library`, with that library's state.
        func run(_ library: String, _ arguments: [String], environment: [String: String] = [:]) throws -> Run {
            try Binary.run(arguments + ["--state-dir", library + "/.pdftrapper"], environment: environment, in: scratch.url)
        }

        func bytes() throws -> Data { try Data(contentsOf: URL(fileURLWithPath: first + "/T.pdf")) }

        func unmount() { _ = try? PDFReaders.run("umount", [second]) }
    }

    @Test func undoOnOneHostTakesBackTheOthersRevision() throws {
        guard let mounts = try TwoMounts() else { return }
        defer { mounts.unmount() }
        try TestImages.make(mounts.scratch.path + "/a.jpg")
        try TestImages.make(mounts.scratch.path + "/b.png", mode: "L")
        #expect(try mounts.run(mounts.first, ["ingest", "--to", mounts.first + "/T.pdf", "a.jpg"]).status == 0)
        let one = try mounts.bytes()
        #expect(try mounts.run(mounts.second, ["ingest", "--to", mounts.second + "/T.pdf", "b.png"]).status == 0)
        let two = try mounts.bytes()

        // Host A undoes host B's revision, and host B redoes it: one history, whatever the path.
        let undo = try mounts.run(mounts.first, ["undo", mounts.first + "/T.pdf"])
        #expect(undo.status == 0, "stderr: \(undo.stderr)")
        #expect(try mounts.bytes() == one)
        let redo = try mounts.run(mounts.second, ["redo", mounts.second + "/T.pdf"])
        #expect(redo.status == 0, "stderr: \(redo.stderr)")
        #expect(try mounts.bytes() == two)
        try PDFReaders.requireAllAgree(mounts.first + "/T.pdf", pages: 2)

        // What the state folder keeps names no mount point, only paths inside the library.
        let state = try FileManager.default.subpathsOfDirectory(atPath: mounts.first + "/.pdftrapper/targets")
            .filter { $0.hasSuffix(".json") }
            .map { try String(contentsOfFile: mounts.first + "/.pdftrapper/targets/" + $0, encoding: .utf8) }
        #expect(!state.isEmpty)
        for text in state {
            #expect(!text.contains("hostA") && !text.contains("hostB"), "a mount point in the shared state: \(text)")
        }
    }

    @Test(arguments: ["after-journal", "before-sync", "after-sync", "after-state"])
    func aRevisionCutShortOnOneHostIsRecoveredByTheOther(step: String) throws {
        guard let mounts = try TwoMounts() else { return }
        defer { mounts.unmount() }
        try TestImages.make(mounts.scratch.path + "/a.jpg")
        #expect(try mounts.run(mounts.first, ["ingest", "--to", mounts.first + "/T.pdf", "a.jpg"]).status == 0)
        let old = try mounts.bytes()

        let killed = try mounts.run(mounts.first, ["ingest", "--to", mounts.first + "/T.pdf", "a.jpg"],
                                    environment: ["PDFTRAPPER_CRASH_AT": step])
        #expect(killed.status == 9, "expected SIGKILL at \(step), got \(killed.status): \(killed.stderr)")
        // Host B's next revision finds host A's journal record for the same file, and recovers it
        // first: rolled back, or kept when it was counted.
        let next = try mounts.run(mounts.second, ["ingest", "--to", mounts.second + "/T.pdf", "a.jpg"])
        #expect(next.status == 0, "stderr: \(next.stderr)")
        let after = try mounts.bytes()
        if step == "after-state" {
            try PDFReaders.requireAllAgree(mounts.first + "/T.pdf", pages: 3)
        } else {
            #expect(after.prefix(old.count) == old)
            try PDFReaders.requireAllAgree(mounts.first + "/T.pdf", pages: 2)
        }
        let journal = try FileManager.default.contentsOfDirectory(atPath: mounts.first + "/.pdftrapper/journal")
        #expect(journal.isEmpty, "journal records left: \(journal)")
    }

    /// A state folder from before targets were named inside the library (keyed by the SHA-256 of
    /// the absolute path, paths absolute): its undo history is still found, and moved to the new key.
    @Test func undoHistoryKeyedTheOldWayIsStillFound() throws {
        let scratch = try Scratch()
        let library = scratch.path + "/library"
        try FileManager.default.createDirectory(atPath: library + "/.pdftrapper", withIntermediateDirectories: true)
        try TestImages.make(scratch.path + "/a.jpg")
        let run = { (arguments: [String]) in try Binary.run(arguments + ["--state-dir", library + "/.pdftrapper"], in: scratch.url) }
        #expect(try run(["ingest", "--to", library + "/T.pdf", "a.jpg"]).status == 0)
        let one = try Data(contentsOf: URL(fileURLWithPath: library + "/T.pdf"))
        #expect(try run(["ingest", "--to", library + "/T.pdf", "a.jpg"]).status == 0)

        let targets = library + "/.pdftrapper/targets"
        let saved = try #require(try FileManager.default.contentsOfDirectory(atPath: targets).first { $0.hasSuffix(".json") })
        let text = try String(contentsOfFile: targets + "/" + saved, encoding: .utf8)
        #expect(text.contains(#""target" : "T.pdf""#), "named inside the library: \(text)")
        let legacyKey = String(SHA256.hex(SHA256.hash(Array((library + "/T.pdf").utf8))).prefix(32))
        try text.replacingOccurrences(of: #""target" : "T.pdf""#, with: #""target" : "\#(library)/T.pdf""#)
            .write(toFile: targets + "/" + legacyKey + ".json", atomically: true, encoding: .utf8)
        try FileManager.default.removeItem(atPath: targets + "/" + saved)

        let undo = try run(["undo", library + "/T.pdf"])
        #expect(undo.status == 0, "stderr: \(undo.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: library + "/T.pdf")) == one)
        #expect(!FileManager.default.fileExists(atPath: targets + "/" + legacyKey + ".json"))
    }
}
