import Foundation
import Glibc
import TestSupport
import Testing

/// `pdftrapper search` and `index` as a user runs them, and the daemon keeping the index current:
/// what they find is checked from outside (the command's output, the SQLite file read by Python's
/// own sqlite3, pdftotext).
@Suite struct SearchEndToEndTests {
    func world(ocr: Bool = false) throws -> Scratch {
        let scratch = try Scratch()
        try scratch.write("config.toml", TestConfig.folders(settle: "100ms") + """
            [[rule]]
            name = "paper"
            target = "Paper.pdf"
            \(ocr ? "ocr = [\"eng\"]" : "")

            """)
        for folder in ["library", "inbox", "state"] {
            try FileManager.default.createDirectory(atPath: scratch.path + "/" + folder, withIntermediateDirectories: true)
        }
        return scratch
    }

    func search(_ scratch: Scratch, _ arguments: String...) throws -> Run {
        try Binary.run(["search"] + arguments + ["--config", "config.toml"], in: scratch.url)
    }

    /// The words the SQLite file holds for `path`, read by Python's sqlite3, not by PDFTrapper.
    func indexed(_ scratch: Scratch, _ word: String) throws -> [String] {
        let run = try PDFReaders.run("python3", ["-c", """
            import sqlite3, sys
            db = sqlite3.connect("file:" + sys.argv[1] + "?mode=ro", uri=True, timeout=10)
            rows = db.execute("SELECT d.path, (texts.rowid & 1048575) + 1 FROM texts JOIN documents d ON d.id = texts.rowid >> 20 "
                              "WHERE texts MATCH ? ORDER BY 1, 2", (sys.argv[2],)).fetchall()
            print("\\n".join(f"{path}:{page}" for path, page in rows))
            """, scratch.path + "/state/search.sqlite", word])
        return run.text.split(separator: "\n").map(String.init)
    }

    @Test func aWordOnlyOCRFoundIsFoundAndUndoTakesAPagesWordsAway() throws {
        let scratch = try world(ocr: true)
        try TextPages.make(scratch.path + "/page.jpg")
        #expect(try Binary.run(["ingest", "--to", "library/Paper.pdf", "page.jpg"], in: scratch.url).status == 0)
        let before = try search(scratch, "invoices")
        #expect(before.status == 1 && before.stdout.isEmpty, "a picture has no words before OCR: \(before.stdout)")
        #expect(try Binary.run(["ocr", "library/Paper.pdf", "--config", "config.toml"], in: scratch.url).status == 0)
        let found = try search(scratch, "invoices")
        #expect(found.status == 0, "\(found.stderr)")
        #expect(found.stdout.hasPrefix("Paper.pdf:1: ") && found.stdout.contains("[invoices]"), "\(found.stdout)")

        try TextPDF.make(scratch.path + "/memo.pdf", lines: [(40, 200, 14, "Memo about the quokka enclosure")])
        #expect(try Binary.run(["ingest", "--to", "library/Paper.pdf", "memo.pdf"], in: scratch.url).status == 0)
        #expect(try search(scratch, "quokka").stdout == "Paper.pdf:2: Memo about the [quokka] enclosure\n")
        #expect(try Binary.run(["undo", "library/Paper.pdf", "--config", "config.toml"], in: scratch.url).status == 0)
        let undone = try search(scratch, "quokka")
        #expect(undone.status == 1 && undone.stdout.isEmpty, "undo took the page and its words: \(undone.stdout)")
        #expect(try search(scratch, "invoices").status == 0)
    }

    @Test func phrasesPrefixesFoldersDatesAndJSON() throws {
        let scratch = try world()
        try FileManager.default.createDirectory(atPath: scratch.path + "/library/bills", withIntermediateDirectories: true)
        try TextPDF.make(scratch.path + "/library/bills/power.pdf", lines: [(40, 200, 14, "Electricity bill, direct debit")])
        try TextPDF.make(scratch.path + "/library/letter.pdf", lines: [(40, 200, 14, "A letter about electricity prices")])
        #expect(try search(scratch, "\"direct debit\"").stdout == "bills/power.pdf:1: Electricity bill, [direct debit]\n")
        #expect(try search(scratch, "electri*").stdout.split(separator: "\n").count == 2)
        #expect(try search(scratch, "electricity", "--in", "bills").stdout == "bills/power.pdf:1: [Electricity] bill, direct debit\n")
        #expect(try search(scratch, "electricity", "--before", "2000-01-01").status == 1)
        #expect(try search(scratch, "electricity", "--after", "2000-01-01").stdout.split(separator: "\n").count == 2)

        let json = try search(scratch, "debit", "--json")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        let hits = try #require(object["hits"] as? [[String: Any]])
        #expect(hits.count == 1 && hits[0]["path"] as? String == "bills/power.pdf" && hits[0]["page"] as? Int == 1)
        #expect(hits[0]["found"] as? [String] == ["debit"] && hits[0]["snippet"] as? String == "Electricity bill, direct debit")
        #expect(object["literal"] as? Bool == false && object["more"] as? Bool == false)

        let refused = try search(scratch, String(repeating: "x", count: 2000))
        #expect(refused.status == 64 && refused.stderr == "pdftrapper search: the query is 2000 bytes long; at most 1024\n")
        let literal = try search(scratch, "bill,\"")
        #expect(literal.status == 0 && literal.stderr.contains("searched for the words as written"), "\(literal.stderr)")
        let badDate = try search(scratch, "bill", "--after", "yesterday")
        #expect(badDate.status == 64 && badDate.stderr.contains("--after yesterday: not a date"))
    }

