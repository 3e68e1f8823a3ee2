import Foundation
import TestSupport
import Testing

/// docs/ARCHITECTURE.md stays true of the tree (issue 34, point 5): every module and every
/// top-level folder it names exists, and every module and top-level folder there is is named, so a
/// module added, renamed or removed without the document fails here.
@Suite struct ArchitectureDocTests {
    static let root = PDFCorpus.packageRoot

    static func document() throws -> String {
        try String(contentsOf: root.appendingPathComponent("docs/ARCHITECTURE.md"), encoding: .utf8)
    }

    /// Folders that are made, not kept (.gitignore's top-level ones): `make demo` leaves `demo/`.
    static let made: Set<String> = {
        let ignore = (try? String(contentsOf: root.appendingPathComponent(".gitignore"), encoding: .utf8)) ?? ""
        return Set(ignore.split(separator: "\n").compactMap { line in
            line.hasPrefix("/") && line.hasSuffix("/") && line.dropFirst().dropLast().allSatisfy({ $0 != "/" && $0 != "*" })
                ? String(line.dropFirst().dropLast()) : nil
        })
    }()

    /// The folders under `folder` (relative to the package root), hidden and made ones left out.
    static func folders(in folder: String) throws -> Set<String> {
        let url = root.appendingPathComponent(folder)
        let names = try FileManager.default.contentsOfDirectory(atPath: url.path).filter { !$0.hasPrefix(".") && !made.contains($0) }
        return Set(names.filter { name in
            var isFolder: ObjCBool = false
            return FileManager.default.fileExists(atPath: url.appendingPathComponent(name).path, isDirectory: &isFolder) && isFolder.boolValue
        })
    }

    /// Every `Sources/Name` in backticks.
    static func modulesNamed(_ text: String) -> Set<String> {
        Set(text.matches(of: #/`Sources/([A-Za-z0-9_]+)/?`/#).map { String($0.1) })
    }

    /// Every `name/` in backticks one folder deep in the section "## Top-level folders" (elsewhere
    /// the document names state folders such as `.pdftrapper/`, which are not the tree's).
    static func foldersNamed(_ text: String) -> Set<String> {
        guard let start = text.range(of: "\n## Top-level folders") else { return [] }
        let rest = text[start.upperBound...]
        let section = rest.range(of: "\n## ").map { rest[..<$0.lowerBound] } ?? rest
        return Set(section.matches(of: #/`([A-Za-z0-9_.-]+)/`/#).map { String($0.1) })
    }

    @Test func everyModuleItNamesExistsAndEveryModuleIsNamed() throws {
        let named = Self.modulesNamed(try Self.document())
        let present = try Self.folders(in: "Sources")
        #expect(!present.isEmpty)
        #expect(named.subtracting(present).isEmpty, "named in docs/ARCHITECTURE.md but not in Sources/: \(named.subtracting(present).sorted())")
        #expect(present.subtracting(named).isEmpty, "in Sources/ but not named in docs/ARCHITECTURE.md: \(present.subtracting(named).sorted())")
    }

    @Test func everyTopLevelFolderItNamesExistsAndEveryOneIsNamed() throws {
        let named = Self.foldersNamed(try Self.document())
        let present = try Self.folders(in: ".")
        #expect(named.subtracting(present).isEmpty, "named in docs/ARCHITECTURE.md but not in the tree: \(named.subtracting(present).sorted())")
        #expect(present.subtracting(named).isEmpty, "in the tree but not named in docs/ARCHITECTURE.md: \(present.subtracting(named).sorted())")
    }

    /// The checks themselves tell a missing module and a stale one apart (they could pass on an
    /// empty document otherwise).
    @Test func theNamesAreReadAsWritten() {
        let text = """
            `Sources/TrapperCore` holds ... `Sources/Gone/` was ... `Sources/Daemon/Capture/` is deeper; `state/`

            ## Top-level folders
            `bench/` and `web/`, `fuzz/SheetVision/` deeper
            ## Next
            `.pdftrapper/`
            """
        #expect(Self.modulesNamed(text) == ["TrapperCore", "Gone"])
        #expect(Self.foldersNamed(text) == ["bench", "web"])
    }
}
