import Foundation
import Glibc
import TestSupport
import Testing

/// The bad-input corpus (`Tests/Fixtures/bad-inputs/make.py`, made here from nothing downloaded):
/// About a hundred kinds of broken, hostile or strange files and edit scripts, dropped into the running
/// daemon at once with good files beside them. Each bad one ends in the quarantine (or the edits'
/// failed/) with a one-line reason; every good one goes in; nothing outside the configured folders
/// is read into a target or written; and the daemon keeps serving.
@Suite struct BadInputCorpusTests {
    static let maker = Binary.packageRoot.appendingPathComponent("Tests/Fixtures/bad-inputs/make.py").path

    struct Progress: Decodable {
        var pending: [String]
        var problems: [String]
    }

    @Test func everyBadInputIsRefusedWithItsReasonAndTheGoodOnesGoIn() throws {
        let scratch = try Scratch()
        // Truncated files are waited for (an upload may go on) until incomplete_timeout, then quarantined.
        try scratch.write("config.toml", TestConfig.folders(inbox: "incomplete_timeout = \"1s\"") + """
            [limits]
            max_input_size = "4MB"
            max_pages = 50
            max_pages_after_edit = 1000

            [[rule]]
            name = "all"
            target = "All.pdf"

            """)
        chmod(scratch.path + "/config.toml", 0o600)
        for folder in ["inbox", "edits", "outside"] {
            try FileManager.default.createDirectory(atPath: scratch.path + "/" + folder, withIntermediateDirectories: true)
        }
        let made = try Python.run(try String(contentsOfFile: Self.maker, encoding: .utf8),
                                  ["make", scratch.path + "/stage", scratch.path + "/outside"])
        let expected = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: scratch.path + "/stage/expected.json")))
            as? [[String: String]] ?? []
        let bad = expected.filter { $0["expect"] == "quarantine" || $0["expect"] == "failed" }
        let good = expected.filter { $0["expect"] == "ingest" }
        #expect(bad.count >= 60, "at least 60 kinds of bad input: \(made)")
        let outsideBefore = try FileManager.default.contentsOfDirectory(atPath: scratch.path + "/outside").sorted()

        let daemon = try DaemonProcess(config: scratch.path + "/config.toml", in: scratch.url)
        #expect(daemon.notify.wait(for: "READY=1"), "log: \(daemon.log)")
        _ = try Python.run(try String(contentsOfFile: Self.maker, encoding: .utf8), ["deliver", scratch.path + "/stage", scratch.path])

        func progress() throws -> Progress {
            let text = try Python.run(try String(contentsOfFile: Self.maker, encoding: .utf8), ["check", scratch.path + "/stage", scratch.path])
            return try JSONDecoder().decode(Progress.self, from: Data(text.utf8))
        }
        let settled = try eventually(timeout: 120) { try progress().pending.isEmpty }
        let seen = try progress()
        #expect(settled, "still waiting for: \(seen.pending)\n\(daemon.log)")
        #expect(seen.problems == [], "\(seen.problems.joined(separator: "\n"))")
        #expect(daemon.process.isRunning, "the daemon died: \(daemon.log.suffix(3000))")

        // Every good file, and nothing else, is a page of the target; every reader agrees.
        let target = scratch.path + "/library/All.pdf"
        try PDFReaders.requireAllAgree(target, pages: good.count)
        // The good page that asked to launch a program and run JavaScript went in without both.
        let objects = try PDFReaders.run("qpdf", ["--json=2", "--json-key=qpdf", target]).text
        #expect(!objects.contains("/Launch") && !objects.contains("/JavaScript"), "active content was imported")
        // Each log line is one line: a name with a newline is written as \n.
        #expect(daemon.log.contains(#"new\nline.jpg: 1 page into"#), "\(daemon.log)")
        // Nothing was written outside, and the file a link pointed at is still there, untouched.
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.path + "/outside").sorted() == outsideBefore)

        // Still serving: a good file dropped now goes in.
        try TestImages.make(scratch.path + "/late.jpg", width: 77)
        try FileManager.default.moveItem(atPath: scratch.path + "/late.jpg", toPath: scratch.path + "/inbox/late.jpg")
        #expect(eventually { (try? PDFReaders.pdfinfoPages(target)) == good.count + 1 }, "\(daemon.log.suffix(2000))")
        #expect(daemon.stop() == 0)
    }

    /// Configs that are malformed, huge, deeply nested, not UTF-8 or not a file: a reload (SIGHUP)
    /// refuses each with the reason and the running config goes on serving.
    @Test(arguments: [
        ("malformed", "[inbox\npath = ", "expected"),
        ("huge", "# filler\n" + String(repeating: "x = 1 # padding padding padding\n", count: 70_000), "larger than 1 mib"),
        ("deeply nested", "x = " + String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000) + "\n",
         "nesting"),
        ("not UTF-8", "[library]\nroot = \"lib\u{FFFD}\"\n", "utf-8"),
        ("empty", "", "library"),
    ])
    func aBadConfigOnReloadLeavesTheRunningOneServing(kind: String, text: String, reason: String) throws {
        let scratch = try Scratch()
        let good = TestConfig.folders() + "[[rule]]\nname = \"all\"\ntarget = \"All.pdf\"\n"
        try scratch.write("config.toml", good)
        let daemon = try DaemonProcess(config: scratch.path + "/config.toml", in: scratch.url)
        #expect(daemon.notify.wait(for: "READY=1"), "log: \(daemon.log)")
        var bytes = Array(text.utf8)
        if kind == "not UTF-8" { bytes = Array(text.replacingOccurrences(of: "\u{FFFD}", with: "").utf8) + [0xFF, 0xFE] }
        try Data(bytes).write(to: URL(fileURLWithPath: scratch.path + "/config.toml"))
        daemon.signal(SIGHUP)
        #expect(eventually { daemon.log.contains("reload refused, keeping the running config") }, "\(kind): \(daemon.log.suffix(2000))")
        // The reason follows on the next lines, which the daemon may still be writing.
        var refusal = ""
        let said = eventually {
            refusal = daemon.log.split(separator: "\n").drop { !$0.contains("reload refused") }.prefix(3).joined(separator: "\n")
            return refusal.lowercased().contains(reason)
        }
        #expect(said, "\(kind): \(refusal)")
        try TestImages.make(scratch.path + "/a.jpg")
        try FileManager.default.moveItem(atPath: scratch.path + "/a.jpg", toPath: scratch.path + "/inbox/a.jpg")
        #expect(eventually { (try? PDFReaders.pdfinfoPages(scratch.path + "/library/All.pdf")) == 1 }, "\(kind): \(daemon.log)")
        #expect(daemon.stop() == 0)
    }
}
