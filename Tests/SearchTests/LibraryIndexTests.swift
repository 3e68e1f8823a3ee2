import Foundation
@testable import Search
import Testing
import TestSupport

/// The index itself, on a real SQLite file: what FTS5 finds, in what order, narrowed how, and
/// what it does with queries that are not its syntax and with a file that is not a database.
@Suite struct LibraryIndexTests {
    let scratch: Scratch
    let index: LibraryIndex

    init() throws {
        scratch = try Scratch()
        index = try LibraryIndex(path: scratch.path + "/search.sqlite")
    }

    func add(_ path: String, _ pages: [String], notes: [String] = [], created: String = "2026-01-05", modified: String? = nil,
             rule: String? = nil) throws {
        let document = LibraryIndex.Document(path: path, stamp: "1:\(path.hashValue):0:0", size: 0, pages: pages.count,
                                             created: SearchQuery.date(created)!, modified: SearchQuery.date(modified ?? created)!, rule: rule)
        try index.replace(document, pages: pages.enumerated().map { number, text in
            LibraryIndex.Page(text: text, notes: number < notes.count ? notes[number] : "")
        })
    }

    func found(_ text: String, folder: String? = nil, after: String? = nil, before: String? = nil) throws -> [String] {
        let query = try SearchQuery(text, folder: folder, after: after.flatMap(SearchQuery.date), before: before.flatMap(SearchQuery.date))
        return try index.search(query).hits.map { "\($0.path):\($0.page)" }
    }

    @Test func wordsPhrasesPrefixesAndAccentsAsFTS5HasThem() throws {
        try add("bills/power.pdf", ["Electricity bill for November", "Total due 84.20 EUR, paid by direct debit"])
        try add("letters/café.pdf", ["Le Café de la Gare vous remercie", "Über die Straße: Grüße"], notes: ["", "signed by Zoë"])
        try add("letters/russian.pdf", ["Счёт за электричество, ноябрь"])

        #expect(try found("electricity") == ["bills/power.pdf:1"])
        #expect(try found("\"direct debit\"") == ["bills/power.pdf:2"])
        #expect(try found("\"debit direct\"").isEmpty, "a phrase keeps its order")
        #expect(try found("elec*") == ["bills/power.pdf:1"])
        #expect(try found("cafe") == ["letters/café.pdf:1"], "accents do not matter")
        #expect(try found("uber") == ["letters/café.pdf:2"])
        #expect(try found("zoe") == ["letters/café.pdf:2"], "the text of a note is found")
        #expect(try found("СЧЁТ") == ["letters/russian.pdf:1"], "Cyrillic, whatever the case")
        #expect(try found("электричество") == ["letters/russian.pdf:1"])
        #expect(try found("bill NOT november") == [])
        #expect(try found("total NOT november") == ["bills/power.pdf:2"])
        #expect(try found("NEAR(total paid, 5)") == ["bills/power.pdf:2"])

        let hit = try #require(try index.search(SearchQuery("debit")).hits.first)
        #expect(hit.pieces.filter(\.found).map(\.text) == ["debit"])
        #expect(hit.pieces.map(\.text).joined() == "Total due 84.20 EUR, paid by direct debit")
        #expect(hit.pages == 2)
    }

    @Test func bestFirstAndTheNewerDocumentFirstOnATie() throws {
        try add("a.pdf", ["receipt"], created: "2026-01-01")
        try add("b.pdf", ["receipt"], created: "2026-03-01")
        try add("c.pdf", ["receipt receipt receipt for the receipt"], created: "2025-01-01")
        try add("d.pdf", ["a long page that mentions the receipt once among very many other words of no interest at all"],
                created: "2026-06-01")
        let order = try found("receipt")
        #expect(order.first == "c.pdf:1", "the page that says it most: \(order)")
        #expect(order.firstIndex(of: "b.pdf:1")! < order.firstIndex(of: "a.pdf:1")!, "equal pages, the newer first: \(order)")
        #expect(order.last == "d.pdf:1", "\(order)")
    }

    @Test func aFolderAndDatesNarrowTheSearch() throws {
        try add("2025/old.pdf", ["insurance policy"], created: "2025-02-01", modified: "2025-03-01")
        try add("2026/new.pdf", ["insurance renewal"], created: "2026-02-01", modified: "2026-02-10")
        try add("2026-other/x.pdf", ["insurance"], created: "2026-02-01")
        #expect(try found("insurance", folder: "2026") == ["2026/new.pdf:1"], "a folder, not a name's beginning")
        #expect(try found("insurance", folder: "2026/") == ["2026/new.pdf:1"])
        #expect(try found("insurance", after: "2026-01-01").sorted() == ["2026-other/x.pdf:1", "2026/new.pdf:1"])
        #expect(try found("insurance", before: "2026-01-01") == ["2025/old.pdf:1"])
        #expect(try found("insurance", after: "2025-02-15", before: "2026-01-01") == ["2025/old.pdf:1"], "a revision inside the span")
        #expect(throws: SearchQuery.Refusal.self) { try SearchQuery("x", after: SearchQuery.date("2026-02-01"), before: SearchQuery.date("2026-01-01")) }
    }

