import CSQLite
import Foundation
import System

/// The library's search index: an SQLite file in the state folder with an FTS5 table of every
/// page's text (its text layer, ours from OCR or the PDF's own) and the text of its notes and text
/// boxes, and a row per document (its path in the library, dates, size, page count, the rule that
/// made it). Words are found without regard to case or accents (unicode61, remove_diacritics 2),
/// in any script the tokenizer splits on spaces and punctuation.
///
/// It is never trusted over the PDFs: each document's row keeps the identity of the file it was read
/// from, and whoever reads the index first brings stale documents up to date (`LibraryIndexer`).
/// A file that is not a database, or a damaged one, is set aside and made anew, to be filled again
/// from the library.
///
/// A page's row id is its document's id times 2^20 plus its index, so that one document's pages
/// are one range of row ids: replacing them never scans the whole table.
public final class LibraryIndex {
    /// A document as the index holds it.
    public struct Document: Equatable, Sendable {
        /// Its path below the library's root.
        public var path: String
        /// The file it was read from: device, inode, length and modification time (`Stamp`).
        public var stamp: String
        public var size: Int
        public var pages: Int
        /// When its first and last revisions were made (the file's time when it has no history).
        public var created: Date
        public var modified: Date
        /// The rule (or scan profile) that made it, when it was indexed as it was made.
        public var rule: String?
        /// Why its words could not be read (encrypted, damaged): not tried again until the file changes.
        public var problem: String?

        public init(path: String, stamp: String, size: Int, pages: Int, created: Date, modified: Date, rule: String? = nil,
                    problem: String? = nil) {
            self.path = path
            self.stamp = stamp
            self.size = size
            self.pages = pages
            self.created = created
            self.modified = modified
            self.rule = rule
            self.problem = problem
        }
    }

    /// A page's words: its text layer, and the text of its notes and text boxes.
    public struct Page: Equatable, Sendable {
        public var text: String
        public var notes: String

        public init(text: String, notes: String = "") {
            self.text = text
            self.notes = notes
        }
    }

    public struct Failure: Error, CustomStringConvertible, Equatable {
        public var description: String
        public init(description: String) { self.description = description }
    }

    /// Bumped when the schema changes: an index of another version is made anew.
    static let schemaVersion = 2
    static let pageBits: Int64 = 20
    public static let maxPages = 1 << 20

    public let path: String
    private let database: SQLiteDatabase
    /// Set when the file was set aside as damaged (or of another version) and made anew: why.
    public private(set) var remade: String?

    /// Opens the index at `path`, making it when missing and making it anew when it is damaged.
    /// `thorough`: SQLite's quick check of every page first (a second for a 100,000-page index),
    /// as the indexer does at start; without it, only its header and schema are looked at.
    public init(path: String, thorough: Bool = true) throws(Failure) {
        self.path = path
        do {
            database = try Self.openChecked(path, thorough: thorough)
        } catch let failure as SQLiteDatabase.Failure where failure.isDamage || failure.code == Self.staleSchema {
            remade = failure.code == Self.staleSchema ? "made by another version" : "damaged (\(failure.message))"
            for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
            do {
                database = try Self.openChecked(path, thorough: thorough)
            } catch {
                throw Failure(description: "search index \(path): \(error)")
            }
        } catch {
            throw Failure(description: "search index \(path): \(error)")
        }
    }

    /// Opens the index at `path` to search it, as it is: made and checked by its indexer, which
    /// may be writing it meanwhile.
    public init(readingAt path: String) throws(Failure) {
        self.path = path
        do {
            database = try SQLiteDatabase(path: path, create: false)
            let version = try database.rows("PRAGMA user_version").first?.first?.integer ?? 0
            guard version == Self.schemaVersion else { throw Failure(description: "search index \(path): not made yet") }
        } catch let failure as Failure {
            throw failure
        } catch {
            throw Failure(description: "search index \(path): \(error)")
        }
    }

    private static let staleSchema: Int32 = -1

    private static func openChecked(_ path: String, thorough: Bool) throws -> SQLiteDatabase {
        let database = try SQLiteDatabase(path: path)
        // WAL: searches read while the indexer writes. NORMAL: a power cut may lose the last
        // transactions, never the file's consistency; what is lost is indexed again from the PDFs.
        // WAL's shared memory does not work across the hosts of a network file system: there, a
        // rollback journal and the file system's locks.
        let shared = SharedMount.containing((path as NSString).deletingLastPathComponent)?.isShared == true
        try database.execute("PRAGMA journal_mode = \(shared ? "DELETE" : "WAL"); PRAGMA synchronous = NORMAL")
        let check = thorough ? try database.rows("PRAGMA quick_check").first?.first?.text : "ok"
        guard check == "ok" else { throw SQLiteDatabase.Failure(code: SQLITE_CORRUPT, message: check ?? "quick_check said nothing") }
        let version = try database.rows("PRAGMA user_version").first?.first?.integer ?? 0
        if version == 0 {
            try database.transaction {
                try database.execute("""
                    CREATE TABLE documents(
                        id INTEGER PRIMARY KEY, path TEXT NOT NULL UNIQUE, stamp TEXT NOT NULL, size INTEGER NOT NULL,
                        pages INTEGER NOT NULL, created REAL NOT NULL, modified REAL NOT NULL, rule TEXT, problem TEXT);
                    CREATE VIRTUAL TABLE texts USING fts5(text, notes, tokenize = 'unicode61 remove_diacritics 2', prefix = '2 3');
                    PRAGMA user_version = \(schemaVersion);
                    """)
            }
        } else if version != schemaVersion {
            throw SQLiteDatabase.Failure(code: staleSchema, message: "schema \(version)")
        }
        return database
    }

