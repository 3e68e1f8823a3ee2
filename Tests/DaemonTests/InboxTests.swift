import Daemon
import Foundation
import PDFAccess
import System
import TestSupport
import Testing
import TrapperCore

/// One input at a time through the inbox job, on real folders and files: where it ends up, and
/// that it is always in exactly one place.
@Suite struct InboxTests {
    /// A scratch inbox, library, archive and quarantine, with `rules` in the config.
    final class Setup {
        let scratch: Scratch
        let config: Config
        let store: TargetStore
        var job: Inbox
        /// Set by `take(_:now:)`: the inbox's windows are measured on it.
        let clock = ScriptedClock()

        init(rules: String, duplicates: String = "skip") throws {
            scratch = try Scratch()
            let text = """
                [daemon]
                state_dir = "state"
                [library]
                root = "library"
                [inbox]
                path = "inbox"
                duplicates = "\(duplicates)"

                """ + rules
            try scratch.write("config.toml", text)
            config = try ConfigParser.parse(Array(text.utf8), file: scratch.path + "/config.toml", environment: [:])
            // Confined as the daemon's store is: every write beneath a configured folder.
            store = try TargetStore(state: StateDirectory(path: config.daemon.stateDir), decoder: FlateStreamDecoder(),
                                    folders: try ConfinedFolders.daemon(config))
            job = Inbox(config: config, store: store, instance: "test", clock: clock)
        }

        /// The inbox again, through scripted ports.
        /// `revisions`: the feed the store tells its revisions to instead of its own.
        func rewire(files: (any CaptureFileSystem)? = nil, opener: (any InputOpening)? = nil, revisions: RevisionFeed? = nil) {
            if let revisions { store.revisions = revisions }
            job = Inbox(config: config, store: store, instance: "test", files: files, opener: opener, clock: clock)
        }

        func arrival(_ relativePath: String) -> Inbox.Arrival {
            Inbox.Arrival(path: config.inbox.path + "/" + relativePath, relativePath: relativePath, isRegularFile: true)
        }

        /// Drops an image; `width` makes its content (and digest) differ from other drops.
        func drop(_ relativePath: String, image: Bool = true, width: Int = 300) throws -> String {
            let path = config.inbox.path + "/" + relativePath
            try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent,
                                                    withIntermediateDirectories: true)
            if image { try TestImages.make(path, width: width) }
            return path
        }

        func take(_ relativePath: String, now: Date = Date()) -> JobOutcome? {
            clock.time = now
            return job.take(config.inbox.path + "/" + relativePath, relativePath: relativePath, isRegularFile: true)
        }

