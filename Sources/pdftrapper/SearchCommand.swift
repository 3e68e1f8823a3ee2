import Daemon
import Foundation
import Search
import TrapperCore

/// `pdftrapper search QUERY`: the pages of the library that hold the words, best first.
enum SearchCommand: Command {
    static let name = "search"
    static let summary = "Find the pages of the library that hold some words (OCR text, the PDFs' own text, notes)."
    static let synopsis = "search QUERY [--json] [--in FOLDER] [--after DATE] [--before DATE] [--limit N] [--config FILE]"
    static let details = """
    Searches the library's index (STATE/search.sqlite, SQLite FTS5) and prints one line a page
    found, best first (bm25; the newer document first on a tie): the document below the library,
    the page, and the words around what was found, marked [like this].
    Before searching, documents changed since they were indexed (by any program) are read again,
    so what is found is what the PDFs hold now. The daemon keeps the index current as it works.

    QUERY is FTS5's syntax: words (all must be on the page), "a phrase", prefix*, OR, NOT
    (a NOT b), NEAR(a b, 5), and parentheses. Case and accents do not matter (cafe finds Café).
    A query that is not that syntax (an apostrophe, a lone quote) is searched as the words
    written. When more than 2,000 pages hold the words, the best of the 2,000 newest are shown
    (and said), so that a word on every page is answered as fast as a rare one. Scripts written without spaces (Chinese, Japanese) are found by a whole run of
    characters or its beginning (東京*), not by a word inside a run.

      --json           one JSON object: hits (path, page, pages, modified, snippet, found: the
                       words marked), more (there are more than --limit), literal (the query
                       was searched as the words written) and window (see below)
      --in FOLDER      only documents below FOLDER of the library
      --after DATE     only documents with a revision on or after DATE (YYYY-MM-DD, local time,
                       or an ISO 8601 moment)
      --before DATE    only documents begun before DATE
      --limit N        at most N hits (default 50, at most 1000)

    Exit codes: 0 something found, 1 nothing found, 64 a query refused (empty, over 1024 bytes,
    a NUL byte, a prefix of one letter), 66 no config, 78 bad config, 69 the index cannot be opened.
    """
    static let arguments = ArgumentSpec(flags: ["--json"], options: ["--config", "--in", "--after", "--before", "--limit"])

    static func run(_ arguments: ParsedArguments, _ context: CommandContext) -> ExitCode {
        guard arguments.positionals.count == 1 else {
            context.err("pdftrapper search: give the query as one argument (quote it)\nusage: pdftrapper \(synopsis)")
            return .usage
        }
        var dates: [String: Date] = [:]
        for option in ["--after", "--before"] {
            guard let text = arguments.options[option] else { continue }
            guard let date = SearchQuery.date(text) else {
                context.err("pdftrapper search: \(option) \(text): not a date (YYYY-MM-DD)")
                return .usage
            }
            dates[option] = date
        }
        let limit = arguments.options["--limit"].map { Int($0) }
        if let limit, limit == nil || limit! < 1 {
            context.err("pdftrapper search: --limit takes a number from 1")
            return .usage
        }
        let query: SearchQuery
        do {
            query = try SearchQuery(arguments.positionals[0], folder: arguments.options["--in"], after: dates["--after"],
                                    before: dates["--before"], limit: (limit ?? nil) ?? 50)
        } catch {
            context.err("pdftrapper search: \(error)")
            return .usage
        }
        let config: Config
        switch context.loadConfig(arguments.options["--config"].map(context.absolute)) {
        case .success(let loaded): config = loaded
        case .failure(let code): return code
        }
        let results: SearchResults
        do {
            do {
                results = try IndexCommand.current(config, context, thorough: false).search(query)
            } catch {
                // A damage the light look at the index did not see: checked whole (made anew if damaged), then again.
                results = try IndexCommand.current(config, context, thorough: true).search(query)
            }
        } catch {
            context.err("pdftrapper search: \(error)")
            return .unavailable
        }
        if arguments.has("--json") {
            context.out(json(results))
        } else {
            for hit in results.hits {
                let snippet = hit.pieces.map { $0.found ? "[\($0.text)]" : $0.text }.joined()
                    .split(whereSeparator: \.isNewline).joined(separator: " ")
                context.out("\(hit.path):\(hit.page): \(snippet)")
            }
            if let window = results.window {
                context.err("pdftrapper search: more than \(window) pages hold the words; these are the best of the \(window) newest "
                            + "(more words, --in or --after narrow it)")
            } else if results.more {
                context.err("pdftrapper search: more than \(query.limit) pages found; --limit N shows more")
            }
            if results.literal { context.err("pdftrapper search: searched for the words as written (the query is not FTS5's syntax)") }
        }
        return results.hits.isEmpty ? .failure : .ok
    }

