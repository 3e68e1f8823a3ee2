import Daemon
import Foundation
import PDFAccess
import TestSupport
import Testing
import TrapperCore

/// The front door: every way in describes what arrived the same way, and keeps one list of open
/// batches, so a scan and an inbox file are judged by the same facts and join the same batch.
@Suite struct FrontDoorTests {
    /// Scan pages of `width` pixels in the setup's folder, one file each; their bytes in all.
    static func pages(_ setup: InboxTests.Setup, width: Int, count: Int) throws -> [String] {
        try (0..<count).map { index in
            let page = setup.scratch.path + "/page-\(width)-\(index).jpg"
            try TestImages.make(page, width: width, height: width, options: "quality=95")
            return page
        }
    }

    static func bytes(_ paths: [String]) -> Int {
        paths.reduce(0) { $0 + ((try? FileManager.default.attributesOfItem(atPath: $1)[.size] as? Int) ?? 0) }
    }

    /// A size rule judges a scan by the bytes of its pages as stored, as it judges an inbox file by
    /// its own (it used to see the scan's page count as its size, so no size rule ever took a scan).
    @Test func aSizeRuleJudgesAScanByItsPagesBytes() throws {
        let setup = try InboxTests.Setup(rules: """
            [[rule]]
            name = "large"
            target = "Large.pdf"
            match = { source = "scanner", min_size = "40KB" }

            [[rule]]
            name = "small"
            target = "Small.pdf"
            match = { source = "scanner" }

            [profile.feeder]
            source = "adf"

            """)
        let small = try Self.pages(setup, width: 60, count: 2)
        let large = try Self.pages(setup, width: 1200, count: 2)
        #expect(Self.bytes(small) < 40_000 && Self.bytes(large) >= 60_000, "\(Self.bytes(small)), \(Self.bytes(large))")
        let spool = ScanSpool(stateDir: setup.config.daemon.stateDir)
        for (pages, target) in [(small, "Small.pdf"), (large, "Large.pdf")] {
            let batch = try spool.start(profile: "feeder", button: nil, device: "test:0", targetOverride: nil)
            for page in pages { try batch.addPage(Array(try Data(contentsOf: URL(fileURLWithPath: page))), fileExtension: "jpg") }
            try batch.markComplete()
            let outcome = ScanCommit(config: setup.config, store: setup.store).commit(batch)
            #expect(outcome.result == .ingested && outcome.target == setup.config.library.root + "/" + target, "\(outcome)")
        }
        try PDFReaders.requireAllAgree(setup.config.library.root + "/Small.pdf", pages: 2)
        try PDFReaders.requireAllAgree(setup.config.library.root + "/Large.pdf", pages: 2)
    }

    static let batchRule = """
        [[rule]]
        name = "batch"
        target = "Batch-{seq}.pdf"
        mode = "batch"
        batch_window = "10m"

        [profile.feeder]
        source = "adf"

        """

    /// One list of open batches for the inbox and the scanner: a scan the rules route to a batch
    /// joins the one an inbox file opened, and the next inbox file joins it too.
    @Test func aScanJoinsTheBatchAnInboxFileOpenedAndTheOtherWayRound() throws {
        let setup = try InboxTests.Setup(rules: Self.batchRule)
        let target = setup.config.library.root + "/Batch-1.pdf"
        _ = try setup.drop("a.jpg")
        #expect(setup.take("a.jpg")?.target == target)
        let batch = try CapturePipelineTests.scanBatch(setup, try Self.pages(setup, width: 120, count: 2))
        let scanned = ScanCommit(config: setup.config, store: setup.store).commit(batch)
        #expect(scanned.result == .ingested && scanned.target == target, "\(scanned)")
        _ = try setup.drop("b.jpg", width: 222)
        #expect(setup.take("b.jpg")?.target == target)
        try PDFReaders.requireAllAgree(target, pages: 4)
        let open = OpenBatches(config: setup.config, files: setup.store.folders, folders: setup.store.folders).read()
        #expect(open.mapValues(\.target) == ["batch": target])
        #expect(!setup.exists(setup.config.daemon.stateDir + "/scan-batches.json"))
    }

    /// The list the scanner kept on its own before is read, and goes once the one list is written.
    @Test func theScannersOldListIsTakenIn() throws {
        let setup = try InboxTests.Setup(rules: Self.batchRule)
        let legacy = setup.config.daemon.stateDir + "/scan-batches.json"
        let old = setup.config.library.root + "/Batch-7.pdf"
        try FileManager.default.createDirectory(atPath: setup.config.daemon.stateDir, withIntermediateDirectories: true)
        try Data(OpenBatch.encode(["batch": OpenBatch(target: old, last: Date())])).write(to: URL(fileURLWithPath: legacy))
        _ = try setup.drop("a.jpg")
        #expect(setup.take("a.jpg")?.target == old, "a batch the scanner had open is joined")
        #expect(!setup.exists(legacy))
        let open = OpenBatches(config: setup.config, files: setup.store.folders, folders: setup.store.folders).read()
        #expect(open.mapValues(\.target) == ["batch": old])
    }
}
