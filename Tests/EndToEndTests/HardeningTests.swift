import Foundation
import Glibc
import TestSupport
import Testing

/// Faults a new user meets: a target damaged past its tail, a full or read-only disk under the
/// library, a symlinked folder in the library used from the command line, a config with several
/// problems. Each is checked from outside: exit codes, messages, readers, bytes.
@Suite struct HardeningTests {
    /// Damage that qpdf and poppler read past with warnings, made in a two-revision target.
    enum Damage: String, CaseIterable, Sendable {
        case wrongStartxref = "startxref points at the wrong offset"
        case brokenPrev = "the /Prev chain is broken"
        case objectCutAtEOF = "an object is cut short at the end"
        case wrongEntryLengths = "the xref entries are 19 bytes, not 20"
    }

    func damaged(_ damage: Damage, in scratch: Scratch) throws -> String {
        let target = scratch.path + "/T.pdf"
        try TestImages.make(scratch.path + "/a.png", width: 100)
        try TestImages.make(scratch.path + "/b.png", width: 200)
        for input in ["a.png", "b.png"] {
            let made = try Binary.run(["ingest", "--to", "T.pdf", input], in: scratch.url)
            try #require(made.status == 0, "\(made.stderr)")
        }
        _ = try Python.run("""
            import sys, re
            path, damage = sys.argv[1], sys.argv[2]
            data = open(path, "rb").read()
            if damage == "wrongStartxref":
                at = data.rindex(b"startxref\\n") + 10
                end = data.index(b"\\n", at)
                data = data[:at] + str(int(data[at:end]) + 7).encode() + data[end:]
            elif damage == "brokenPrev":
                at = data.rindex(b"/Prev ") + 6
                end = at
                while data[end:end + 1].isdigit(): end += 1
                data = data[:at] + b"17" + data[end:]
            elif damage == "objectCutAtEOF":
                data += b"99 0 obj\\n<< /Type /Page /Parent 2 0 R /Contents ["
            elif damage == "wrongEntryLengths":
                data = re.sub(rb"(\\d{10} \\d{5} [nf]) \\n", rb"\\1\\n", data)
            open(path, "wb").write(data)
            """, [target, "\(damage)"])
        return target
    }

    @Test(arguments: Damage.allCases)
    func damageFoundPastTheTailIsRepairedOrRefusedWhole(_ damage: Damage) throws {
        let scratch = try Scratch()
        let target = try damaged(damage, in: scratch)
        try TestImages.make(scratch.path + "/c.png", width: 300)
        let run = try Binary.run(["ingest", "--to", "T.pdf", "c.png"], in: scratch.url)
        #expect(run.status == 0, "\(damage.rawValue): \(run.stderr)")
        #expect(run.status != 74, "never 74 for damage")
        try PDFReaders.requireAllAgree(target, pages: 3)
        if damage == .brokenPrev || damage == .wrongStartxref {
            #expect(run.stderr.contains("damaged; repaired by a full rewrite"), "\(damage.rawValue): the log names it: \(run.stderr)")
        }
    }

    @Test func aTargetEvenTheRepairCannotReadIsRefusedWith65AndLeftAsItWas() throws {
        let scratch = try Scratch()
        var noise = Data("%PDF-1.7\n".utf8)
        var generator = SystemRandomNumberGenerator()
        noise.append(contentsOf: (0..<4096).map { _ in UInt8.random(in: 0...255, using: &generator) })
        try noise.write(to: URL(fileURLWithPath: scratch.path + "/T.pdf"))
        try TestImages.make(scratch.path + "/c.png", width: 300)
        let run = try Binary.run(["ingest", "--to", "T.pdf", "c.png"], in: scratch.url)
        #expect(run.status == 65, "\(run.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: scratch.path + "/T.pdf")) == noise, "byte-identical")
    }

    /// A picture of noise, 600 × 600: about 1 MB that no compression makes smaller.
    static func noise(_ path: String) throws {
        _ = try Python.run("""
            import sys, os
            from PIL import Image
            Image.frombytes("RGB", (600, 600), os.urandom(600 * 600 * 3)).save(sys.argv[1])
            """, [path])
    }