    static func json(_ results: SearchResults) -> String {
        let hits: [[String: Any]] = results.hits.map { hit in
            ["path": hit.path, "page": hit.page, "pages": hit.pages, "modified": ISO8601DateFormatter().string(from: hit.modified),
             "snippet": hit.pieces.map(\.text).joined(), "found": hit.pieces.filter(\.found).map(\.text)]
        }
        var object: [String: Any] = ["hits": hits, "more": results.more, "literal": results.literal]
        object["window"] = results.window
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data()
        return String(decoding: data, as: UTF8.self)
    }
}

/// `pdftrapper index`: brings the search index up to date with the library, or makes it anew.
enum IndexCommand: Command {
    static let name = "index"
    static let summary = "Bring the search index up to date with the library, or make it anew (--rebuild)."
    static let synopsis = "index [--rebuild] [--config FILE]"
    static let details = """
    Reads again every document of the library that changed since it was indexed, and forgets
    those gone; prints what it did. The daemon does the same at start and then keeps the index
    current from every revision; `pdftrapper search` does it before each search. The index is
    STATE/search.sqlite; deleting it loses nothing but the time to read the library again.

      --rebuild  delete the index and read the whole library again

    Exit codes: 0 done, 66 no config, 78 bad config, 69 the index cannot be opened or written.
    """
    static let arguments = ArgumentSpec(flags: ["--rebuild"], options: ["--config"])

    static func run(_ arguments: ParsedArguments, _ context: CommandContext) -> ExitCode {
        guard arguments.positionals.isEmpty else {
            context.err("pdftrapper index: takes no arguments\nusage: pdftrapper \(synopsis)")
            return .usage
        }
        let config: Config
        switch context.loadConfig(arguments.options["--config"].map(context.absolute)) {
        case .success(let loaded): config = loaded
        case .failure(let code): return code
        }
        let indexer = LibraryIndexer(config: config) { context.err("pdftrapper: \($1)") }
        if arguments.has("--rebuild") {
            for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: indexer.indexPath + suffix) }
        }
        do {
            let index = try indexer.open()
            let summary = try indexer.catchUp(index, progress: progress(context))
            context.out("\(indexer.indexPath): \(summary)")
            return .ok
        } catch {
            context.err("pdftrapper index: \(error)")
            return .unavailable
        }
    }

    /// The index, brought up to date with the library first.
    static func current(_ config: Config, _ context: CommandContext, thorough: Bool) throws -> LibraryIndex {
        let indexer = LibraryIndexer(config: config) { context.err("pdftrapper: \($1)") }
        let index = try indexer.open(thorough: thorough)
        try indexer.catchUp(index, progress: progress(context))
        return index
    }

    /// A line on stderr every 100 documents, when there are that many to read.
    static func progress(_ context: CommandContext) -> (Int, Int) -> Void {
        { done, total in
            if done % 100 == 0, total >= 100 { context.err("pdftrapper: indexing: \(done) of \(total) documents read") }
        }
    }
}
