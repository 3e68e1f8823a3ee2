import CSQLite
import Foundation
import System

/// One connection to an SQLite database file, through Debian's libsqlite3 opened on first use.
/// Statements are prepared, bound and stepped here and nowhere else; each connection is used from
/// one thread at a time (its owner's).
final class SQLiteDatabase {
    struct Failure: Error, CustomStringConvertible, Equatable {
        /// SQLite's extended result code (SQLITE_CORRUPT is 11, SQLITE_NOTADB 26, SQLITE_BUSY 5).
        var code: Int32
        var message: String
        var description: String { message }

        /// The file is not a database, or a damaged one.
        var isDamage: Bool { [SQLITE_CORRUPT, SQLITE_NOTADB].contains(code & 0xff) }
    }

    /// A value bound to a statement's `?`, or read from a row.
    enum Value: Equatable {
        case text(String)
        case integer(Int64)
        case real(Double)
        case null

        var text: String? { if case .text(let text) = self { text } else { nil } }
        var integer: Int64? { if case .integer(let number) = self { number } else { nil } }
        var real: Double? {
            switch self {
            case .real(let number): number
            case .integer(let number): Double(number)
            default: nil
            }
        }
    }

    private static let library: Result<trapper_sqlite, SharedLibrary.Failure> =
        SharedLibrary.open("libsqlite3.so.0", for: "search") { trapper_sqlite_load($0, $1) }

    /// The library's version ("3.40.1"), or why it cannot be had.
    static var version: Result<String, SharedLibrary.Failure> {
        library.map { String(cString: $0.sqlite3_libversion()!) }
    }

    private let api: trapper_sqlite
    private let handle: OpaquePointer
    let path: String

    /// Opens (`create`: or makes) the database at `path`. Waits up to `busySeconds` for another
    /// connection's write to end before a statement gives up with SQLITE_BUSY.
    init(path: String, create: Bool = true, busySeconds: Double = 5) throws {
        let api: trapper_sqlite
        switch Self.library {
        case .success(let table): api = table
        case .failure(let failure): throw Failure(code: SQLITE_CANTOPEN, message: failure.description)
        }
        var handle: OpaquePointer?
        let flags = SQLITE_OPEN_READWRITE | (create ? SQLITE_OPEN_CREATE : 0) | SQLITE_OPEN_NOMUTEX
        let code = api.sqlite3_open_v2(path, &handle, flags, nil)
        guard code == SQLITE_OK, let handle else {
            let message = Self.text(handle.flatMap { api.sqlite3_errmsg($0) } ?? api.sqlite3_errstr(code), code)
            if let handle { _ = api.sqlite3_close_v2(handle) }
            throw Failure(code: code, message: "\(path): \(message)")
        }
        self.api = api
        self.handle = handle
        self.path = path
        _ = api.sqlite3_busy_timeout(handle, Int32(busySeconds * 1000))
    }

    deinit { _ = api.sqlite3_close_v2(handle) }

    /// Runs statements that return no rows (several, separated by `;`).
    func execute(_ sql: String) throws {
        var error: UnsafeMutablePointer<CChar>?
        let code = api.sqlite3_exec(handle, sql, nil, nil, &error)
        guard code == SQLITE_OK else {
            let message = Self.text(error.map { UnsafePointer($0) } ?? api.sqlite3_errstr(code), code)
            if let error { api.sqlite3_free(error) }
            throw Failure(code: api.sqlite3_extended_errcode(handle), message: message)
        }
    }

    /// Runs `sql` with `values` bound in order, and returns every row it yields.
    @discardableResult
    func rows(_ sql: String, _ values: [Value] = []) throws -> [[Value]] {
        var statement: OpaquePointer?
        guard api.sqlite3_prepare_v2(handle, sql, -1, &statement, nil) == SQLITE_OK, let statement else { throw failure() }
        defer { _ = api.sqlite3_finalize(statement) }
        for (index, value) in values.enumerated() {
            let position = Int32(index + 1)
            let code = switch value {
            case .text(let text):
                withUnsafePointer(to: api) { table in
                    text.withCString { trapper_sqlite_bind_text(table, statement, position, $0, Int32(strlen($0))) }
                }
            case .integer(let number): api.sqlite3_bind_int64(statement, position, number)
            case .real(let number): api.sqlite3_bind_double(statement, position, number)
            case .null: api.sqlite3_bind_null(statement, position)
            }
            guard code == SQLITE_OK else { throw failure() }
        }
        var result: [[Value]] = []
        while true {
            let code = api.sqlite3_step(statement)
            if code == SQLITE_DONE { break }
            guard code == SQLITE_ROW else { throw failure() }
            result.append((0..<api.sqlite3_column_count(statement)).map { column in
                switch api.sqlite3_column_type(statement, column) {
                case SQLITE_INTEGER: .integer(api.sqlite3_column_int64(statement, column))
                case SQLITE_FLOAT: .real(api.sqlite3_column_double(statement, column))
                case SQLITE_NULL: .null
                default:
                    // Text (and blobs, read as text): the length first, as the text may hold NULs.
                    if let text = api.sqlite3_column_text(statement, column) {
                        .text(String(decoding: UnsafeBufferPointer(start: text, count: Int(api.sqlite3_column_bytes(statement, column))),
                                     as: UTF8.self))
                    } else {
                        .null
                    }
                }
            })
        }
        return result
    }

    /// Runs `body` in one transaction (BEGIN IMMEDIATE: the write lock is taken at once, so two
    /// writers wait their turn rather than fail midway): all of it is committed, or none.
    func transaction<T>(_ body: () throws -> T) throws -> T {
        try execute("BEGIN IMMEDIATE")
        do {
            let result = try body()
            try execute("COMMIT")
            return result
        } catch {
            try? execute("ROLLBACK")
            throw error
        }
    }

    /// How many rows the last statement changed.
    var changes: Int { Int(api.sqlite3_changes(handle)) }

    private func failure() -> Failure {
        let code = api.sqlite3_extended_errcode(handle)
        return Failure(code: code, message: Self.text(api.sqlite3_errmsg(handle), code))
    }

    /// A message SQLite gave, or its code when it gave none.
    private static func text(_ message: UnsafePointer<CChar>?, _ code: Int32) -> String {
        message.map { String(cString: $0) } ?? "SQLite error \(code)"
    }
}
