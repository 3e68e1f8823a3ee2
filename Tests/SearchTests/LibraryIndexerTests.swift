@testable import Daemon
import Foundation
import Search
import Testing
import TestSupport
import TrapperCore

/// The indexer over real PDFs from many producers (those made here, and the shared corpus when it
/// is beside the checkout), read by poppler, checked against pdftotext's reading of each page.
@Suite struct LibraryIndexerTests {
    let scratch: Scratch
    let indexer: LibraryIndexer
    let library: String

    init() throws {
        scratch = try Scratch()
        try scratch.write("config.toml", TestConfig.folders())
        library = scratch.path + "/library"
        try FileManager.default.createDirectory(atPath: library, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: scratch.path + "/state", withIntermediateDirectories: true)
        let config = try ConfigLoader.load(file: scratch.path + "/config.toml", environment: [:])
        indexer = LibraryIndexer(config: config) { _, line in print(line) }
    }

    /// The longest word of page `page` as pdftotext reads it (letters only, 6 or more), if any.
    func distinctiveWord(_ pdf: String, page: Int) throws -> String? {
        let text = try PDFReaders.run("pdftotext", ["-f", "\(page)", "-l", "\(page)", "-enc", "UTF-8", pdf, "-"]).text
        return text.split(whereSeparator: { !$0.isLetter }).map(String.init).filter { $0.count >= 6 && $0.count <= 30 }
            .max { ($0.count, $1) < ($1.count, $0) }
    }

    @Test func everyDocumentOfTheLibraryIsReadAndItsWordsFoundOnTheirPage() throws {
        var files = try ProducedCorpus.readableFiles().map { ($0.path, "produced") }
        if PDFCorpus.isPresent {
            files += try PDFCorpus.readableFiles().map { ($0.path, "shared") }
        } else {
            print("LibraryIndexerTests: \(PDFCorpus.missing); the produced corpus alone")
        }
        for (path, folder) in files {
            try FileManager.default.createDirectory(atPath: library + "/" + folder, withIntermediateDirectories: true)
            try FileManager.default.copyItem(atPath: path, toPath: library + "/" + folder + "/" + PDFCorpus.name(path))
        }
        let index = try indexer.open()
        let summary = try indexer.catchUp(index)
        #expect(summary.documents == files.count && summary.read == files.count && summary.failed == 0, "\(summary)")

        var checked = 0
        for (path, folder) in files {
            let relative = folder + "/" + PDFCorpus.name(path)
            let pages = try PDFReaders.pdfinfoPages(path)
            #expect(try index.document(relative)?.pages == pages, "\(relative)")
            for page in Set([1, pages]) {
                guard let word = try distinctiveWord(path, page: page) else { continue }
                let hits = try index.search(SearchQuery("\"\(word)\"", document: relative, limit: 1000)).hits
                #expect(hits.contains { $0.page == page }, "\(relative): \(word) on page \(page); found on \(hits.map(\.page))")
                checked += 1
            }
        }
        #expect(checked >= files.count / 2, "words checked: \(checked) in \(files.count) documents")

        // Nothing changed: nothing is read again.
        #expect(try indexer.catchUp(index) == LibraryIndexer.Summary(documents: files.count))
    }

    @Test func aDocumentAnotherProgramRewroteIsReadAgainAndOneDeletedIsForgotten() throws {
        try TextPDF.make(library + "/a.pdf", lines: [(40, 200, 14, "Quarterly zeppelin report")])
        try TextPDF.make(library + "/b.pdf", lines: [(40, 200, 14, "Kept marmalade recipe")])
        let index = try indexer.open()
        try indexer.catchUp(index)
        #expect(try index.search(SearchQuery("zeppelin")).hits.map(\.path) == ["a.pdf"])

        // Saved the way editors save: a new file renamed over the old.
        try TextPDF.make(scratch.path + "/new.pdf", lines: [(40, 200, 14, "Quarterly submarine report")])
        #expect(rename(scratch.path + "/new.pdf", library + "/a.pdf") == 0)
        try FileManager.default.removeItem(atPath: library + "/b.pdf")
        let summary = try indexer.catchUp(index)
        #expect(summary == LibraryIndexer.Summary(documents: 1, read: 1, forgotten: 1))
        #expect(try index.search(SearchQuery("zeppelin")).hits.isEmpty)
        #expect(try index.search(SearchQuery("submarine")).hits.map(\.path) == ["a.pdf"])
        #expect(try index.search(SearchQuery("marmalade")).hits.isEmpty)
    }

    @Test func aRevisionHeardIsIndexedByTheThreadAndAnUnreadableFileIsSaidNotFatal() throws {
        try TextPDF.make(library + "/a.pdf", lines: [(40, 200, 14, "Heard about the walrus")])
        try Data("%PDF-1.7\nnot really\n".utf8).write(to: URL(fileURLWithPath: library + "/broken.pdf"))
        indexer.start()
        defer { indexer.stop() }
        #expect(eventually(timeout: 20) { (try? LibraryIndex(readingAt: indexer.indexPath).search(SearchQuery("walrus")).hits.count) == 1 })
        try TextPDF.make(library + "/a.pdf", lines: [(40, 200, 14, "Heard about the narwhal")])
        indexer.revisionCommitted(RevisionCommitted(target: library + "/a.pdf", base: 0, end: 1, operation: "changed", elsewhere: true))
        #expect(eventually(timeout: 20) { (try? LibraryIndex(readingAt: indexer.indexPath).search(SearchQuery("narwhal")).hits.count) == 1 })
        #expect(try LibraryIndex(readingAt: indexer.indexPath).search(SearchQuery("walrus")).hits.isEmpty)
    }
}