    // MARK: what it holds

    /// Every document it holds, by path.
    public func documents() throws(Failure) -> [String: Document] {
        var found: [String: Document] = [:]
        for row in try rows("SELECT path, stamp, size, pages, created, modified, rule, problem FROM documents") {
            let document = Self.document(row)
            found[document.path] = document
        }
        return found
    }

    public func document(_ path: String) throws(Failure) -> Document? {
        try rows("SELECT path, stamp, size, pages, created, modified, rule, problem FROM documents WHERE path = ?", [.text(path)]).first.map(Self.document)
    }

    private static func document(_ row: [SQLiteDatabase.Value]) -> Document {
        Document(path: row[0].text ?? "", stamp: row[1].text ?? "", size: Int(row[2].integer ?? 0), pages: Int(row[3].integer ?? 0),
                 created: Date(timeIntervalSince1970: row[4].real ?? 0), modified: Date(timeIntervalSince1970: row[5].real ?? 0),
                 rule: row[6].text, problem: row[7].text)
    }

    /// The text of page `index` (from 0) of the document at `path`, as indexed.
    public func page(_ path: String, _ index: Int) throws(Failure) -> Page? {
        guard let id = try documentID(path) else { return nil }
        return try rows("SELECT text, notes FROM texts WHERE rowid = ?", [.integer(Self.rowid(id, index))]).first.map {
            Page(text: $0[0].text ?? "", notes: $0[1].text ?? "")
        }
    }

    // MARK: change

    /// Records `document` with its pages from `firstPage` on as `pages` (those before it are kept,
    /// those after the last given are dropped), in one transaction: a search sees the document as
    /// it was or as it is, never half of it.
    public func replace(_ document: Document, pages: [Page], from firstPage: Int = 0) throws(Failure) {
        guard document.pages <= Self.maxPages else { throw Failure(description: "\(document.path): more than \(Self.maxPages) pages") }
        do {
            try database.transaction {
                try database.rows("""
                    INSERT INTO documents(path, stamp, size, pages, created, modified, rule, problem) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                    ON CONFLICT(path) DO UPDATE SET stamp = excluded.stamp, size = excluded.size, pages = excluded.pages,
                        created = excluded.created, modified = excluded.modified, rule = coalesce(excluded.rule, documents.rule),
                        problem = excluded.problem
                    """, [.text(document.path), .text(document.stamp), .integer(Int64(document.size)), .integer(Int64(document.pages)),
                          .real(document.created.timeIntervalSince1970), .real(document.modified.timeIntervalSince1970),
                          document.rule.map { .text($0) } ?? .null, document.problem.map { .text($0) } ?? .null])
                guard let id = try database.rows("SELECT id FROM documents WHERE path = ?", [.text(document.path)]).first?.first?.integer
                else { return }
                try database.rows("DELETE FROM texts WHERE rowid BETWEEN ? AND ?",
                                  [.integer(Self.rowid(id, firstPage)), .integer(Self.rowid(id, Self.maxPages - 1))])
                for (offset, page) in pages.enumerated() {
                    try database.rows("INSERT INTO texts(rowid, text, notes) VALUES (?, ?, ?)",
                                      [.integer(Self.rowid(id, firstPage + offset)), .text(Self.clean(page.text)), .text(Self.clean(page.notes))])
                }
            }
        } catch {
            throw Failure(description: "search index: \(document.path): \(error)")
        }
    }

    /// Forgets the document at `path` (gone from the library).
    public func remove(_ path: String) throws(Failure) {
        do {
            try database.transaction {
                guard let id = try database.rows("SELECT id FROM documents WHERE path = ?", [.text(path)]).first?.first?.integer else { return }
                try database.rows("DELETE FROM texts WHERE rowid BETWEEN ? AND ?",
                                  [.integer(Self.rowid(id, 0)), .integer(Self.rowid(id, Self.maxPages - 1))])
                try database.rows("DELETE FROM documents WHERE id = ?", [.integer(id)])
            }
        } catch {
            throw Failure(description: "search index: \(path): \(error)")
        }
    }

    // MARK: search

