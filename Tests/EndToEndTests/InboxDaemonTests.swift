import Foundation
import Glibc
import TestSupport
import Testing

/// The real daemon on real folders: files are taken once complete, exactly once, whatever way they
/// arrive; systemd hears READY, STATUS and STOPPING; SIGHUP reloads; bad files go to quarantine.
@Suite struct InboxDaemonTests {
    static func config(settle: String = "300ms", extra: String = "") -> String {
        TestConfig.folders(settle: settle, inbox: "rescan_interval = \"2s\"" + (extra.isEmpty ? "" : "\n" + extra)) + """
        [[rule]]
        name = "all"
        target = "All.pdf"
        archive_as = "{folder}/{name}"

        """
    }

    func pages(_ path: String) -> Int { (try? PDFReaders.pdfinfoPages(path)) ?? 0 }

    @Test func takesCompleteFilesAndTellsSystemd() throws {
        let scratch = try Scratch()
        try scratch.write("config.toml", Self.config())
        try TestImages.make(scratch.path + "/waiting.jpg", width: 101)
        try FileManager.default.createDirectory(atPath: scratch.path + "/inbox", withIntermediateDirectories: true)
        // Dropped while the daemon was down: taken at start.
        try FileManager.default.moveItem(atPath: scratch.path + "/waiting.jpg", toPath: scratch.path + "/inbox/waiting.jpg")
        // WatchdogSec=1s, as systemd would pass it.
        let daemon = try DaemonProcess(config: scratch.path + "/config.toml", in: scratch.url,
                                       environment: ["WATCHDOG_USEC": "1000000"])
        #expect(daemon.notify.wait(for: "READY=1"), "log: \(daemon.log)")
        let all = scratch.path + "/library/All.pdf"
        #expect(eventually { pages(all) == 1 }, "log: \(daemon.log)")
        #expect(daemon.notify.wait(for: "WATCHDOG=1"))

        // A slow writer: half now, the rest later; not taken before it is complete.
        try TestImages.make(scratch.path + "/slow-source.jpg", width: 102)
        let whole = try Data(contentsOf: URL(fileURLWithPath: scratch.path + "/slow-source.jpg"))
        let slow = scratch.path + "/inbox/slow.jpg"
        FileManager.default.createFile(atPath: slow, contents: whole.prefix(whole.count / 2))
        for _ in 0..<4 {
            usleep(200_000)
            let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: slow))
            try handle.seekToEnd()
            try handle.close()
        }
        let appended = try FileHandle(forWritingTo: URL(fileURLWithPath: slow))
        try appended.seekToEnd()
        try appended.write(contentsOf: whole.suffix(from: whole.count / 2))
        try appended.close()
        #expect(eventually { pages(all) == 2 }, "log: \(daemon.log)")
        #expect(!daemon.log.contains("quarantined"), "the slow file was taken before it was complete: \(daemon.log)")

        // Renamed in from a temporary name, as sync tools do.
        try TestImages.make(scratch.path + "/inbox/.incoming.jpg", width: 103)
        try FileManager.default.moveItem(atPath: scratch.path + "/inbox/.incoming.jpg", toPath: scratch.path + "/inbox/renamed.jpg")
        #expect(eventually { pages(all) == 3 }, "log: \(daemon.log)")

        // A bad file: quarantined with its note, and the daemon goes on.
        try scratch.write("inbox/sub/broken.jpg", "no picture here")
        #expect(eventually { FileManager.default.fileExists(atPath: scratch.path + "/quarantine/sub/broken.jpg.why.txt") })
        try TestImages.make(scratch.path + "/inbox/after.jpg", width: 104)
        #expect(eventually { pages(all) == 4 }, "log: \(daemon.log)")
        #expect(daemon.notify.wait(for: "STATUS=watching 2 folders"))
        for name in ["waiting.jpg", "slow.jpg", "renamed.jpg", "after.jpg"] {
            #expect(FileManager.default.fileExists(atPath: scratch.path + "/archive/\(name)"), "\(name) archived")
        }
        try PDFReaders.requireAllAgree(all, pages: 4)

        let status = try Binary.run(["status", "--config", "config.toml"], in: scratch.url)
        #expect(status.status == 0)
        #expect(status.stdout.contains("pdftrapper: running (pid \(daemon.process.processIdentifier)"))
        #expect(status.stdout.contains("\(scratch.path)/inbox: inotify"))
        #expect(status.stdout.contains("ingested  after.jpg: 1 page into \(all)"))

        #expect(daemon.stop() == 0)
        #expect(daemon.notify.wait(for: "STOPPING=1"))
        #expect(try Binary.run(["status", "--config", "config.toml"], in: scratch.url).status == 3)
    }

    @Test func reloadKeepsTheOldConfigWhenTheNewOneIsBroken() throws {
        let scratch = try Scratch()
        try scratch.write("config.toml", Self.config())
        let daemon = try DaemonProcess(config: scratch.path + "/config.toml", in: scratch.url)
        #expect(daemon.notify.wait(for: "READY=1"))

        try scratch.write("config.toml", Self.config() + "[[rule]]\nname = \"x\"\ntarget = \"{nope}.pdf\"\n")
        daemon.signal(SIGHUP)
        #expect(daemon.notify.wait(for: "RELOADING=1"))
        #expect(eventually { daemon.log.contains("reload refused, keeping the running config") }, "log: \(daemon.log)")
        #expect(daemon.log.contains("config.toml:15:11: rule[2].target: unknown placeholder {nope}"), "log: \(daemon.log)")
        try TestImages.make(scratch.path + "/inbox/a.jpg")
        #expect(eventually { pages(scratch.path + "/library/All.pdf") == 1 }, "the old config still works")

        try scratch.write("config.toml", Self.config().replacingOccurrences(of: "All.pdf", with: "Renamed.pdf"))
        daemon.signal(SIGHUP)
        #expect(eventually { daemon.log.contains("reloaded") }, "log: \(daemon.log)")
        try TestImages.make(scratch.path + "/inbox/b.jpg", width: 120)
        #expect(eventually { pages(scratch.path + "/library/Renamed.pdf") == 1 }, "log: \(daemon.log)")
        #expect(daemon.stop() == 0)
    }

    @Test func aBadConfigExits78() throws {
        let scratch = try Scratch()
        try scratch.write("config.toml", "[library]\nroot = 1\n")
        let run = try Binary.run(["run", "--config", "config.toml"], in: scratch.url)
        #expect(run.status == 78)
        #expect(run.stderr.contains("config.toml:2:8: library.root must be a string"))
    }

    @Test func aConfigOthersMayWriteIsWarnedAboutAtStart() throws {
        let scratch = try Scratch()
        let path = try scratch.write("config.toml", Self.config())
        chmod(path, 0o666)
        let daemon = try DaemonProcess(config: path, in: scratch.url)
        #expect(daemon.notify.wait(for: "READY=1"), "\(daemon.log)")
        #expect(daemon.log.contains("config.toml can be written by anyone (mode 666)"), "\(daemon.log)")
        #expect(daemon.stop() == 0)
        chmod(path, 0o644)
        let quiet = try DaemonProcess(config: path, in: scratch.url)
        #expect(quiet.notify.wait(for: "READY=1"), "\(quiet.log)")
        #expect(!quiet.log.contains("can be written by"), "\(quiet.log)")
        #expect(quiet.stop() == 0)
    }

    @Test func aBurstAllLandsExactlyOnce() throws {
        let count = Int(ProcessInfo.processInfo.environment["PDFTRAPPER_BURST"] ?? "") ?? 300
        let scratch = try Scratch()
        try scratch.write("config.toml", Self.config(settle: "200ms"))
        let daemon = try DaemonProcess(config: scratch.path + "/config.toml", in: scratch.url)
        #expect(daemon.notify.wait(for: "READY=1"))
        // Distinct small images (so none is a duplicate of another), all written elsewhere first, then
        // moved in at once: 20,000 renames come faster than the daemon reads inotify's queue, which
        // holds fs.inotify.max_queued_events (16,384 on Debian) and then overflows.
        _ = try Python.run("""
            import sys, os
            from PIL import Image
            staging = os.path.join(sys.argv[1], "staging")
            os.makedirs(staging)
            for i in range(int(sys.argv[2])):
                Image.new("L", (8 + i % 50, 8 + i // 50), i % 256).save(os.path.join(staging, "burst-%05d.png" % i))
            for name in sorted(os.listdir(staging)):
                os.rename(os.path.join(staging, name), os.path.join(sys.argv[1], "inbox", name))
            """, [scratch.path, "\(count)"])
        let all = scratch.path + "/library/All.pdf"
        #expect(eventually(timeout: 120) { pages(all) == count }, "log tail: \(daemon.log.suffix(2000))")
        #expect(daemon.stop() == 0)
        try PDFReaders.requireAllAgree(all, pages: count)
        let archived = try FileManager.default.contentsOfDirectory(atPath: scratch.path + "/archive")
        #expect(archived.count == count)
        let left = try FileManager.default.contentsOfDirectory(atPath: scratch.path + "/inbox").filter { !$0.hasPrefix(".") }
        #expect(left.isEmpty)
        let overflows = daemon.log.components(separatedBy: "inotify queue overflowed").count - 1
        print("burst: \(count) files, each once in the target and archived; inotify queue overflows: \(overflows)")
    }
}