    @Test func theDaemonKeepsTheIndexCurrentWithItsOwnRevisionsAndOtherPrograms() throws {
        let scratch = try world()
        let daemon = try DaemonProcess(config: scratch.path + "/config.toml", in: scratch.url)
        defer { _ = daemon.stop() }
        try #require(daemon.notify.wait(for: "READY=1"), "\(daemon.log)")
        try TextPDF.make(scratch.path + "/inbox/first.pdf", lines: [(40, 200, 14, "Albatross sighting report")])
        #expect(eventually { (try? indexed(scratch, "albatross")) == ["Paper.pdf:1"] }, "\(daemon.log)")

        // Another program's revision, through the library watch: pdftrapper ingest from the shell.
        try TextPDF.make(scratch.path + "/second.pdf", lines: [(40, 200, 14, "Pelican sighting report")])
        #expect(try Binary.run(["ingest", "--to", "library/Paper.pdf", "second.pdf"], in: scratch.url).status == 0)
        #expect(eventually { (try? indexed(scratch, "pelican")) == ["Paper.pdf:2"] }, "\(daemon.log)")

        // Another program rewrites the file whole (a viewer's save): its words are the file's now.
        #expect(try PDFReaders.run("qpdf", [scratch.path + "/library/Paper.pdf", "--pages", ".", "2", "--",
                                            scratch.path + "/rewritten.pdf"]).status == 0)
        #expect(rename(scratch.path + "/rewritten.pdf", scratch.path + "/library/Paper.pdf") == 0)
        #expect(eventually { (try? indexed(scratch, "albatross")) == [] && (try? indexed(scratch, "pelican")) == ["Paper.pdf:1"] },
                "\((try? indexed(scratch, "albatross")) ?? []) \((try? indexed(scratch, "pelican")) ?? [])\n\(daemon.log)")
        #expect(daemon.stop() == 0)
    }

    @Test func aDeletedIndexIsMadeAgainAndAKilledIndexerLeavesOneThatIsCurrentOrMadeAnew() throws {
        let scratch = try world()
        for number in 1...60 {
            try TextPDF.make(scratch.path + "/library/doc-\(number).pdf", lines: [(40, 200, 14, "Document number\(number) of sixty")])
        }
        let expected = (1...60).map { "doc-\($0).pdf:1" }.sorted()
        func all() throws -> [String] {
            try search(scratch, "sixty", "--limit", "100").stdout.split(separator: "\n").map { String($0.split(separator: ":")[0]) + ":1" }.sorted()
        }
        #expect(try all() == expected)

        try FileManager.default.removeItem(atPath: scratch.path + "/state/search.sqlite")
        #expect(try all() == expected, "made again from the library")

        // kill -9 while `index --rebuild` writes, at moments spread over its run (the same each
        // run): what is left opens, passes SQLite's own check, and the next search finds exactly
        // what the library holds.
        for delay: UInt32 in [20_000, 90_000, 200_000, 400_000] {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: Binary.path)
            process.arguments = ["index", "--rebuild", "--config", "config.toml"]
            process.currentDirectoryURL = scratch.url
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            usleep(delay)
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            if FileManager.default.fileExists(atPath: scratch.path + "/state/search.sqlite") {
                let check = try PDFReaders.run("sqlite3", [scratch.path + "/state/search.sqlite", "PRAGMA integrity_check"])
                #expect(check.text == "ok\n", "\(check.text)\(check.stderr)")
            }
            #expect(try all() == expected)
        }
        try FileManager.default.removeItem(atPath: scratch.path + "/library/doc-7.pdf")
        #expect(try all() == expected.filter { $0 != "doc-7.pdf:1" })
    }
}
