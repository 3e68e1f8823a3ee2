import Foundation
import Glibc
import TestSupport
import Testing

/// `separator = ...` on a rule: one input becomes several new documents, split at its barcode,
/// patch T or blank separator sheets, through the daemon and `pdftrapper ingest`. Pages are told
/// apart by the bars across their tops (`TinySane.bars`); every file is read by every reader.
@Suite struct SeparatorTests {
    func world(_ rule: String) throws -> Scratch {
        let scratch = try Scratch()
        try scratch.write("config.toml", TestConfig.folders() + """
            [[rule]]
            name = "split"
            mode = "new"
            \(rule)

            """)
        try FileManager.default.createDirectory(atPath: scratch.path + "/inbox", withIntermediateDirectories: true)
        return scratch
    }

    /// Every PDF below the library, relative to it, sorted.
    func documents(_ scratch: Scratch) -> [String] {
        let root = scratch.path + "/library"
        let found = FileManager.default.enumerator(atPath: root)?.compactMap { $0 as? String } ?? []
        return found.filter { $0.hasSuffix(".pdf") && !$0.hasPrefix(".pdftrapper") }.sorted()
    }

    func bars(_ path: String) throws -> [Int] {
        try (1...PDFReaders.pdfinfoPages(path)).map { TinySane.bars(in: try PNMImage(PDFReaders.renderPPM(path, page: $0))) }
    }

    func history(_ scratch: Scratch, _ document: String) throws -> [String] {
        let run = try Binary.run(["history", "library/" + document], in: scratch.url)
        return run.stdout.split(separator: "\n").map(String.init)
    }

