import Daemon
import Foundation
import Glibc
import PDFAccess
import System
import TestSupport
import Testing
import TrapperCore

/// The capture pipeline driven through the inbox with scripted ports: files that vanish, renames
/// that fail, a clock that jumps, an input that breaks while its pages are written. The folders,
/// the images and the target are real, and each target is checked by every reader.
@Suite struct CapturePipelineTests {
    typealias Setup = InboxTests.Setup

    static let rules = """
        [[rule]]
        name = "all"
        target = "All.pdf"
        archive_as = "{name}"
        ocr = ["eng"]

        """

    /// Hears every revision, as webhooks and the workspace will.
    final class Recorder: RevisionSubscriber, @unchecked Sendable {
        var events: [RevisionCommitted] = []
        func revisionCommitted(_ event: RevisionCommitted) { events.append(event) }
    }

    /// The real opener, but the inputs named in `breaking` fail while their pages are written.
    struct ScriptedOpener: InputOpening {
        let real = InputFiles()
        let breaking: Set<String>

        func open(_ path: String, steps: PageSteps, blankIsEmpty: Bool) throws(EngineError) -> any InputDocument {
            let document = try real.open(path, steps: steps, blankIsEmpty: blankIsEmpty)
            return breaking.contains(document.name) ? BreakingDocument(inner: document) : document
        }
    }

    struct BreakingDocument: InputDocument {
        let inner: any InputDocument
        var name: String { inner.name }
        var sha256: [UInt8] { inner.sha256 }
        var pageCount: Int { inner.pageCount }
        struct Broken: Error, CustomStringConvertible { var description: String { "the decoder gave up half-way" } }
        func writePage<Sink: PDFObjectSink>(_ index: Int, as reference: PDFReference, into sink: inout Sink) throws -> PDFDictionary {
            throw Broken()
        }
    }

    @Test func aFileThatVanishesBetweenEventAndClaimIsNoJob() throws {
        let setup = try Setup(rules: Self.rules)
        let files = ScriptedFiles(try ConfinedFolders.daemon(setup.config))
        setup.rewire(files: files)
        let path = try setup.drop("a.jpg")
        files.vanishing = [path]
        let outcomes = setup.job.take([setup.arrival("a.jpg")])
        #expect(outcomes.isEmpty, "\(outcomes)")
        #expect(!setup.exists(setup.config.library.root + "/All.pdf"))
        #expect((try FileManager.default.contentsOfDirectory(atPath: setup.config.inbox.quarantine)).isEmpty)
    }

    @Test func aClaimWhoseRenameFailsWaitsInTheInboxAndIsTakenLater() throws {
        let setup = try Setup(rules: Self.rules)
        let files = ScriptedFiles(try ConfinedFolders.daemon(setup.config))
        setup.rewire(files: files)
        _ = try setup.drop("a.jpg")
        files.failingMoves = ["/a.jpg": EIO]
        let failed = setup.job.take([setup.arrival("a.jpg")])
        #expect(failed.map(\.result) == [.retryLater] && failed[0].reason?.contains("Input/output error") == true, "\(failed)")
        #expect(setup.exists(setup.config.inbox.path + "/a.jpg"), "still where it was dropped")
        #expect(!setup.exists(setup.config.library.root + "/All.pdf"))

        // Another daemon renamed it first: for this one it is gone, not a failure.
        files.failingMoves = ["/a.jpg": ENOENT]
        #expect(setup.job.take([setup.arrival("a.jpg")]).map(\.result) == [.takenElsewhere])

        files.failingMoves = [:]
        #expect(setup.job.take([setup.arrival("a.jpg")]).map(\.result) == [.ingested])
        try PDFReaders.requireAllAgree(setup.config.library.root + "/All.pdf", pages: 1)
        #expect(setup.exists(setup.config.inbox.archive + "/a.jpg"))
    }

    @Test func anArchiveRenameThatFailsSendsTheOriginalToQuarantineNotBackToTheClaims() throws {
        let setup = try Setup(rules: Self.rules)
        let files = ScriptedFiles(try ConfinedFolders.daemon(setup.config))
        setup.rewire(files: files)
        _ = try setup.drop("a.jpg")
        // The claim works; the move on to the archive (from the claims) fails.
        files.failingMoves = ["-claims/test/a.jpg": EIO]
        let outcomes = setup.job.take([setup.arrival("a.jpg")])
        #expect(outcomes.map(\.result) == [.ingested] && outcomes[0].reason?.hasPrefix("archiving failed") == true, "\(outcomes)")
        try PDFReaders.requireAllAgree(setup.config.library.root + "/All.pdf", pages: 1)
        // Quarantine moves from the claims too, so it failed as well: the claim waits for recovery,
        // which finds its pages in the target and does not add them again.
        files.failingMoves = [:]
        let recovered = setup.job.recoverClaims()
        #expect(recovered.map(\.result) == [.duplicate], "\(recovered)")
        try PDFReaders.requireAllAgree(setup.config.library.root + "/All.pdf", pages: 1)
    }