    /// A small tmpfs mounted over `folder` for the test's length (the suite runs as root).
    final class SmallDisk {
        let path: String
        init(_ path: String, size: String) throws {
            self.path = path
            try #require(getuid() == 0, "mounting a tmpfs for a full disk needs root, as CI has")
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
            let mounted = try PDFReaders.run("mount", ["-t", "tmpfs", "-o", "size=\(size)", "tmpfs", path])
            try #require(mounted.status == 0, "mount: \(mounted.stderr)")
        }
        /// Fills the disk but for 256 KiB: room for the journal and the state, none for a page.
        func fill() throws {
            _ = try Python.run("""
                import os, sys
                stat = os.statvfs(sys.argv[1])
                with open(sys.argv[1] + "/filler", "wb") as f:
                    f.write(b"\\0" * max(0, stat.f_bavail * stat.f_frsize - (256 << 10)))
                """, [path])
        }
        func free() throws { try FileManager.default.removeItem(atPath: path + "/filler") }
        deinit { _ = try? PDFReaders.run("umount", ["-l", path]) }
    }

    @Test func aFullDiskSaysWhichFileAndWhyAndTheTargetStaysWhole() throws {
        let scratch = try Scratch()
        let disk = try SmallDisk(scratch.path + "/library", size: "1m")
        try TestImages.make(scratch.path + "/a.png", width: 100)
        #expect(try Binary.run(["ingest", "--to", "library/A.pdf", "a.png"], in: scratch.url).status == 0)
        let before = try Data(contentsOf: URL(fileURLWithPath: disk.path + "/A.pdf"))
        try disk.fill()
        try Self.noise(scratch.path + "/noise.png")
        let run = try Binary.run(["ingest", "--to", "library/A.pdf", "noise.png"], in: scratch.url)
        #expect(run.status == 74, "\(run.stderr)")
        #expect(run.stderr.contains("\(disk.path)/A.pdf: No space left on device"), "\(run.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: disk.path + "/A.pdf")) == before)
    }

    @Test func aReadOnlyLibraryIsAnIOErrorNamingTheTarget() throws {
        let scratch = try Scratch()
        try TestImages.make(scratch.path + "/a.png", width: 100)
        try FileManager.default.createDirectory(atPath: scratch.path + "/library", withIntermediateDirectories: true)
        #expect(try Binary.run(["ingest", "--to", "library/A.pdf", "a.png"], in: scratch.url).status == 0)
        try #require(getuid() == 0, "a read-only bind mount needs root, as CI has")
        let library = scratch.path + "/library"
        #expect(try PDFReaders.run("mount", ["--bind", library, library]).status == 0)
        defer { _ = try? PDFReaders.run("umount", ["-l", library]) }
        #expect(try PDFReaders.run("mount", ["-o", "remount,bind,ro", library]).status == 0)
        let run = try Binary.run(["ingest", "--to", "library/A.pdf", "a.png"], in: scratch.url)
        #expect(run.status == 74, "\(run.stderr)")
        #expect(run.stderr.contains("\(library)/A.pdf: Read-only file system"), "\(run.stderr)")
    }

    /// A target its user may not write: an I/O error naming it (exit 74), never "no such input" (66).
    @Test func aTargetThatMayNotBeWrittenIsAnIOErrorNamingIt() throws {
        let scratch = try Scratch()
        try TestImages.make(scratch.path + "/a.png", width: 100)
        try FileManager.default.createDirectory(atPath: scratch.path + "/library", withIntermediateDirectories: true)
        #expect(try Binary.run(["ingest", "--to", "library/A.pdf", "a.png"], in: scratch.url).status == 0)
        try #require(getuid() == 0, "running as another user needs root, as CI has")
        // The state folder and the input are nobody's to use; the target is root's alone.
        try FileManager.default.createDirectory(atPath: scratch.path + "/nobody-state", withIntermediateDirectories: true)
        for path in [scratch.path, scratch.path + "/nobody-state", scratch.path + "/a.png"] { chmod(path, 0o777) }
        chmod(scratch.path + "/library/A.pdf", 0o644)
        let run = try PDFReaders.run("setpriv", ["--reuid=nobody", "--regid=nogroup", "--clear-groups", Binary.path,
                                                 "ingest", "--state-dir", scratch.path + "/nobody-state",
                                                 "--to", scratch.path + "/library/A.pdf", scratch.path + "/a.png"])
        #expect(run.status == 74, "\(run.stderr)")
        #expect(run.stderr.contains("\(scratch.path)/library/A.pdf: Permission denied"), "\(run.stderr)")
    }

