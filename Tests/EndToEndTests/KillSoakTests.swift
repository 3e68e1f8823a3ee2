import Foundation
import Glibc
import TestSupport
import Testing

/// The daemon is killed with SIGKILL at random moments while files keep arriving, and restarted.
/// At the end every input is in its target exactly once and archived, and every target is whole.
/// `PDFTRAPPER_KILLS` sets how many kills (CI runs a short version).
@Suite struct KillSoakTests {
    @Test func survivesKillsAtRandomMoments() throws {
        let kills = Int(ProcessInfo.processInfo.environment["PDFTRAPPER_KILLS"] ?? "") ?? 12
        let perRound = 20
        let scratch = try Scratch()
        try scratch.write("config.toml", """
            [daemon]
            state_dir = "state"
            [library]
            root = "library"
            [inbox]
            path = "inbox"
            settle = "100ms"
            rescan_interval = "1s"
            [[rule]]
            name = "a"
            target = "A.pdf"
            archive_as = "{name}"
            match = { folder = "a" }
            [[rule]]
            name = "b"
            target = "B.pdf"
            archive_as = "{name}"
            match = { folder = "b" }

            """)
        var generator = SystemRandomNumberGenerator()
        var dropped: [String: String] = [:]  // name -> target
        for round in 0...kills {
            let daemon = try DaemonProcess(config: scratch.path + "/config.toml", in: scratch.url)
            #expect(daemon.notify.wait(for: "READY=1", timeout: 30), "round \(round): \(daemon.log)")
            guard round < kills else {
                // The last run: let it finish everything, then stop cleanly.
                #expect(eventually(timeout: 120) { inboxIsEmpty(scratch) }, "left: \(daemon.log.suffix(800))")
                #expect(daemon.stop() == 0)
                break
            }
            let names = (0..<perRound).map { "r\(round)-\($0).png" }
            _ = try Python.run("""
                import sys, os
                from PIL import Image
                root, round_ = sys.argv[1], int(sys.argv[2])
                for i, name in enumerate(sys.argv[3:]):
                    folder = "a" if i % 2 == 0 else "b"
                    os.makedirs(os.path.join(root, "inbox", folder), exist_ok=True)
                    staging = os.path.join(root, "staging-" + name)
                    Image.new("L", (16 + i, 16 + round_), (i * 20 + round_) % 256).save(staging)
                    os.rename(staging, os.path.join(root, "inbox", folder, name))
                """, [scratch.path, "\(round)"] + names)
            for (index, name) in names.enumerated() { dropped[name] = index % 2 == 0 ? "A.pdf" : "B.pdf" }
            usleep(UInt32.random(in: 0...400_000, using: &generator))
            daemon.signal(SIGKILL)
            daemon.process.waitUntilExit()
        }

        // Every input: in its target exactly once, archived, and nowhere else.
        var ingested: [String: [String]] = [:]
        for target in ["A.pdf", "B.pdf"] {
            let path = scratch.path + "/library/" + target
            let expected = dropped.values.filter { $0 == target }.count
            try PDFReaders.requireAllAgree(path, pages: expected)
            let history = try Binary.run(["history", path]).stdout
            for line in history.split(separator: "\n") {
                for piece in line.split(separator: " ") where piece.hasSuffix(".png") {
                    ingested[String(piece), default: []].append(target)
                }
            }
        }
        for (name, target) in dropped {
            #expect(ingested[name] == [target], "\(name): in \(ingested[name] ?? []) instead of once in \(target)")
            #expect(FileManager.default.fileExists(atPath: scratch.path + "/archive/" + name), "\(name) not archived")
        }
        #expect(ingested.count == dropped.count)
        let quarantined = (try? FileManager.default.contentsOfDirectory(atPath: scratch.path + "/quarantine")) ?? []
        #expect(quarantined.isEmpty, "quarantined: \(quarantined)")
        print("kill soak: \(kills) kills survived, \(dropped.count) inputs, each ingested exactly once")
    }

    func inboxIsEmpty(_ scratch: Scratch) -> Bool {
        let files = (FileManager.default.enumerator(atPath: scratch.path + "/inbox")?.allObjects as? [String]) ?? []
        return !files.contains { $0.hasSuffix(".png") }
    }
}
