import Daemon
import Foundation
import Glibc
import System
import TestSupport
import Testing

/// The scan spool on real folders: who may take a batch, and what goes to quarantine.
@Suite struct ScanSpoolTests {
    @Test func aBatchBeingScannedIsNobodyElsesToTake() throws {
        let scratch = try Scratch()
        let spool = ScanSpool(stateDir: scratch.path)
        let batch = try spool.start(profile: "adf", button: "scan", device: "tiny:0", targetOverride: nil)
        try batch.addPage([1, 2, 3], fileExtension: "jpg")
        // Held by this batch, so recovery passes it over, as it would a batch another process scans.
        #expect(spool.leftOver().isEmpty)
        #expect(spool.take(batch.folder) == nil)
        batch.release()
        let taken = try #require(spool.take(batch.folder))
        #expect(taken.manifest.pages == [batch.manifest.name + "-p0001.jpg"])
        #expect(!taken.manifest.complete)
    }

    @Test func onlyPagesGoToQuarantineNotWhatACutShortWriteLeft() throws {
        let scratch = try Scratch()
        let spool = ScanSpool(stateDir: scratch.path + "/state")
        let batch = try spool.start(profile: "adf", button: nil, device: "test:0", targetOverride: nil)
        try batch.addPage([0xFF, 0xD8], fileExtension: "jpg")
        try batch.addPage([0xFF, 0xD8], fileExtension: "jpg")
        // What a kill during Durable.replace or a Foundation write leaves behind.
        _ = try scratch.write("state/scans/\(batch.manifest.id)/\(batch.manifest.name)-p0003.jpg.tmp-4242", "half a page")
        _ = try scratch.write("state/scans/\(batch.manifest.id)/batch.json.tmp-4242", "{")
        _ = try scratch.write("state/scans/\(batch.manifest.id)/.dat.nosync1234", "x")
        let quarantine = scratch.path + "/quarantine"
        ScanSpool.quarantine(batch.folder, name: batch.manifest.name, into: quarantine, rule: nil, reason: "cut short",
                             folders: try ConfinedFolders([scratch.path + "/state", quarantine]))
        let moved = try FileManager.default.contentsOfDirectory(atPath: quarantine + "/" + batch.manifest.name).sorted()
        let pages = batch.manifest.pages
        #expect(moved == [pages[0], pages[0] + ".why.txt", pages[1], pages[1] + ".why.txt"])
        #expect(!FileManager.default.fileExists(atPath: batch.folder), "the spool folder goes")
    }
}