    @Test func pagesFromOneOnAreReplacedAndAForgottenDocumentIsGone() throws {
        try add("doc.pdf", ["alpha", "bravo", "charlie"])
        var document = try #require(try index.document("doc.pdf"))
        document.pages = 2
        try index.replace(document, pages: [LibraryIndex.Page(text: "delta")], from: 1)
        #expect(try found("alpha") == ["doc.pdf:1"], "pages before the first replaced are kept")
        #expect(try found("delta") == ["doc.pdf:2"])
        #expect(try found("bravo").isEmpty && (try found("charlie")).isEmpty, "pages after the last given are dropped")
        try index.remove("doc.pdf")
        #expect(try found("alpha").isEmpty)
        #expect(try index.documents().isEmpty)
    }

    @Test func wordsOnMorePagesThanTheWindowAreRankedAmongTheNewest() throws {
        try add("old.pdf", Array(repeating: "common alpha", count: 20))
        try add("new.pdf", Array(repeating: "common words on a newer page", count: LibraryIndex.rankedWindow))
        let common = try index.search(SearchQuery("common"))
        #expect(common.window == LibraryIndex.rankedWindow && common.more && common.hits.count == 50)
        #expect(Set(common.hits.map(\.path)) == ["new.pdf"], "the older document's pages are past the window")
        let narrowed = try index.search(SearchQuery("common alpha"))
        #expect(narrowed.window == nil && narrowed.hits.count == 20 && Set(narrowed.hits.map(\.path)) == ["old.pdf"])
        #expect(try index.search(SearchQuery("common", document: "old.pdf", limit: 100)).hits.count == 20,
                "within one document, its own pages")
        #expect(try index.search(SearchQuery("alpha")).window == nil)
    }

    @Test func aRuleOnceKnownIsKeptWhenTheDocumentIsReadAgainWithoutIt() throws {
        try add("r.pdf", ["x"], rule: "receipts")
        try add("r.pdf", ["y"])
        #expect(try index.document("r.pdf")?.rule == "receipts")
    }

    @Test(arguments: ["\"", "*", "NEAR(", "don't", "C++", "foo:bar", "-x", "(", "a AND", "'; DROP TABLE documents; --",
                      "\" OR 1=1 --", "\u{E000}", "💥"])
    func aQueryThatIsNotFTS5SyntaxIsSearchedAsWritten(_ text: String) throws {
        try add("odd.pdf", ["don't panic: C++ and foo:bar, 1=1 OR drop table documents 💥"])
        let results = try index.search(SearchQuery(text))
        // Answered, never an error; the documents table is still there.
        #expect(try index.documents().count == 1)
        if ["don't", "C++", "foo:bar", "'; DROP TABLE documents; --", "\" OR 1=1 --"].contains(text) {
            #expect(results.hits.map(\.path) == ["odd.pdf"], "\(text): \(results)")
        }
    }

    @Test func queriesNobodyTypesAreRefusedWithAReason() throws {
        #expect(throws: SearchQuery.Refusal(description: "the query holds a NUL byte")) { try SearchQuery("inv\u{0}oice") }
        #expect(throws: SearchQuery.Refusal(description: "the query is 10240 bytes long; at most 1024")) {
            try SearchQuery(String(repeating: "invoice ", count: 1280))
        }
        #expect(throws: SearchQuery.Refusal(description: "the query is empty")) { try SearchQuery("  \t") }
        #expect(throws: SearchQuery.Refusal.self) { try SearchQuery("invoice OR b*") }
        #expect(throws: SearchQuery.Refusal.self) { try SearchQuery("(x*)") }
        #expect(try SearchQuery("in* 12* éc*").text == "in* 12* éc*", "two letters or more make a prefix")
        // 1 KB of words is still answered.
        try add("a.pdf", ["invoice"])
        #expect(try index.search(SearchQuery(String(repeating: "invoice ", count: 128))).hits.count == 1)
    }

    @Test func aFileThatIsNotAnIndexIsSetAsideAndMadeAnew() throws {
        let path = scratch.path + "/damaged.sqlite"
        do {
            // Closed at the end of this block, which moves everything from the WAL into the file.
            let other = try LibraryIndex(path: path)
            try other.replace(LibraryIndex.Document(path: "a.pdf", stamp: "s", size: 1, pages: 1, created: Date(), modified: Date()),
                              pages: [LibraryIndex.Page(text: String(repeating: "kept words ", count: 2000))])
        }
        // What a disk error or a stray write leaves: the header fine, the rest garbage.
        var damaged = try Data(contentsOf: URL(fileURLWithPath: path))
        #expect(damaged.count > 8192, "the index was written to its file")
        for offset in stride(from: 100, to: damaged.count, by: 7) { damaged[offset] = 0xA5 }
        try damaged.write(to: URL(fileURLWithPath: path))
        do {
            let remade = try LibraryIndex(path: path)
            #expect(remade.remade?.hasPrefix("damaged") == true, "\(remade.remade ?? "not remade")")
            #expect(try remade.documents().isEmpty)
        }

        try Data("not a database at all, a text file that took its name".utf8).write(to: URL(fileURLWithPath: path))
        #expect(try LibraryIndex(path: path).remade?.hasPrefix("damaged") == true)
    }
}