    /// The daemon on a full library: one warning for the episode naming the file and the reason, the
    /// same in `status` and STATUS=, and the page lands once space is back.
    @Test func theDaemonWaitsOutAFullDiskAndSaysSoOnce() throws {
        let scratch = try Scratch()
        try scratch.write("config.toml", TestConfig.folders(inbox: "rescan_interval = \"1s\"") + """
            [[rule]]
            name = "all"
            target = "A.pdf"

            """)
        let disk = try SmallDisk(scratch.path + "/library", size: "4m")
        try TestImages.make(scratch.path + "/a.png", width: 100)
        #expect(try Binary.run(["ingest", "--to", "library/A.pdf", "a.png"], in: scratch.url).status == 0)
        try disk.fill()
        try FileManager.default.createDirectory(atPath: scratch.path + "/inbox", withIntermediateDirectories: true)
        let daemon = try DaemonProcess(config: scratch.path + "/config.toml", in: scratch.url)
        #expect(daemon.notify.wait(for: "READY=1"), "log: \(daemon.log)")
        try Self.noise(scratch.path + "/noise.png")
        try FileManager.default.moveItem(atPath: scratch.path + "/noise.png", toPath: scratch.path + "/inbox/noise.png")
        let reason = "\(disk.path)/A.pdf: No space left on device"
        #expect(eventually { daemon.log.contains(reason) }, "log: \(daemon.log)")
        #expect(daemon.notify.wait(for: "retrying 1: write \(reason)", timeout: 10), "STATUS= names it")
        let status = try Binary.run(["status", "--config", "config.toml"], in: scratch.url).stdout
        #expect(status.contains("retrying: noise.png: write \(reason)"), "\(status)")
        // The claims are tried again every 30 s, and a try that fails the same way again is not said
        // again (DaemonLoopTests.aRetryForTheSameReasonIsSaidOnceAnEpisode, on a scripted clock).
        try disk.free()
        #expect(eventually(timeout: 45) { (try? PDFReaders.pdfinfoPages(disk.path + "/A.pdf")) == 2 }, "log: \(daemon.log)")
        #expect(daemon.log.components(separatedBy: reason).count == 2, "one warning for the episode: \(daemon.log)")
        #expect(daemon.stop() == 0)
        try PDFReaders.requireAllAgree(disk.path + "/A.pdf", pages: 2)
    }

    /// `ingest --config` writes where the rules send it only below the library, as the daemon does.
    @Test func theCommandLineIsAsSafeAsTheDaemon() throws {
        let scratch = try Scratch()
        try scratch.write("config.toml", TestConfig.folders() + """
            [[rule]]
            name = "letters"
            target = "Letters/{stem}.pdf"

            """)
        _ = try scratch.write("decoy/keep.txt", "the decoy's own file")
        let before = ContainmentTests.snapshot(scratch.path + "/decoy")
        try FileManager.default.createDirectory(atPath: scratch.path + "/library", withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: scratch.path + "/library/Letters", withDestinationPath: scratch.path + "/decoy")
        try TestImages.make(scratch.path + "/bill.png", width: 100)
        let run = try Binary.run(["ingest", "--config", "config.toml", "bill.png"], in: scratch.url)
        #expect(run.status != 0)
        #expect(run.stderr.contains("leads outside the library \(scratch.path)/library"), "\(run.stderr)")
        #expect(ContainmentTests.snapshot(scratch.path + "/decoy") == before)
    }

    @Test func runWithABadConfigPrintsEachProblemOnItsOwnLine() throws {
        let scratch = try Scratch()
        try scratch.write("c.toml", "[library]\nroot = 3\n[inbox]\npath = \"in\"\nsettle = \"soon\"\n")
        let run = try Binary.run(["run", "--config", "c.toml"], in: scratch.url)
        #expect(run.status == 78)
        #expect(!run.stderr.contains("\\n"), "no literal \\n: \(run.stderr)")
        let problems = run.stderr.split(separator: "\n").filter { $0.contains("c.toml:") }
        #expect(problems.count >= 2, "\(run.stderr)")
        #expect(problems.allSatisfy { $0.contains("pdftrapper: ") }, "\(run.stderr)")
    }
}