        func exists(_ path: String) -> Bool { FileManager.default.fileExists(atPath: path) }
    }

    static let simple = """
        [[rule]]
        name = "receipts"
        target = "Receipts.pdf"
        archive_as = "{name}"
        match = { folder = "receipts" }
        [[rule]]
        name = "gone"
        target = "Gone.pdf"
        original = "delete"
        match = { folder = "gone" }
        [[rule]]
        name = "kept"
        target = "Kept.pdf"
        original = "keep"
        match = { folder = "kept" }

        """

    @Test func ingestsThenArchivesDeletesOrKeeps() throws {
        let setup = try Setup(rules: Self.simple)
        _ = try setup.drop("receipts/a.jpg")
        _ = try setup.drop("gone/b.jpg")
        _ = try setup.drop("kept/c.jpg")
        let library = setup.config.library.root

        let archived = setup.take("receipts/a.jpg")
        #expect(archived?.result == .ingested && archived?.target == library + "/Receipts.pdf")
        #expect(setup.exists(setup.config.inbox.archive + "/a.jpg"))
        #expect(!setup.exists(setup.config.inbox.path + "/receipts/a.jpg"))

        #expect(setup.take("gone/b.jpg")?.result == .ingested)
        #expect(!setup.exists(setup.config.inbox.path + "/gone/b.jpg"))

        #expect(setup.take("kept/c.jpg")?.result == .ingested)
        #expect(setup.exists(setup.config.inbox.path + "/kept/c.jpg"), "kept where it was")
        #expect(setup.take("kept/c.jpg") == nil, "a kept original is not a new job when seen again")

        for name in ["Receipts", "Gone", "Kept"] { try PDFReaders.requireAllAgree(library + "/\(name).pdf", pages: 1) }
        let claims = try FileManager.default.subpathsOfDirectory(atPath: setup.job.claims).filter {
            var isFolder: ObjCBool = false
            return FileManager.default.fileExists(atPath: setup.job.claims + "/" + $0, isDirectory: &isFolder) && !isFolder.boolValue
        }
        #expect(claims.isEmpty, "nothing left among the claims: \(claims)")
    }

    @Test func inputsArrivingTogetherForOneTargetBecomeOneRevision() throws {
        let setup = try Setup(rules: Self.simple)
        var arrivals: [Inbox.Arrival] = []
        for (index, name) in ["a.jpg", "bad.jpg", "c.jpg", "d.jpg"].enumerated() {
            let path = try setup.drop("receipts/" + name, image: name != "bad.jpg", width: 200 + index)
            if name == "bad.jpg" { try Data("no picture".utf8).write(to: URL(fileURLWithPath: path)) }
            arrivals.append(Inbox.Arrival(path: path, relativePath: "receipts/" + name, isRegularFile: true))
        }
        let outcomes = setup.job.take(arrivals)
        let ingested = outcomes.filter { $0.result == .ingested }
        #expect(ingested.map(\.input).sorted() == ["receipts/a.jpg", "receipts/c.jpg", "receipts/d.jpg"])
        #expect(Set(ingested.map(\.end)).count == 1, "one revision for the three")
        #expect(outcomes.filter { $0.result == .quarantined }.map(\.input) == ["receipts/bad.jpg"])
        let history = try RevisionHistory.read(PDFFileSource(path: setup.config.library.root + "/Receipts.pdf"),
                                               decoder: FlateStreamDecoder())
        #expect(history.count == 1)
        #expect(history.first?.record?.inputs.map(\.name) == ["a.jpg", "c.jpg", "d.jpg"])
    }

    @Test func noRuleLeavesTheFileAndSaysSoOnce() throws {
        let setup = try Setup(rules: Self.simple)
        _ = try setup.drop("elsewhere/x.jpg")
        #expect(setup.take("elsewhere/x.jpg")?.result == .noRule)
        #expect(setup.take("elsewhere/x.jpg") == nil)
        #expect(setup.exists(setup.config.inbox.path + "/elsewhere/x.jpg"))
    }

    @Test func badInputGoesToQuarantineWithItsReason() throws {
        let setup = try Setup(rules: Self.simple)
        let path = try setup.drop("receipts/notes.jpg", image: false)
        try Data("not a picture at all".utf8).write(to: URL(fileURLWithPath: path))
        let outcome = setup.take("receipts/notes.jpg")
        #expect(outcome?.result == .quarantined)
        let quarantined = setup.config.inbox.quarantine + "/receipts/notes.jpg"
        #expect(setup.exists(quarantined))
        let why = try String(contentsOfFile: quarantined + ".why.txt", encoding: .utf8)
        #expect(why.hasPrefix("reason: notes.jpg: not a JPEG, PNG, TIFF, PNM, HEIC, AVIF, WebP or PDF by its content"))
        #expect(why.contains("rule: receipts"))
        #expect(!setup.exists(setup.config.library.root + "/Receipts.pdf"), "no target is made for a bad input")
    }

    @Test func linksAndFIFOsAreQuarantinedNeverFollowed() throws {
        let setup = try Setup(rules: Self.simple)
        let outside = setup.scratch.path + "/secret.jpg"
        try TestImages.make(outside)
        let before = try Data(contentsOf: URL(fileURLWithPath: outside))
        _ = try setup.drop("receipts/placeholder.jpg", image: false)
        try FileManager.default.createSymbolicLink(atPath: setup.config.inbox.path + "/receipts/link.jpg", withDestinationPath: outside)
        mkfifo(setup.config.inbox.path + "/receipts/pipe.jpg", 0o600)

        let link = setup.job.take(setup.config.inbox.path + "/receipts/link.jpg", relativePath: "receipts/link.jpg",
                                  isRegularFile: false)
        #expect(link?.result == .quarantined)
        #expect(link?.reason?.contains("symbolic link") == true)
        let fifo = setup.job.take(setup.config.inbox.path + "/receipts/pipe.jpg", relativePath: "receipts/pipe.jpg",
                                  isRegularFile: false)
        #expect(fifo?.reason?.contains("FIFO") == true)
        #expect(try Data(contentsOf: URL(fileURLWithPath: outside)) == before)
        #expect(!setup.exists(setup.config.library.root + "/Receipts.pdf"))
    }

    @Test func duplicatesAreSkippedOrIngestedPerConfig() throws {
        for policy in ["skip", "ingest"] {
            let setup = try Setup(rules: Self.simple, duplicates: policy)
            let first = try setup.drop("receipts/a.jpg")
            let copy = Data(try Data(contentsOf: URL(fileURLWithPath: first)))
            #expect(setup.take("receipts/a.jpg")?.result == .ingested)
            try copy.write(to: URL(fileURLWithPath: setup.config.inbox.path + "/receipts/again.jpg"))
            let second = setup.take("receipts/again.jpg")
            #expect(second?.result == (policy == "skip" ? .duplicate : .ingested))
            try PDFReaders.requireAllAgree(setup.config.library.root + "/Receipts.pdf", pages: policy == "skip" ? 1 : 2)
            #expect(setup.exists(setup.config.inbox.archive + "/again.jpg"), "a skipped duplicate is still archived")
        }
    }

    @Test func batchesCollectInputsWithinTheWindow() throws {
        let setup = try Setup(rules: """
            [[rule]]
            name = "batch"
            target = "Batch-{seq}.pdf"
            mode = "batch"
            batch_window = "1m"

            """)
        let start = Date()
        for (index, (name, offset)) in [("a.jpg", 0.0), ("b.jpg", 30), ("c.jpg", 80), ("d.jpg", 200)].enumerated() {
            _ = try setup.drop(name, width: 100 + index)
            #expect(setup.take(name, now: start.addingTimeInterval(offset))?.result == .ingested)
        }
        let library = setup.config.library.root
        try PDFReaders.requireAllAgree(library + "/Batch-1.pdf", pages: 3)
        try PDFReaders.requireAllAgree(library + "/Batch-2.pdf", pages: 1)
    }

    @Test func aTargetThroughASymlinkOutsideTheLibraryIsRefused() throws {
        let setup = try Setup(rules: """
            [[rule]]
            name = "escape"
            target = "Out/escaped.pdf"

            """)
        let outside = setup.scratch.path + "/outside"
        try FileManager.default.createDirectory(atPath: outside, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: setup.config.library.root, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: setup.config.library.root + "/Out", withDestinationPath: outside)
        _ = try setup.drop("a.jpg")
        let outcome = setup.take("a.jpg")
        #expect(outcome?.result == .quarantined)
        #expect(outcome?.reason?.contains("outside the library") == true)
        #expect(try FileManager.default.contentsOfDirectory(atPath: outside).isEmpty)
    }

    @Test func claimsLeftByACrashAreFinishedExactlyOnce() throws {
        let setup = try Setup(rules: Self.simple)
        // One input was ingested just before the crash, the other not yet.
        _ = try setup.drop("receipts/done.jpg")
        let done = try Data(contentsOf: URL(fileURLWithPath: setup.config.inbox.path + "/receipts/done.jpg"))
        #expect(setup.take("receipts/done.jpg")?.result == .ingested)
        let claimed = setup.job.claims + "/receipts"
        try FileManager.default.createDirectory(atPath: claimed, withIntermediateDirectories: true)
        try done.write(to: URL(fileURLWithPath: claimed + "/done-again.jpg"))
        try TestImages.make(claimed + "/pending.jpg", mode: "L")

        var restarted = Inbox(config: setup.config, store: setup.store, instance: "test")
        let outcomes = restarted.recoverClaims().sorted { $0.input < $1.input }
        #expect(outcomes.map(\.result) == [.duplicate, .ingested])
        try PDFReaders.requireAllAgree(setup.config.library.root + "/Receipts.pdf", pages: 2)
        #expect(setup.exists(setup.config.inbox.archive + "/done-again.jpg"))
        #expect(setup.exists(setup.config.inbox.archive + "/pending.jpg"))
    }
}