/// Two daemons (two hosts, say) on one inbox and one library: every file is taken by exactly one of
/// them, and their revisions of the shared target never interleave.
@Suite struct SharedInboxTests {
    @Test func twoDaemonsTakeEachFileExactlyOnce() throws {
        let count = Int(ProcessInfo.processInfo.environment["PDFTRAPPER_SHARED_FILES"] ?? "") ?? 300
        let scratch = try Scratch()
        for name in ["one", "two"] {
            try scratch.write("\(name).toml", InboxDaemonTests.config(settle: "200ms").replacingOccurrences(
                of: "state_dir = \"state\"", with: "state_dir = \"state-\(name)\""))
        }
        let one = try DaemonProcess(config: scratch.path + "/one.toml", in: scratch.url)
        let two = try DaemonProcess(config: scratch.path + "/two.toml", in: scratch.url)
        #expect(one.notify.wait(for: "READY=1") && two.notify.wait(for: "READY=1"))
        _ = try Python.run("""
            import sys, os
            from PIL import Image
            for i in range(int(sys.argv[2])):
                path = os.path.join(sys.argv[1], "staging-%05d.png" % i)
                Image.new("L", (8 + i % 50, 8 + i // 50), i % 256).save(path)
                os.rename(path, os.path.join(sys.argv[1], "inbox", "shared-%05d.png" % i))
            """, [scratch.path, "\(count)"])
        let all = scratch.path + "/library/All.pdf"
        #expect(eventually(timeout: 180) {
            (try? FileManager.default.contentsOfDirectory(atPath: scratch.path + "/archive").count) == count
        }, "one: \(one.log.suffix(1000)) two: \(two.log.suffix(1000))")
        #expect(one.stop() == 0 && two.stop() == 0)
        try PDFReaders.requireAllAgree(all, pages: count)
        let taken = [one.log, two.log].map { log in log.split(separator: "\n").filter { $0.contains(" page into ") }.count }
        #expect(taken[0] + taken[1] == count, "each file once: \(taken)")
        #expect(taken[0] > 0 && taken[1] > 0, "both daemons worked: \(taken)")
        let names = try Python.run("""
            import sys, pypdf
            reader = pypdf.PdfReader(sys.argv[1])
            print(len(set(p.images[0].data for p in reader.pages)))
            """, [all])
        #expect(names == "\(count)\n", "no page twice")
    }
}
