import Foundation

/// The shared corpus of real PDFs (`../shared/pdf-corpus` next to the package, or
/// `$PDFTRAPPER_PDF_CORPUS`), and what the independent readers say about each file. A clone on its
/// own has no ../shared: the tests that read it are enabled only when it is there
/// (`.enabled(if: PDFCorpus.isPresent, "\(PDFCorpus.missing)")`), and `ProducedCorpus` covers the same
/// ground with files made at test time.
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

    /// Whether the corpus folder is there at all. One that is there but holds no PDF is not
    /// skipped: `files()` fails the test.
    public static let isPresent = FileManager.default.fileExists(atPath: directory)

    /// The one line a test that needs the corpus is skipped with; `make test` counts them. A
    /// string (TestSupport is built in release builds too, where Swift Testing is not).
    public static var missing: String {
        "../shared/pdf-corpus is missing (looked in \(directory); PDFTRAPPER_PDF_CORPUS sets another)"
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

    /// `files()`, or none when the corpus is missing: the arguments of a parameterized test that
    /// `isPresent` enables.
    public static func filesIfPresent() throws -> [String] { isPresent ? try files() : [] }

    /// The corpus file called `name`.
    public static func file(_ name: String) throws -> String {
        guard let path = try files().first(where: { Self.name($0) == name }) else {
            throw Missing(path: directory + "/**/" + name)
        }
        return path
    }

    /// Whether poppler needs a password it was not given for `path`.
    public static func needsPassword(_ path: String) throws -> Bool {
        let output = try PDFReaders.run("pdfinfo", [path], hint: "apt-get install poppler-utils")
        return output.status != 0 && (output.stderr + output.text).contains("Incorrect password")
    }

    /// Whether `path` is encrypted at all, even with only an owner password (qpdf --is-encrypted).
    public static func isEncrypted(_ path: String) throws -> Bool {
        let output = try PDFReaders.run("qpdf", ["--is-encrypted", path], hint: "apt-get install qpdf")
        guard output.status == 0 || output.status == 2 else {
            throw PDFReaders.Failure.failed("qpdf --is-encrypted \(path)", status: output.status, output: output.stderr)
        }
        return output.status == 0
    }

    /// The corpus files poppler opens without a password, with pdfinfo's page count.
    public static func readableFiles() throws -> [(path: String, pages: Int)] { try readable(files()) }

    /// Those of `files` poppler opens without a password, with pdfinfo's page count.
    public static func readable(_ files: [String]) throws -> [(path: String, pages: Int)] {
        try files.filter { !(try needsPassword($0)) }.map { ($0, try PDFReaders.pdfinfoPages($0)) }
    }

    /// Those of `files` that are not encrypted: in both corpora, an encrypted file's name says "password".
    public static func unencrypted(_ files: [String]) -> [String] { files.filter { !name($0).contains("password") } }

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