/// Findings of a review, each a scenario that once lost or doubled an input.
@Suite struct InboxEdgeTests {
    typealias Setup = InboxTests.Setup

    @Test func twoNewFilesArrivingTogetherGetTwoNames() throws {
        let setup = try Setup(rules: "[[rule]]\nname = \"new\"\ntarget = \"Scan.pdf\"\nmode = \"new\"\n")
        let arrivals = try ["a.jpg", "b.jpg"].enumerated().map { index, name in
            Inbox.Arrival(path: try setup.drop(name, width: 150 + index), relativePath: name, isRegularFile: true)
        }
        let outcomes = setup.job.take(arrivals)
        #expect(Set(outcomes.compactMap(\.target)).count == 2, "\(outcomes.map(\.target))")
        try PDFReaders.requireAllAgree(setup.config.library.root + "/Scan.pdf", pages: 1)
        try PDFReaders.requireAllAgree(setup.config.library.root + "/Scan-2.pdf", pages: 1)
    }

    @Test func aDeletedTargetNoLongerCountsItsInputs() throws {
        let setup = try Setup(rules: InboxTests.simple)
        let first = try setup.drop("gone/a.jpg")
        let bytes = try Data(contentsOf: URL(fileURLWithPath: first))
        #expect(setup.take("gone/a.jpg")?.result == .ingested)
        try FileManager.default.removeItem(atPath: setup.config.library.root + "/Gone.pdf")
        try bytes.write(to: URL(fileURLWithPath: setup.config.inbox.path + "/gone/again.jpg"))
        #expect(setup.take("gone/again.jpg")?.result == .ingested, "not skipped as a duplicate of a deleted file")
        try PDFReaders.requireAllAgree(setup.config.library.root + "/Gone.pdf", pages: 1)
    }