    @Test func aClockThatJumpsClosesTheBatchAndABackwardJumpKeepsIt() throws {
        let setup = try Setup(rules: """
            [[rule]]
            name = "batch"
            target = "Batch-{seq}.pdf"
            mode = "batch"
            batch_window = "2m"

            """)
        for (index, name) in ["a.jpg", "b.jpg", "c.jpg", "d.jpg"].enumerated() { _ = try setup.drop(name, width: 120 + index) }
        #expect(setup.job.take([setup.arrival("a.jpg")]).first?.target?.hasSuffix("/Batch-1.pdf") == true)
        // The clock is set back an hour (NTP, a dead RTC battery): still the same batch.
        setup.clock.advance(-3600)
        #expect(setup.job.take([setup.arrival("b.jpg")]).first?.target?.hasSuffix("/Batch-1.pdf") == true)
        // And forward past the window: a new batch.
        setup.clock.advance(3600 + 121)
        #expect(setup.job.take([setup.arrival("c.jpg")]).first?.target?.hasSuffix("/Batch-2.pdf") == true)
        // A daemon started again goes on with the batch open in the state folder.
        setup.rewire()
        setup.clock.advance(60)
        #expect(setup.job.take([setup.arrival("d.jpg")]).first?.target?.hasSuffix("/Batch-2.pdf") == true)
        try PDFReaders.requireAllAgree(setup.config.library.root + "/Batch-1.pdf", pages: 2)
        try PDFReaders.requireAllAgree(setup.config.library.root + "/Batch-2.pdf", pages: 2)
    }