    @Test func barcodesSplitAnInputAndNameItsDocuments() throws {
        let scratch = try world("""
            target = "Sorted/{barcode}/{stem}.pdf"
            separator = "barcode"
            separator_prefix = "DOC-"
            """)
        let daemon = try DaemonProcess(config: scratch.path + "/config.toml", in: scratch.url)
        #expect(daemon.notify.wait(for: "READY=1"), "log: \(daemon.log)")
        // A QR code without the prefix is part of a page, not a separator.
        try SeparatorSheets.make(scratch.path + "/mail.tiff", ["page:1", "page:2", "qr:DOC-Invoices", "page:3",
                                                               "code128:DOC-Letters", "page:4", "qr:OTHER", "page:5"])
        try FileManager.default.moveItem(atPath: scratch.path + "/mail.tiff", toPath: scratch.path + "/inbox/mail.tiff")
        #expect(eventually(timeout: 60) { daemon.log.contains("mail.tiff") && daemon.log.contains("3 documents") }, "\(daemon.log)")
        #expect(documents(scratch) == ["Sorted/Invoices/mail.pdf", "Sorted/Letters/mail.pdf", "Sorted/mail.pdf"], "\(daemon.log)")
        #expect(try bars(scratch.path + "/library/Sorted/mail.pdf") == [1, 2])
        #expect(try bars(scratch.path + "/library/Sorted/Invoices/mail.pdf") == [3])
        #expect(try bars(scratch.path + "/library/Sorted/Letters/mail.pdf") == [4, 0, 5])
        for (document, pages) in [("Sorted/mail.pdf", 2), ("Sorted/Invoices/mail.pdf", 1), ("Sorted/Letters/mail.pdf", 3)] {
            try PDFReaders.requireAllAgree(scratch.path + "/library/" + document, pages: pages)
            let history = try history(scratch, document)
            #expect(history.count == 1 && history[0].contains("mail.tiff"), "\(document): \(history)")
        }
        #expect(try history(scratch, "Sorted/Letters/mail.pdf")[0].contains("document 3 of 3 (barcode \"Letters\")"))
        #expect(eventually { (try? FileManager.default.contentsOfDirectory(atPath: scratch.path + "/archive"))?.isEmpty == false },
                "the input is archived once its documents are in")
        #expect(daemon.stop() == 0)
    }

    @Test func patchTSheetsSplitAPDFEitherWayUpAndAFormIsNoSeparator() throws {
        let scratch = try world("""
            target = "Split/{stem}-{seq}.pdf"
            separator = "patch-t"
            """)
        try SeparatorSheets.make(scratch.path + "/stack.pdf", ["page:1", "patch", "page:2", "page:3", "patch-upside-down",
                                                               "page:4", "form:5"])
        let run = try Binary.run(["ingest", "--config", "config.toml", "stack.pdf"], in: scratch.url)
        #expect(run.status == 0, "\(run)")
        #expect(documents(scratch) == ["Split/stack-1.pdf", "Split/stack-2.pdf", "Split/stack-3.pdf"], "\(run.stdout)")
        #expect(try bars(scratch.path + "/library/Split/stack-1.pdf") == [1])
        #expect(try bars(scratch.path + "/library/Split/stack-2.pdf") == [2, 3])
        #expect(try bars(scratch.path + "/library/Split/stack-3.pdf") == [4, 5])
        try PDFReaders.requireAllAgree(scratch.path + "/library/Split/stack-3.pdf", pages: 2)
        try PDFReaders.qpdfCheck(scratch.path + "/library/Split/stack-2.pdf")
    }

    @Test func blankSheetsSplitAndTwoInARowAreOneSeparator() throws {
        let scratch = try world("""
            target = "Split/{stem}-{seq}.pdf"
            separator = "blank"
            """)
        try SeparatorSheets.make(scratch.path + "/stack.tiff", ["blank", "page:1", "blank", "blank", "page:2", "page:3", "blank"])
        let run = try Binary.run(["ingest", "--config", "config.toml", "stack.tiff"], in: scratch.url)
        #expect(run.status == 0, "\(run)")
        #expect(documents(scratch) == ["Split/stack-1.pdf", "Split/stack-2.pdf"], "\(run.stdout)")
        #expect(try bars(scratch.path + "/library/Split/stack-1.pdf") == [1])
        #expect(try bars(scratch.path + "/library/Split/stack-2.pdf") == [2, 3])
    }

    @Test func anInputOfSeparatorsAloneIsQuarantinedWithTheReason() throws {
        let scratch = try world("""
            target = "Split/{stem}-{seq}.pdf"
            separator = "blank"
            """)
        let daemon = try DaemonProcess(config: scratch.path + "/config.toml", in: scratch.url)
        #expect(daemon.notify.wait(for: "READY=1"), "log: \(daemon.log)")
        try SeparatorSheets.make(scratch.path + "/empty.tiff", ["blank", "blank"])
        try FileManager.default.moveItem(atPath: scratch.path + "/empty.tiff", toPath: scratch.path + "/inbox/empty.tiff")
        #expect(eventually { daemon.log.contains("it holds only separator sheets") }, "\(daemon.log)")
        #expect(documents(scratch) == [])
        #expect(eventually { FileManager.default.fileExists(atPath: scratch.path + "/quarantine/empty.tiff") }, "\(daemon.log)")
        #expect(daemon.stop() == 0)
    }

    /// Killed once the first document is durable: the next run writes the others to the files
    /// chosen before, and the first is not written again.
    @Test func aCrashBetweenDocumentsWritesEachDocumentOnce() throws {
        let scratch = try world("""
            target = "Split/{stem}-{seq}.pdf"
            separator = "patch-t"
            """)
        let config = scratch.path + "/config.toml"
        let killed = try DaemonProcess(config: config, in: scratch.url, environment: ["PDFTRAPPER_CRASH_AT": "split-first-written"])
        #expect(killed.notify.wait(for: "READY=1"), "log: \(killed.log)")
        try SeparatorSheets.make(scratch.path + "/stack.tiff", ["page:1", "patch", "page:2", "patch", "page:3"])
        try FileManager.default.moveItem(atPath: scratch.path + "/stack.tiff", toPath: scratch.path + "/inbox/stack.tiff")
        #expect(eventually(timeout: 60) { !killed.process.isRunning }, "\(killed.log)")
        #expect(killed.process.terminationStatus == SIGKILL)
        #expect(documents(scratch) == ["Split/stack-1.pdf"])

        let daemon = try DaemonProcess(config: config, in: scratch.url)
        #expect(daemon.notify.wait(for: "READY=1"), "log: \(daemon.log)")
        #expect(eventually(timeout: 60) { documents(scratch).count == 3 }, "\(daemon.log)")
        #expect(eventually { (try? FileManager.default.contentsOfDirectory(atPath: scratch.path + "/archive"))?.isEmpty == false },
                "\(daemon.log)")
        sleep(1)
        #expect(documents(scratch) == ["Split/stack-1.pdf", "Split/stack-2.pdf", "Split/stack-3.pdf"], "\(daemon.log)")
        for (index, document) in documents(scratch).enumerated() {
            #expect(try bars(scratch.path + "/library/" + document) == [index + 1], "\(document)")
            #expect(try history(scratch, document).count == 1, "\(document) written once")
        }
        #expect(daemon.stop() == 0)
    }
}
