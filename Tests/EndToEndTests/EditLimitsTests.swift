import Foundation
import Glibc
import TestSupport
import Testing

/// An edit script that doubles the page count 20 times (about 900 bytes): refused before any work
/// by `limits.max_pages_after_edit`; with that limit raised, stopped at `limits.edit_seconds` and
/// filed in failed/; a SIGTERM while it runs stops the daemon at once, and the restart does not
/// spin on it again. The inbox is served throughout.
@Suite struct EditLimitsTests {
    static func config(limits: String) -> String {
        TestConfig.folders() + """
            [limits]
            \(limits)

            [[rule]]
            name = "all"
            target = "T.pdf"

            """
    }

    static let doubling = "target = \"T.pdf\"\n" + String(repeating: "[[edit]]\nop = \"duplicate\"\npages = \"all\"\n", count: 20)

    func world(limits: String) throws -> Scratch {
        let scratch = try Scratch()
        try scratch.write("config.toml", Self.config(limits: limits))
        try TestImages.make(scratch.path + "/p.png", width: 100)
        let made = try Binary.run(["ingest", "--config", "config.toml", "--to", "library/T.pdf", "p.png"], in: scratch.url)
        try #require(made.status == 0, "\(made.stderr)")
        try FileManager.default.createDirectory(atPath: scratch.path + "/edits", withIntermediateDirectories: true)
        return scratch
    }

    func target(_ scratch: Scratch) -> Data { FileManager.default.contents(atPath: scratch.path + "/library/T.pdf") ?? Data() }

    /// The daemon, running, and the doubling script dropped into its edits folder.
    func startWithTheDoublingScript(_ scratch: Scratch) throws -> DaemonProcess {
        let daemon = try DaemonProcess(config: scratch.path + "/config.toml", in: scratch.url)
        #expect(daemon.notify.wait(for: "READY=1"), "log: \(daemon.log)")
        try scratch.write("edits/double.toml", Self.doubling)
        return daemon
    }

    func failedNote(_ scratch: Scratch) -> String? {
        try? String(contentsOfFile: scratch.path + "/edits/failed/double.toml.error.txt", encoding: .utf8)
    }

    @Test func aScriptThatWouldPassThePageLimitIsRefusedBeforeAnyWork() throws {
        let scratch = try world(limits: "max_pages_after_edit = 5000")
        let before = target(scratch)
        let daemon = try startWithTheDoublingScript(scratch)
        #expect(eventually { failedNote(scratch) != nil }, "log: \(daemon.log)")
        let note = failedNote(scratch) ?? ""
        #expect(note.contains("edit 13 (duplicate)") && note.contains("8192 pages")
                && note.contains("limits.max_pages_after_edit = 5000"), "\(note)")
        #expect(target(scratch) == before, "the target is as it was")
        // The inbox was never held up.
        try TestImages.make(scratch.path + "/inbox/next.png", width: 200)
        #expect(eventually { (try? PDFReaders.pdfinfoPages(scratch.path + "/library/T.pdf")) == 2 }, "log: \(daemon.log)")
        #expect(daemon.stop() == 0)
    }

    @Test func aScriptPastItsDeadlineIsStoppedAndFiledAndTheInboxGoesOn() throws {
        let scratch = try world(limits: "max_pages_after_edit = 1_000_000\nedit_seconds = \"2s\"")
        let before = target(scratch)
        let daemon = try startWithTheDoublingScript(scratch)
        // While the script runs, a dropped picture is taken.
        try TestImages.make(scratch.path + "/inbox/while.png", width: 200)
        #expect(eventually { failedNote(scratch) != nil }, "log: \(daemon.log)")
        let note = failedNote(scratch) ?? ""
        #expect(note.contains("still running after 2s (limits.edit_seconds)"), "\(note)")
        #expect(eventually { (try? PDFReaders.pdfinfoPages(scratch.path + "/library/T.pdf")) == 2 }, "log: \(daemon.log)")
        #expect(target(scratch).prefix(before.count) == before, "the old revision is untouched")
        try PDFReaders.requireAllAgree(scratch.path + "/library/T.pdf", pages: 2)
        #expect(daemon.stop() == 0)
    }

    @Test func aStopIsHonouredAtOnceAndTheRestartDoesNotSpinOnTheScript() throws {
        let scratch = try world(limits: "max_pages_after_edit = 1_000_000")
        let before = target(scratch)
        let daemon = try startWithTheDoublingScript(scratch)
        let claims = scratch.path + "/edits/.pdftrapper-claims"
        #expect(eventually { !FileManager.default.fileExists(atPath: scratch.path + "/edits/double.toml") }, "claimed")
        sleep(1)
        daemon.signal(SIGTERM)
        // Within a second, whatever the script is doing (a bound for a slow machine, not a benchmark).
        #expect(eventually(timeout: 5) { !daemon.process.isRunning }, "SIGTERM ignored while the script ran: \(daemon.log)")
        #expect(daemon.process.terminationStatus == 0)
        #expect(target(scratch) == before)
        let waiting = ContainmentTests.snapshot(claims).keys.filter { $0.hasSuffix("double.toml") }
        #expect(waiting.count == 1, "still claimed for the next start: \(waiting)")

        // The next start, with a deadline now, takes the claimed script again and files it.
        try scratch.write("config.toml", Self.config(limits: "max_pages_after_edit = 1_000_000\nedit_seconds = \"1s\""))
        let restarted = try DaemonProcess(config: scratch.path + "/config.toml", in: scratch.url)
        #expect(restarted.notify.wait(for: "READY=1"), "log: \(restarted.log)")
        #expect(eventually { failedNote(scratch) != nil }, "log: \(restarted.log)")
        #expect(target(scratch) == before)
        #expect(restarted.stop() == 0)
    }
}