    /// The pages that match `query`, best first (bm25; the newer document first on a tie).
    public func search(_ query: SearchQuery) throws(Failure) -> SearchResults {
        do {
            return try search(query, match: query.text, literal: false)
        } catch let failure as SQLiteDatabase.Failure where SearchQuery.isSyntaxError(failure.message) {
            // Not FTS5's syntax (an apostrophe, a colon, a lone quote): the words as written.
            guard let literal = query.literalMatch else { return SearchResults(hits: [], more: false, literal: true) }
            do {
                return try search(query, match: literal, literal: true)
            } catch {
                throw Failure(description: "search: \(error)")
            }
        } catch {
            throw Failure(description: "search: \(error)")
        }
    }

    /// When more pages than this hold the words, the best are found among this many of the
    /// newest (the highest row ids: documents read most recently, pages last in them), so that a
    /// word on every page of a large library is answered as fast as a rare one.
    public static let rankedWindow = 2000

    private func search(_ query: SearchQuery, match: String, literal: Bool) throws -> SearchResults {
        var conditions = ["texts MATCH ?"]
        var values: [SQLiteDatabase.Value] = [.text(match)]
        if let document = query.document {
            // One range of row ids, which FTS5 seeks to rather than filters.
            guard let id = try database.rows("SELECT id FROM documents WHERE path = ?", [.text(document)]).first?.first?.integer else {
                return SearchResults(hits: [], more: false, literal: literal)
            }
            conditions.append("texts.rowid BETWEEN ? AND ?")
            values += [.integer(Self.rowid(id, 0)), .integer(Self.rowid(id, Self.maxPages - 1))]
        }
        if let folder = query.folder {
            conditions.append("substr(d.path, 1, ?) = ?")
            values += [.integer(Int64(folder.utf8.count + 1)), .text(folder + "/")]
        }
        if let after = query.after {
            conditions.append("d.modified >= ?")
            values.append(.real(after.timeIntervalSince1970))
        }
        if let before = query.before {
            conditions.append("d.created < ?")
            values.append(.real(before.timeIntervalSince1970))
        }
        // One pass, newest first, that stops at the window: each row's bm25 is computed as it
        // is met. CROSS JOIN keeps the FTS5 table outermost (the other way round, each document
        // would run the whole query again).
        let found = try database.rows("""
            SELECT texts.rowid, bm25(texts), d.path, d.pages, d.modified
            FROM texts CROSS JOIN documents d ON d.id = texts.rowid >> \(Self.pageBits)
            WHERE \(conditions.joined(separator: " AND "))
            ORDER BY texts.rowid DESC LIMIT ?
            """, values + [.integer(Int64(Self.rankedWindow + 1))])
        let windowed = found.count > Self.rankedWindow
        // Best first; on a tie the newer document, then the page that comes first.
        let ranked = found.prefix(Self.rankedWindow).sorted { a, b in
            let (rankA, rankB) = (a[1].real ?? 0, b[1].real ?? 0)
            if rankA != rankB { return rankA < rankB }
            let (modifiedA, modifiedB) = (a[4].real ?? 0, b[4].real ?? 0)
            if modifiedA != modifiedB { return modifiedA > modifiedB }
            return (a[0].integer ?? 0) < (b[0].integer ?? 0)
        }
        let rows = Array(ranked.dropFirst(query.offset).prefix(query.limit + 1))
        // Snippets for the hits shown only: each is a seek to its row.
        let hits = try rows.prefix(query.limit).map { row in
            let rowid = row[0].integer ?? 0
            let snippet = try database.rows("""
                SELECT snippet(texts, -1, char(\(SearchHit.markStart.value)), char(\(SearchHit.markEnd.value)), '…', \(query.snippetWords))
                FROM texts WHERE texts MATCH ? AND rowid = ?
                """, [.text(match), .integer(rowid)]).first?.first?.text ?? ""
            return SearchHit(path: row[2].text ?? "", page: Int(rowid & ((1 << Self.pageBits) - 1)) + 1, pages: Int(row[3].integer ?? 0),
                             modified: Date(timeIntervalSince1970: row[4].real ?? 0), snippet: snippet, rank: row[1].real ?? 0)
        }
        return SearchResults(hits: Array(hits), more: rows.count > query.limit || windowed, literal: literal,
                             window: windowed ? Self.rankedWindow : nil)
    }

    // MARK: inside

    private func documentID(_ path: String) throws(Failure) -> Int64? {
        try rows("SELECT id FROM documents WHERE path = ?", [.text(path)]).first?.first?.integer
    }

    private func rows(_ sql: String, _ values: [SQLiteDatabase.Value] = []) throws(Failure) -> [[SQLiteDatabase.Value]] {
        do {
            return try database.rows(sql, values)
        } catch {
            throw Failure(description: "search index \(path): \(error)")
        }
    }

    private static func rowid(_ document: Int64, _ page: Int) -> Int64 { document << pageBits | Int64(page) }

    /// Text as SQLite binds it: without NULs (a C string ends at the first) or the two marks a
    /// snippet uses.
    static func clean(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: { $0 == "\0" || $0 == SearchHit.markStart || $0 == SearchHit.markEnd }) else { return text }
        return String(String.UnicodeScalarView(text.unicodeScalars.map {
            $0 == "\0" || $0 == SearchHit.markStart || $0 == SearchHit.markEnd ? " " : $0
        }))
    }
}
