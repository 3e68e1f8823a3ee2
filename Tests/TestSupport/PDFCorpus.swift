import Foundation

/// The shared corpus of real PDFs (`../shared/pdf-corpus` next to the package, or
/// `$PDFTRAPPER_PDF_CORPUS`), and what the independent readers say about each file.
public enum PDFCorpus {
    public struct Missing: Error, CustomStringConvertible {
        public var path: String
        public init(path: String) { self.path = path }
        public var description: String {
            "PDF corpus not found at \(path): put the corpus there or set PDFTRAPPER_PDF_CORPUS"
        }
    }

    /// The package root, from this file's path (Tests/TestSupport/PDFCorpus.swift).
    public static var packageRoot: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
    }

    public static var directory: String {
        if let override = ProcessInfo.processInfo.environment["PDFTRAPPER_PDF_CORPUS"], !override.isEmpty {
            return override
        }
        return packageRoot.appendingPathComponent("../shared/pdf-corpus").standardizedFileURL.path
    }

    /// Every `.pdf` under the corpus, sorted; throws (so the test fails) if there is none.
    public static func files() throws -> [String] {
        let root = directory
        guard let enumerator = FileManager.default.enumerator(atPath: root) else { throw Missing(path: root) }
        var found: [String] = []
        while let relative = enumerator.nextObject() as? String {
            if relative.lowercased().hasSuffix(".pdf") { found.append(root + "/" + relative) }
        }
        guard !found.isEmpty else { throw Missing(path: root) }
        return found.sorted()
    }

    /// Whether poppler needs a password it was not given for `path`.
    public static func needsPassword(_ path: String) throws -> Bool {
        let output = try PDFReaders.run("pdfinfo", [path], hint: "apt-get install poppler-utils")
        return output.status != 0 && (output.stderr + output.text).contains("Incorrect password")
    }

    /// The corpus files poppler opens without a password, with pdfinfo's page count.
    public static func readableFiles() throws -> [(path: String, pages: Int)] {
        try files().filter { !(try needsPassword($0)) }.map { ($0, try PDFReaders.pdfinfoPages($0)) }
    }

    public static func name(_ path: String) -> String { URL(fileURLWithPath: path).lastPathComponent }
}

/// Temporary files, each in a fresh folder removed by `remove()`.
public struct TemporaryFolder {
    public let path: String

    public init() throws {
        path = FileManager.default.temporaryDirectory.appendingPathComponent("pdfaccess-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    public func file(_ name: String) -> String { path + "/" + name }

    public func remove() { try? FileManager.default.removeItem(atPath: path) }

    /// A copy of `source` in this folder.
    public func copy(_ source: String, as name: String? = nil) throws -> String {
        let destination = file(name ?? URL(fileURLWithPath: source).lastPathComponent)
        try? FileManager.default.removeItem(atPath: destination)
        try FileManager.default.copyItem(atPath: source, toPath: destination)
        return destination
    }

    public static func read(_ path: String) throws -> [UInt8] { Array(try Data(contentsOf: URL(fileURLWithPath: path))) }

    public static func write(_ bytes: [UInt8], to path: String) throws {
        try Data(bytes).write(to: URL(fileURLWithPath: path))
    }
}

extension PDFReaders {
    /// Page `page` (1-based) as text, by pdftotext.
    public static func text(_ path: String, page: Int) throws -> String {
        let output = try run("pdftotext", ["-f", "\(page)", "-l", "\(page)", "-layout", path, "-"],
            hint: "apt-get install poppler-utils")
        guard output.status == 0 else { throw Failure.failed("pdftotext \(path)", status: output.status, output: output.stderr) }
        return output.text
    }

    /// Annotations per page, by pypdf.
    public static func annotationCounts(_ path: String) throws -> [Int] {
        let script = """
            import sys, pypdf
            r = pypdf.PdfReader(sys.argv[1])
            print(" ".join(str(len(p.get("/Annots") or [])) for p in r.pages))
            """
        let output = try run("python3", ["-c", script, path], hint: "pip install pypdf")
        guard output.status == 0 else { throw Failure.failed("pypdf annotations \(path)", status: output.status, output: output.stderr) }
        return output.text.split(whereSeparator: \.isWhitespace).compactMap { Int($0) }
    }

    /// URIs of link annotations on every page, by pypdf, in order.
    public static func linkURIs(_ path: String) throws -> [String] {
        let script = """
            import sys, pypdf
            r = pypdf.PdfReader(sys.argv[1])
            for p in r.pages:
                for a in (p.get("/Annots") or []):
                    a = a.get_object()
                    act = a.get("/A")
                    if act is not None and act.get_object().get("/URI") is not None:
                        print(act.get_object()["/URI"])
            """
        let output = try run("python3", ["-c", script, path], hint: "pip install pypdf")
        guard output.status == 0 else { throw Failure.failed("pypdf links \(path)", status: output.status, output: output.stderr) }
        return output.text.split(whereSeparator: \.isNewline).map(String.init)
    }

    /// Font names per page, by pdffonts (name and type columns).
    public static func fonts(_ path: String) throws -> [String] {
        let output = try run("pdffonts", [path], hint: "apt-get install poppler-utils")
        guard output.status == 0 else { throw Failure.failed("pdffonts \(path)", status: output.status, output: output.stderr) }
        return output.text.split(whereSeparator: \.isNewline).dropFirst(2).map {
            $0.split(separator: " ", omittingEmptySubsequences: true).prefix(2).joined(separator: " ")
        }
    }

    /// Image count, by pdfimages -list.
    public static func imageCount(_ path: String) throws -> Int {
        let output = try run("pdfimages", ["-list", path], hint: "apt-get install poppler-utils")
        guard output.status == 0 else { throw Failure.failed("pdfimages \(path)", status: output.status, output: output.stderr) }
        return max(0, output.text.split(whereSeparator: \.isNewline).count - 2)
    }
}
