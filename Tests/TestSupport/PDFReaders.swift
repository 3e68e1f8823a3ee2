import Foundation

/// The independent PDF readers a written file must satisfy, run as subprocesses: qpdf, poppler
/// (pdfinfo, pdftoppm), mupdf (mutool), Ghostscript, and Python's pypdf and pypdfium2.
/// Shared by every test target through the TestSupport module.
public enum PDFReaders {
    public struct Output {
        public var status: Int32
        public var stdout: Data
        public var stderr: String
        public var text: String { String(decoding: stdout, as: UTF8.self) }
    }

    public enum Failure: Error, CustomStringConvertible {
        case missingTool(String, hint: String)
        case failed(String, status: Int32, output: String)
        case unreadable(String, output: String)
        case disagreement([String: Int], expected: Int)

        public var description: String {
            switch self {
            case .missingTool(let tool, let hint): return "\(tool) is not installed (\(hint))"
            case .failed(let tool, let status, let output): return "\(tool) exited \(status): \(output)"
            case .unreadable(let tool, let output): return "\(tool): no page count in output: \(output)"
            case .disagreement(let counts, let expected):
                let list = counts.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
                return "page counts disagree (expected \(expected)): \(list)"
            }
        }
    }

    /// Full path of `tool` on PATH, or nil.
    public static func find(_ tool: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        for directory in path.split(separator: ":") {
            let candidate = "\(directory)/\(tool)"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }

    /// Runs `tool` with `arguments`. Python scripts go to the long-lived interpreters of
    /// `PythonWorkers`, everything else to a process of its own.
    public static func run(_ tool: String, _ arguments: [String], hint: String = "apt-get install it") throws -> Output {
        if tool == "python3", find(tool) != nil, let output = PythonWorkers.run(arguments) { return output }
        return try spawn(tool, arguments, hint: hint)
    }

    /// Runs `tool` with `arguments` as a process of its own; output goes through temporary files, so
    /// neither pipe can fill up and stall the child.
    static func spawn(_ tool: String, _ arguments: [String], hint: String = "apt-get install it") throws -> Output {
        guard let executable = find(tool) else { throw Failure.missingTool(tool, hint: hint) }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("pdfreaders-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let outURL = directory.appendingPathComponent("out")
        let errURL = directory.appendingPathComponent("err")
        _ = FileManager.default.createFile(atPath: outURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)
        let outHandle = try FileHandle(forWritingTo: outURL)
        let errHandle = try FileHandle(forWritingTo: errURL)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.standardOutput = outHandle
        process.standardError = errHandle
        process.standardInput = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        try outHandle.close()
        try errHandle.close()
        return Output(
            status: process.terminationStatus, stdout: try Data(contentsOf: outURL),
            stderr: String(decoding: try Data(contentsOf: errURL), as: UTF8.self))
    }

    public static func succeeded(_ tool: String, _ arguments: [String], hint: String = "apt-get install it") throws
        -> Output
    {
        let output = try run(tool, arguments, hint: hint)
        guard output.status == 0 else {
            throw Failure.failed(([tool] + arguments).joined(separator: " "), status: output.status,
                output: (output.text + output.stderr).prefix(2000).description)
        }
        return output
    }

    /// The integer after `label` on the first line that starts with it.
    private static func number(after label: String, in text: String, tool: String) throws -> Int {
        for line in text.split(whereSeparator: \.isNewline) where line.hasPrefix(label) {
            if let value = Int(line.dropFirst(label.count).trimmingCharacters(in: .whitespaces)) { return value }
        }
        throw Failure.unreadable(tool, output: String(text.prefix(500)))
    }

    /// `qpdf --check`: exit 0 only; 3 means warnings, which a clean write must not cause.
    public static func qpdfCheck(_ path: String) throws {
        _ = try succeeded("qpdf", ["--check", path], hint: "apt-get install qpdf")
    }

    public static func pdfinfoPages(_ path: String) throws -> Int {
        let output = try succeeded("pdfinfo", [path], hint: "apt-get install poppler-utils")
        return try number(after: "Pages:", in: output.text, tool: "pdfinfo")
    }

    /// mupdf's page count, with its last page loaded (through the page tree). Not `mutool info`,
    /// which gathers every page's resources and takes minutes on 20,000 pages.
    public static func mutoolPages(_ path: String) throws -> Int {
        let script = FileManager.default.temporaryDirectory.appendingPathComponent("pdftrapper-mutool-pages-1.js")
        if !FileManager.default.fileExists(atPath: script.path) {
            try Data("""
                var document = new Document(scriptArgs[0]);
                var count = document.countPages();
                if (count > 0) document.loadPage(count - 1).bound();
                print(count);

                """.utf8).write(to: script, options: .atomic)
        }
        let output = try succeeded("mutool", ["run", script.path, path], hint: "apt-get install mupdf-tools")
        guard let value = Int(output.text.trimmingCharacters(in: .whitespacesAndNewlines)) else {
            throw Failure.unreadable("mutool run", output: output.text + output.stderr)
        }
        return value
    }

    public static func ghostscriptPages(_ path: String) throws -> Int {
        let escaped = path.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "(", with: "\\(")
            .replacingOccurrences(of: ")", with: "\\)")
        let output = try succeeded(
            "gs",
            ["-q", "-dNODISPLAY", "-dBATCH", "-dNOPAUSE", "--permit-file-read=\(path)", "-c",
             "(\(escaped)) (r) file runpdfbegin pdfpagecount = quit"],
            hint: "apt-get install ghostscript")
        guard let value = Int(output.text.trimmingCharacters(in: .whitespacesAndNewlines)) else {
            throw Failure.unreadable("gs", output: output.text + output.stderr)
        }
        return value
    }

    public static func python(_ module: String, _ expression: String, _ path: String) throws -> Int {
        let script = "import sys, \(module)\nprint(\(expression))"
        let output = try succeeded("python3", ["-c", script, path], hint: "pip install pypdf pypdfium2")
        guard let value = Int(output.text.trimmingCharacters(in: .whitespacesAndNewlines)) else {
            throw Failure.unreadable(module, output: output.text + output.stderr)
        }
        return value
    }

    public static func pypdfPages(_ path: String) throws -> Int {
        try python("pypdf", "len(pypdf.PdfReader(sys.argv[1], strict=True).pages)", path)
    }

    public static func pypdfiumPages(_ path: String) throws -> Int {
        try python("pypdfium2", "len(pypdfium2.PdfDocument(sys.argv[1]))", path)
    }

    public static let pageCounters: [(name: String, count: @Sendable (String) throws -> Int)] = [
        ("pdfinfo", pdfinfoPages), ("mutool", mutoolPages), ("gs", ghostscriptPages), ("pypdf", pypdfPages),
        ("pypdfium2", pypdfiumPages),
    ]

    /// Runs `qpdf --check` and every page counter but those in `skipping` (for inputs a reader
    /// refuses by design, e.g. strict pypdf and bytes before `%PDF`); throws unless all succeed and
    /// each reports `expected` pages.
    @discardableResult
    public static func requireAllAgree(_ path: String, pages expected: Int, skipping: Set<String> = []) throws
        -> [String: Int]
    {
        try qpdfCheck(path)
        var counts: [String: Int] = [:]
        for counter in pageCounters where !skipping.contains(counter.name) {
            counts[counter.name] = try counter.count(path)
        }
        guard counts.values.allSatisfy({ $0 == expected }) else {
            throw Failure.disagreement(counts, expected: expected)
        }
        return counts
    }

    /// Page `page` (1-based) rendered by pdftoppm at 72 dpi, as PPM bytes.
    public static func renderPPM(_ path: String, page: Int) throws -> Data {
        try succeeded("pdftoppm", ["-r", "72", "-f", "\(page)", "-l", "\(page)", path],
            hint: "apt-get install poppler-utils").stdout
    }

    /// A copy of `source` rewritten by qpdf with object streams and an xref stream, all stored
    /// uncompressed: the form TrapperCore can read without a Flate decoder.
    public static func qpdfUncompressedObjectStreams(_ source: String, to destination: String) throws {
        let output = try run("qpdf", ["--object-streams=generate", "--compress-streams=n", "--stream-data=uncompress", source, destination],
            hint: "apt-get install qpdf")
        guard output.status == 0 || output.status == 3 else {
            throw Failure.failed("qpdf rewrite \(source)", status: output.status, output: output.stderr)
        }
    }
}

/// Small Python programs over a PDF, for what only a PDF library can tell (pypdf's view of pages,
/// annotations, outlines, form fields).
public enum Python {
    /// Runs `script` with `arguments` as sys.argv[1...]; returns its stdout, throwing on failure.
    public static func run(_ script: String, _ arguments: [String]) throws -> String {
        try PDFReaders.succeeded("python3", ["-c", script] + arguments, hint: "pip install pypdf pypdfium2").text
    }
}

/// Test images made by Pillow, so no binary file lives in the repository.
public enum TestImages {
    /// A `width`×`height` image with a pattern (so renders can be compared), saved by Pillow in the
    /// format its extension says; `options` are Pillow save() keyword arguments, e.g. `quality=90, dpi=(300, 300)`.
    public static func make(_ path: String, mode: String = "RGB", width: Int = 300, height: Int = 400,
                            options: String = "") throws {
        let script = """
        import sys
        from PIL import Image, ImageDraw
        image = Image.new("\(mode)", (\(width), \(height)), "white")
        draw = ImageDraw.Draw(image)
        for i in range(0, \(width), 20):
            draw.rectangle([i, (i * 3) % \(height), i + 9, (i * 3) % \(height) + 30], fill="black")
        image.save(sys.argv[1]\(options.isEmpty ? "" : ", " + options))
        """
        _ = try Python.run(script, [path])
    }
}
