import Foundation
import Testing
@testable import TrapperCore

/// The man pages (scdoc sources in man/) keep up with the code: every edit op the parser takes and
/// every config key a reader asks for has its entry. (Every subcommand's entry is checked against
/// the binary's own list, in the end-to-end tests.)
@Suite struct ManPageTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    static func page(_ name: String) throws -> String {
        try String(contentsOf: root.appendingPathComponent("man/\(name).scd"), encoding: .utf8)
    }

    /// The lines of one `# SECTION` of a page.
    static func section(_ text: String, _ name: String) -> String {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        guard let start = lines.firstIndex(of: Substring("# \(name)")) else { return "" }
        let rest = lines[(start + 1)...]
        let end = rest.firstIndex { $0.hasPrefix("# ") } ?? rest.endIndex
        return rest[..<end].joined(separator: "\n")
    }

    @Test func everyEditOpHasItsEntry() throws {
        let operations = Self.section(try Self.page("pdftrapper-edit.5"), "OPERATIONS")
        let ops = EditReader.ops.map(\.key) + EditReader.markupOps.map(\.key)
        #expect(ops.count >= 24)
        let missing = ops.filter { !operations.contains("\n*\($0)* (") }
        #expect(missing == [], "pdftrapper-edit(5) has no entry for: \(missing)")
    }

    /// Config keys, as the readers ask for them: `table.string("root")`, `table["blank_threshold"]`...
    static func configKeys() throws -> Set<String> {
        let folder = root.appendingPathComponent("Sources/TrapperCore/Config")
        var files = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".swift") }
            .map { folder.appendingPathComponent($0) }
        files.append(root.appendingPathComponent("Sources/TrapperCore/Routing/PageSteps.swift"))
        let asked = /(?:string|bool|choice|number|seconds|bytes|strings|integer|node|subtable|subtables|template|globs|path)\((?:&\w+, )?"([a-z_]+)"/
        let indexed = /table\["([a-z_]+)"\]/
        var keys = Set<String>()
        for file in files {
            let text = try String(contentsOf: file, encoding: .utf8)
            keys.formUnion(text.matches(of: asked).map { String($0.1) })
            keys.formUnion(text.matches(of: indexed).map { String($0.1) })
        }
        return keys
    }

    @Test func everyConfigKeyHasItsEntry() throws {
        let tables = Self.section(try Self.page("pdftrapper.toml.5"), "TABLES")
        let keys = try Self.configKeys()
        #expect(keys.count >= 60, "the key scan found only \(keys.sorted())")
        // Table names are read the same way; they are headings of their own.
        let headings = ["daemon", "library", "inbox", "edits", "signatures", "limits", "rule", "match", "scanner", "buttons",
                        "profile", "options", "web"]
        let missing = keys.subtracting(headings).filter { !tables.contains("\n*\($0)* =") }.sorted()
        #expect(missing == [], "pdftrapper.toml(5) has no entry for: \(missing)")
    }
}
