import Foundation
import Glibc
import TestSupport
import Testing

/// The daemon tried as an attacker with write access to its folders would (a shared scan folder is
/// exactly that): symlinks placed after start in every configured folder, an NFD sibling of an NFC
/// library, a swap between two ingests, colliding claims. Each test checks from outside that a decoy
/// folder outside every configured one is byte for byte as it was, and that nothing was lost.
@Suite struct ContainmentTests {
    /// Every file below `folder` (links as "-> target"), with its bytes: what "unchanged" compares.
    static func snapshot(_ folder: String) -> [String: Data] {
        var found: [String: Data] = [:]
        let enumerator = FileManager.default.enumerator(atPath: folder)
        while let relative = enumerator?.nextObject() as? String {
            let path = folder + "/" + relative
            if let target = try? FileManager.default.destinationOfSymbolicLink(atPath: path) {
                found[relative] = Data("-> \(target)".utf8)
            } else if let data = FileManager.default.contents(atPath: path) {
                found[relative] = data
            }
        }
        return found
    }

    /// A scratch folder with `config` and a decoy folder beside the configured ones, holding one file.
    func world(_ config: String) throws -> (Scratch, decoy: String) {
        let scratch = try Scratch()
        try scratch.write("config.toml", config)
        _ = try scratch.write("decoy/keep.txt", "the decoy's own file\n")
        for folder in ["inbox", "library", "quarantine", "archive", "edits"] {
            try FileManager.default.createDirectory(atPath: scratch.path + "/" + folder, withIntermediateDirectories: true)
        }
        return (scratch, scratch.path + "/decoy")
    }

    func exists(_ path: String) -> Bool {
        var status = stat()
        return lstat(path, &status) == 0
    }

    func pages(_ path: String) -> Int { (try? PDFReaders.pdfinfoPages(path)) ?? 0 }

    static let foldersConfig = TestConfig.folders(inbox: "rescan_interval = \"1s\"") + """
        [[rule]]
        name = "letters"
        target = "Letters/{stem}.pdf"
        [rule.match]
        folder = "letters"

        [[rule]]
        name = "all"
        target = "All.pdf"
        archive_as = "{folder}/{name}"

        """

    @Test func linksPlacedAfterStartInEveryFolderLeadNowhere() throws {
        let (scratch, decoy) = try world(Self.foldersConfig)
        let before = Self.snapshot(decoy)
        let daemon = try DaemonProcess(config: scratch.path + "/config.toml", in: scratch.url)
        #expect(daemon.notify.wait(for: "READY=1"), "log: \(daemon.log)")
        let all = scratch.path + "/library/All.pdf"
        try TestImages.make(scratch.path + "/inbox/first.jpg", width: 101)
        #expect(eventually { pages(all) == 1 }, "log: \(daemon.log)")

        // A link in the inbox is removed, never moved into the quarantine (where a later move would
        // follow it); its note says where it pointed.
        try FileManager.default.createSymbolicLink(atPath: scratch.path + "/inbox/evil", withDestinationPath: decoy)
        // The note is written first and the link removed after it: both, before the test writes
        // through that name (a CI run wrote through the link in between, into the decoy).
        #expect(eventually { exists(scratch.path + "/quarantine/evil.why.txt") && !exists(scratch.path + "/inbox/evil") },
                "log: \(daemon.log)")
        try #require(!exists(scratch.path + "/inbox/evil") && !exists(scratch.path + "/quarantine/evil"))
        let note = try String(contentsOfFile: scratch.path + "/quarantine/evil.why.txt", encoding: .utf8)
        #expect(note.contains("symbolic link") && note.contains(decoy) && note.contains("removed"), "\(note)")
        // So a folder of that name, and a file in it, land in the quarantine itself.
        _ = try scratch.write("inbox/evil/authorized_keys", "ssh-ed25519 AAAA attacker\n")
        #expect(eventually { exists(scratch.path + "/quarantine/evil/authorized_keys.why.txt") }, "log: \(daemon.log)")