    @Test func aFrontPassWhoseClockRunsOutGoesInAlone() throws {
        let setup = try Setup(rules: """
            [[rule]]
            name = "duplex"
            target = "Duplex.pdf"
            collate = "double-sided"
            collate_window = "10m"

            """)
        _ = try setup.drop("front.jpg")
        #expect(setup.job.take([setup.arrival("front.jpg")]).map(\.result) == [.held])
        #expect(setup.job.expireHeld().isEmpty, "the window is still open")
        setup.clock.advance(601)
        let expired = setup.job.expireHeld()
        #expect(expired.map(\.result) == [.ingested] && expired[0].reason?.hasPrefix("no back pass came within 10m") == true,
                "\(expired)")
        try PDFReaders.requireAllAgree(setup.config.library.root + "/Duplex.pdf", pages: 1)
    }

    @Test func anInputThatBreaksWhileWrittenGoesAloneAndTheOthersMakeOneRevision() throws {
        let setup = try Setup(rules: Self.rules)
        let recorder = Recorder()
        setup.rewire(opener: ScriptedOpener(breaking: ["b.jpg"]), revisions: RevisionFeed([recorder]))
        for (index, name) in ["a.jpg", "b.jpg", "c.jpg"].enumerated() { _ = try setup.drop(name, width: 140 + index) }
        let outcomes = setup.job.take(["a.jpg", "b.jpg", "c.jpg"].map(setup.arrival))
        #expect(outcomes.map(\.result).sorted { $0.rawValue < $1.rawValue } == [.ingested, .ingested, .quarantined], "\(outcomes)")
        #expect(outcomes.first { $0.result == .quarantined }?.reason == "b.jpg: the decoder gave up half-way")
        let target = setup.config.library.root + "/All.pdf"
        try PDFReaders.requireAllAgree(target, pages: 2)
        #expect(setup.exists(setup.config.inbox.quarantine + "/b.jpg"))
        // One revision, told once, with what it holds.
        #expect(recorder.events.count == 1)
        let event = try #require(recorder.events.first)
        #expect(event.target == target && event.created && event.pagesAdded == 2 && event.rule == "all" && !event.elsewhere)
        #expect(event.toRead.count == 2 && event.toRead.allSatisfy { $0.languages == ["eng"] }, "\(event.toRead)")
        #expect(event.inputs.map(\.name) == ["a.jpg", "c.jpg"])
        let size = try #require(try FileManager.default.attributesOfItem(atPath: target)[.size] as? Int)
        #expect(event.end == size && event.base == 0)
    }

    @Test func theOCRQueueIsASubscriberLikeAnyOther() throws {
        let setup = try Setup(rules: Self.rules)
        _ = try setup.drop("a.jpg")
        #expect(setup.job.take([setup.arrival("a.jpg")]).map(\.result) == [.ingested])
        let queue = OCRQueue(state: setup.store.state)
        let request = try #require(queue.pending().first.flatMap(queue.read))
        #expect(request.target == setup.config.library.root + "/All.pdf" && request.languages == ["eng"] && request.pages.count == 1)

        // Without subscribers, nothing is queued: the pipeline itself knows nothing of OCR.
        setup.rewire(revisions: RevisionFeed())
        _ = try setup.drop("b.jpg", width: 333)
        #expect(setup.job.take([setup.arrival("b.jpg")]).map(\.result) == [.ingested])
        #expect(queue.pending().count == 1)
    }

    static let feeder = """
        [profile.feeder]
        source = "adf"
        target = "Scans.pdf"

        """

    /// A finished scan batch of the feeder profile in `setup`'s spool, one page per image file.
    static func scanBatch(_ setup: Setup, _ pages: [String]) throws -> ScanSpool.Batch {
        let batch = try ScanSpool(stateDir: setup.config.daemon.stateDir).start(profile: "feeder", button: nil, device: "fake:0",
                                                                              targetOverride: nil)
        for path in pages { try batch.addPage(Array(try Data(contentsOf: URL(fileURLWithPath: path))), fileExtension: "jpg") }
        try batch.markComplete()
        return batch
    }

    /// A scan batch goes in whole: one page that breaks sends the batch to quarantine and leaves the
    /// target as it was; the same pages unbroken are one revision, told once, and leave the spool.
    @Test func aScanBatchGoesInWholeOrNotAtAll() throws {
        let setup = try Setup(rules: Self.feeder)
        let spool = ScanSpool(stateDir: setup.config.daemon.stateDir)
        let pages = try [150, 160, 170].map { width in
            let page = setup.config.inbox.path + "/page-\(width).jpg"
            try TestImages.make(page, width: width)
            return page
        }
        func batch() throws -> ScanSpool.Batch { try Self.scanBatch(setup, pages) }
        let target = setup.config.library.root + "/Scans.pdf"
        let broken = try batch()
        let recorder = Recorder()
        setup.store.revisions = RevisionFeed([recorder])
        let breaking = ScanCommit(config: setup.config, store: setup.store,
                                  opener: ScriptedOpener(breaking: [(broken.pagePaths[1] as NSString).lastPathComponent]))
        let refused = breaking.commit(broken)
        #expect(refused.result == .quarantined && refused.reason?.contains("the decoder gave up half-way") == true, "\(refused)")
        #expect(!setup.exists(target) && recorder.events.isEmpty, "no page of a refused batch is in a target")
        let quarantined = try FileManager.default.contentsOfDirectory(atPath: setup.config.inbox.quarantine)
        #expect(quarantined == [broken.manifest.name], "\(quarantined)")

        let whole = try batch()
        let outcome = ScanCommit(config: setup.config, store: setup.store).commit(whole)
        #expect(outcome.result == .ingested && outcome.pages == 3 && outcome.input == whole.manifest.name, "\(outcome)")
        try PDFReaders.requireAllAgree(target, pages: 3)
        #expect(recorder.events.map(\.pagesAdded) == [3] && recorder.events.first?.inputs.count == 3)
        #expect(spool.leftOver().isEmpty, "the batch left the spool")
    }

    /// A batch recovered after a crash (its target written down, its revision not yet made) goes in
    /// whole, even a page the same as one the target already holds: a blank sheet, a form scanned again.
    @Test func aRecoveredScanBatchKeepsAPageTheTargetAlreadyHas() throws {
        let setup = try Setup(rules: Self.feeder)
        let page = setup.config.inbox.path + "/page.jpg", other = setup.config.inbox.path + "/other.jpg"
        try TestImages.make(page, width: 150)
        try TestImages.make(other, width: 170)
        func batch(_ pages: [String]) throws -> ScanSpool.Batch { try Self.scanBatch(setup, pages) }
        let target = setup.config.library.root + "/Scans.pdf"
        #expect(ScanCommit(config: setup.config, store: setup.store).commit(try batch([page])).result == .ingested)
        // The next batch was routed and written down, then the daemon stopped before its revision.
        let second = try batch([page, other])
        try second.pin(target: target, prepend: false, rule: "profile feeder")
        let recovered = ScanCommit(config: setup.config, store: setup.store).commit(second)
        #expect(recovered.result == .ingested && recovered.pages == 2, "\(recovered)")
        try PDFReaders.requireAllAgree(target, pages: 3)
    }
}
