import Foundation
import Testing
import TestSupport
import TrapperCore
@testable import Daemon

/// The edit workers, with the real worker program: a target's queue is kept only while it has
/// scripts to apply, so a daemon running for months holds none for every target it ever edited,
/// nor for every unreadable script dropped into the edits folder (each queued under its own path).
@Suite struct EditWorkersTests {
    @Test func noQueueIsKeptOnceItsScriptsAreDone() throws {
        let scratch = try Scratch()
        for folder in ["library", "inbox", "edits", "state"] {
            try FileManager.default.createDirectory(atPath: scratch.path + "/" + folder, withIntermediateDirectories: true)
        }
        try TextPDF.make(scratch.path + "/library/T.pdf", lines: [(x: 40, y: 200, size: 20, text: "Hello")])
        try scratch.write("config.toml", TestConfig.folders())
        let config = try ConfigParser.parse(Array(TestConfig.folders().utf8), file: scratch.path + "/config.toml", environment: [:])
        let workers = EditWorkers(process: EditProcess(executable: Binary.path, environment: [:]),
                                  openStore: { try DaemonParts.openStore($0) })

        for n in 1...3 {
            try scratch.write("edits/junk-\(n).toml", "target = [unclosed\n")
            let finished = try #require(workers.applyAndWait(path: scratch.path + "/edits/junk-\(n).toml",
                                                             relativePath: "junk-\(n).toml", config: config))
            #expect(finished.outcome.applied == nil)
            #expect(!finished.outcome.problems.isEmpty, "an unreadable script says why")
        }
        for turn in 1...2 {
            try scratch.write("edits/turn-\(turn).toml", "target = \"T.pdf\"\n[[edit]]\nop = \"rotate\"\ndegrees = 90\n")
            let finished = try #require(workers.applyAndWait(path: scratch.path + "/edits/turn-\(turn).toml",
                                                             relativePath: "turn-\(turn).toml", config: config))
            #expect(finished.outcome.problems.isEmpty, "\(finished.outcome.problems)")
            #expect(finished.outcome.applied != nil)
        }
        let rotate = try Python.run("import pypdf, sys; print(pypdf.PdfReader(sys.argv[1]).pages[0].get('/Rotate', 0))",
                                    [scratch.path + "/library/T.pdf"])
        #expect(rotate.trimmingCharacters(in: .whitespacesAndNewlines) == "180", "both turns applied, one after the other")
        #expect(workers.queuesHeld == 0, "every script is done: no queue is left behind")
        workers.stop()
    }
}