        // A link in the quarantine: the file goes to the quarantine's top, its path folded into its name.
        try FileManager.default.createSymbolicLink(atPath: scratch.path + "/quarantine/sub", withDestinationPath: decoy)
        _ = try scratch.write("inbox/sub/bad.jpg", "not a picture")
        // The note is written first, then the file moved under its name.
        #expect(eventually { exists(scratch.path + "/quarantine/sub%2Fbad.jpg.why.txt") && exists(scratch.path + "/quarantine/sub%2Fbad.jpg") },
                "log: \(daemon.log)")

        // A link in the archive: the pages go in, the original cannot be archived there and is
        // quarantined with a note saying where its pages are.
        try FileManager.default.createSymbolicLink(atPath: scratch.path + "/archive/arch", withDestinationPath: decoy)
        try FileManager.default.createDirectory(atPath: scratch.path + "/inbox/arch", withIntermediateDirectories: true)
        try TestImages.make(scratch.path + "/inbox/arch/second.jpg", width: 102)
        #expect(eventually { exists(scratch.path + "/quarantine/arch/second.jpg.why.txt") }, "log: \(daemon.log)")
        #expect(pages(all) == 2)
        let archived = try String(contentsOfFile: scratch.path + "/quarantine/arch/second.jpg.why.txt", encoding: .utf8)
        #expect(archived.contains("its pages are in \(all)") && archived.contains("leads outside the archive"), "\(archived)")

        // A link among the daemon's own claims: the file is not claimed through it, and no retry
        // could claim it, so it goes to the quarantine with the reason.
        let claimsRoot = scratch.path + "/inbox/.pdftrapper-claims"
        let instance = try #require(try FileManager.default.contentsOfDirectory(atPath: claimsRoot).first)
        try FileManager.default.createSymbolicLink(atPath: "\(claimsRoot)/\(instance)/deep", withDestinationPath: decoy)
        try FileManager.default.createDirectory(atPath: scratch.path + "/inbox/deep", withIntermediateDirectories: true)
        try TestImages.make(scratch.path + "/inbox/deep/third.jpg", width: 103)
        #expect(eventually { exists(scratch.path + "/quarantine/deep/third.jpg.why.txt") }, "log: \(daemon.log)")
        let unclaimed = try String(contentsOfFile: scratch.path + "/quarantine/deep/third.jpg.why.txt", encoding: .utf8)
        #expect(unclaimed.contains("cannot be claimed") && unclaimed.contains("leads outside the inbox"), "\(unclaimed)")
        #expect(!daemon.log.contains("third.jpg: will retry"), "a permanent failure is not retried: \(daemon.log)")

        // A link in the library: the target is not written through it.
        try FileManager.default.createSymbolicLink(atPath: scratch.path + "/library/Letters", withDestinationPath: decoy)
        try FileManager.default.createDirectory(atPath: scratch.path + "/inbox/letters", withIntermediateDirectories: true)
        try TestImages.make(scratch.path + "/inbox/letters/bill.jpg", width: 104)
        #expect(eventually { exists(scratch.path + "/quarantine/letters/bill.jpg.why.txt") }, "log: \(daemon.log)")
        let refused = try String(contentsOfFile: scratch.path + "/quarantine/letters/bill.jpg.why.txt", encoding: .utf8)
        #expect(refused.contains("leads outside the library"), "\(refused)")

        #expect(daemon.process.isRunning, "log: \(daemon.log)")
        #expect(Self.snapshot(decoy) == before, "nothing was written outside: \(Self.snapshot(decoy).keys.sorted())")
        try PDFReaders.requireAllAgree(all, pages: 2)
        #expect(daemon.stop() == 0)
    }

    /// With `library/Letters` a link out of the library, a double-sided pair is not written there.
    @Test func aCollatedPairIsNotWrittenThroughALinkedFolder() throws {
        let (scratch, decoy) = try world(TestConfig.folders() + """
            [[rule]]
            name = "duplex"
            target = "Letters/mail.pdf"
            collate = "double-sided"
            collate_window = "1m"

            """)
        try FileManager.default.createSymbolicLink(atPath: scratch.path + "/library/Letters", withDestinationPath: decoy)
        let before = Self.snapshot(decoy)
        let daemon = try DaemonProcess(config: scratch.path + "/config.toml", in: scratch.url)
        #expect(daemon.notify.wait(for: "READY=1"), "log: \(daemon.log)")
        try TestImages.make(scratch.path + "/inbox/fronts.png", width: 100)
        #expect(eventually { daemon.log.contains("held") }, "log: \(daemon.log)")
        try TestImages.make(scratch.path + "/inbox/backs.png", width: 200)
        #expect(eventually { exists(scratch.path + "/quarantine/fronts.png.why.txt") && exists(scratch.path + "/quarantine/backs.png.why.txt") },
                "log: \(daemon.log)")
        let note = try String(contentsOfFile: scratch.path + "/quarantine/backs.png.why.txt", encoding: .utf8)
        #expect(note.contains("leads outside the library"), "\(note)")
        #expect(Self.snapshot(decoy) == before)
        #expect(daemon.stop() == 0)
    }

    /// `café` (NFC) is the library; `cafe` + U+0301 (NFD), its sibling, is not, though a String
    /// comparison takes them for one name.
    @Test func theNFDSiblingOfAnNFCLibraryIsOutsideIt() throws {
        let nfc = "caf\u{E9}", nfd = "cafe\u{301}"
        let scratch = try Scratch()
        try scratch.write("config.toml", """
            [daemon]
            state_dir = "state"
            [library]
            root = "\(nfc)"
            [inbox]
            path = "inbox"
            settle = "200ms"
            [[rule]]
            name = "all"
            target = "x/a.pdf"

            """)
        let library = scratch.path + "/" + nfc, sibling = scratch.path + "/" + nfd
        for folder in [library, sibling, scratch.path + "/inbox"] {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.path).filter { $0.hasPrefix("caf") }.count == 2,
                "two folders whose names differ only in normalization")
        try FileManager.default.createSymbolicLink(atPath: library + "/x", withDestinationPath: "../" + nfd)
        let daemon = try DaemonProcess(config: scratch.path + "/config.toml", in: scratch.url)
        #expect(daemon.notify.wait(for: "READY=1"), "log: \(daemon.log)")
        try TestImages.make(scratch.path + "/inbox/a.jpg", width: 100)
        #expect(eventually { exists(scratch.path + "/quarantine/a.jpg.why.txt") }, "log: \(daemon.log)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: sibling).isEmpty, "nothing in the NFD sibling")
        #expect(daemon.stop() == 0)
    }

    /// A folder of the library swapped for a link between two ingests into the same target: the
    /// second is refused, the first stays where it was written.
    @Test func aFolderSwappedForALinkBetweenTwoIngestsIsNotFollowed() throws {
        let (scratch, decoy) = try world(Self.foldersConfig)
        let before = Self.snapshot(decoy)
        let daemon = try DaemonProcess(config: scratch.path + "/config.toml", in: scratch.url)
        #expect(daemon.notify.wait(for: "READY=1"), "log: \(daemon.log)")
        try FileManager.default.createDirectory(atPath: scratch.path + "/inbox/letters", withIntermediateDirectories: true)
        try TestImages.make(scratch.path + "/inbox/letters/bill.jpg", width: 100)
        let bill = scratch.path + "/library/Letters/bill.pdf"
        #expect(eventually { pages(bill) == 1 }, "log: \(daemon.log)")
        try FileManager.default.moveItem(atPath: scratch.path + "/library/Letters", toPath: scratch.path + "/library/Kept")
        try FileManager.default.createSymbolicLink(atPath: scratch.path + "/library/Letters", withDestinationPath: decoy)
        try TestImages.make(scratch.path + "/inbox/letters/bill.jpg", width: 200)
        #expect(eventually { exists(scratch.path + "/quarantine/letters/bill.jpg.why.txt") }, "log: \(daemon.log)")
        #expect(Self.snapshot(decoy) == before)
        try PDFReaders.requireAllAgree(scratch.path + "/library/Kept/bill.pdf", pages: 1)
        #expect(daemon.stop() == 0)
    }

    /// While `x.png` waits among the claims (its target folder cannot be made), a second `x.png` is
    /// claimed beside it, never over it: both end as pages once the target can be written.
    @Test func aSecondClaimOfTheSameNameNeverReplacesTheFirst() throws {
        let (scratch, _) = try world(TestConfig.folders() + """
            [[rule]]
            name = "all"
            target = "Blocked/x.pdf"

            """)
        _ = try scratch.write("library/Blocked", "a file where the target's folder should be")
        let daemon = try DaemonProcess(config: scratch.path + "/config.toml", in: scratch.url)
        #expect(daemon.notify.wait(for: "READY=1"), "log: \(daemon.log)")
        try TestImages.make(scratch.path + "/inbox/x.png", width: 100)
        #expect(eventually { daemon.log.contains("will retry") }, "log: \(daemon.log)")
        try TestImages.make(scratch.path + "/inbox/x.png", width: 200)
        func claims() -> [String] { Self.snapshot(scratch.path + "/inbox/.pdftrapper-claims").keys.filter { $0.hasSuffix(".png") } }
        #expect(eventually { !exists(scratch.path + "/inbox/x.png") && claims().count == 2 }, "both wait: \(claims()) \(daemon.log)")
        #expect(daemon.stop() == 0)

        // The way is free: the restarted daemon finishes both claims.
        try FileManager.default.removeItem(atPath: scratch.path + "/library/Blocked")
        let restarted = try DaemonProcess(config: scratch.path + "/config.toml", in: scratch.url)
        #expect(restarted.notify.wait(for: "READY=1"), "log: \(restarted.log)")
        try PDFReaders.requireAllAgree(scratch.path + "/library/Blocked/x.pdf", pages: 2)
        let distinct = try Python.run("""
            import sys, pypdf
            print(len({round(float(p.mediabox.width)) for p in pypdf.PdfReader(sys.argv[1]).pages}))
            """, [scratch.path + "/library/Blocked/x.pdf"])
        #expect(distinct.trimmingCharacters(in: .whitespacesAndNewlines) == "2", "the two different pictures, one each")
        #expect(restarted.stop() == 0)
    }
}