    @Test func aRecoveredClaimGoesToTheTargetWrittenDownForIt() throws {
        // A `new` rule: routed again after a crash, the input would get a fresh name and go in twice.
        let setup = try Setup(rules: "[[rule]]\nname = \"new\"\ntarget = \"Scan.pdf\"\nmode = \"new\"\n")
        _ = try setup.drop("a.jpg")
        #expect(setup.take("a.jpg")?.result == .ingested)
        // As if the process died after the revision and before the archive: the input is back among
        // the claims, with the target that was written down for it.
        let archived = setup.config.inbox.archive
        let name = try #require(FileManager.default.enumerator(atPath: archived)?.allObjects.compactMap { $0 as? String }
            .first { $0.hasSuffix("a.jpg") })
        try FileManager.default.moveItem(atPath: archived + "/" + name, toPath: setup.job.claims + "/a.jpg")
        try FileManager.default.createDirectory(atPath: setup.job.claims + "/.targets", withIntermediateDirectories: true)
        try "\(setup.config.library.root)/Scan.pdf\na.jpg\n".write(toFile: setup.job.claims + "/.targets/x.txt",
                                                                   atomically: true, encoding: .utf8)
        var restarted = Inbox(config: setup.config, store: setup.store, instance: "test")
        #expect(restarted.recoverClaims().map(\.result) == [.duplicate])
        #expect(!setup.exists(setup.config.library.root + "/Scan-2.pdf"))
    }
}

@Suite struct JobOutcomeTests {
    /// The line says what chose the target: a rule, a scan profile, or --to.
    @Test func theLineNamesWhatChoseTheTarget() {
        let line = { (rule: String) in
            JobOutcome(input: "a.png", result: .ingested, rule: rule, target: "T.pdf", pages: 1).summary
        }
        #expect(line("letters").hasSuffix("(rule letters)"))
        #expect(line("profile feeder").hasSuffix("(profile feeder)"))
        #expect(line("--to").hasSuffix("(--to)"))
    }
}
