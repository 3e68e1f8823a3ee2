import Foundation
import TestSupport
import Testing

/// Tesseract, leptonica, poppler, zbar, qpdf, SANE, libsystemd and libcurl are opened on first use, not linked
/// (SharedLibrary): a command that never calls them must not pay for loading them. The dynamic
/// loader says what it loads: with LD_DEBUG=files it names every library, linked or dlopen'ed.
@Suite struct LazyLibrariesTests {
    static let heavy = ["libtesseract.so.5", "liblept.so.5", "libpoppler-glib.so.8", "libzbar.so.0", "libqpdf.so.29",
                        "libsane.so.1", "libsystemd.so.0", "libcurl.so.4"]

    static let config = """
        [library]
        root = "docs"
        [inbox]
        path = "inbox"

        [[rule]]
        name = "all"
        target = "All.pdf"
        match = { type = "image" }

        """

    /// One run with the loader reporting: its result (stderr without the loader's lines, which
    /// start with its process id), and the heavy libraries it loaded.
    static func run(_ arguments: [String], in scratch: Scratch) throws -> (run: Run, loaded: [String]) {
        let environment = ["LD_DEBUG": "files", "XDG_STATE_HOME": scratch.path + "/state"]
        var run = try Binary.run(arguments, environment: environment, in: scratch.url)
        let loaded = heavy.filter { run.stderr.contains("file=\($0) ") }
        run.stderr = run.errorLines.filter { $0.firstMatch(of: /^ *[0-9]+:/) == nil }.map { $0 + "\n" }.joined()
        return (run, loaded)
    }

    @Test func commandsThatNeedNoneLoadNone() throws {
        let scratch = try Scratch()
        try scratch.write("config.toml", Self.config)
        try FileManager.default.createDirectory(atPath: scratch.path + "/inbox", withIntermediateDirectories: true)
        try TestImages.make(scratch.path + "/inbox/page.jpg", options: "quality=90, dpi=(150, 150)")
        for (arguments, status) in [
            (["help"], 0),
            (["ingest", "--to", "T.pdf", "inbox/page.jpg"], 0),
            (["ingest", "--to", "T.pdf", "inbox/page.jpg"], 0),  // an append, this time
            (["explain", "--config", "config.toml", "inbox/page.jpg"], 0),
            (["ingest", "--config", "config.toml", "inbox/page.jpg"], 0),
            (["status", "--config", "config.toml"], 3),  // no daemon runs
        ] as [([String], Int32)] {
            let (run, loaded) = try Self.run(arguments, in: scratch)
            let command = "pdftrapper " + arguments.joined(separator: " ")
            #expect(run.status == status, "\(command): \(run.stderr)")
            #expect(loaded.isEmpty, "\(command) loaded \(loaded)")
        }
        try PDFReaders.requireAllAgree(scratch.path + "/T.pdf", pages: 2)
    }

    @Test func eachIsOpenedWhenFirstNeeded() throws {
        let scratch = try Scratch()
        try TestImages.make(scratch.path + "/page.jpg", options: "quality=90, dpi=(150, 150)")
        #expect(try Self.run(["ingest", "--to", "A.pdf", "page.jpg"], in: scratch).run.status == 0)

        // A PDF input is read with qpdf, and nothing else.
        let pdfInput = try Self.run(["ingest", "--to", "B.pdf", "A.pdf"], in: scratch)
        #expect(pdfInput.run.status == 0, "\(pdfInput.run.stderr)")
        #expect(pdfInput.loaded == ["libqpdf.so.29"])
        try PDFReaders.requireAllAgree(scratch.path + "/B.pdf", pages: 1)

        // --version asks each PDF and imaging library for its version (tesseract brings leptonica,
        // and libcurl, which Debian's tesseract links for reading images from URLs).
        let version = try Self.run(["--version"], in: scratch)
        #expect(version.run.status == 0)
        #expect(version.loaded == ["libtesseract.so.5", "liblept.so.5", "libpoppler-glib.so.8", "libqpdf.so.29", "libcurl.so.4"])
    }

    /// find_page's library is looked for beside the binary: one from another build, whose functions
    /// may take other arguments, is refused with the reason and never called (its functions here
    /// abort, so a call would show).
    @Test func aVisionLibraryOfAnotherInterfaceIsRefusedNotCalled() throws {
        let scratch = try Scratch()
        let folder = scratch.path + "/bin"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: Binary.path, toPath: folder + "/pdftrapper")
        try scratch.write("old.c", """
            #include <stdlib.h>
            int ptcv_find_sheet(void) { abort(); }
            int ptcv_warp_sheet(void) { abort(); }
            const char *ptcv_opencv_version(void) { abort(); }
            int ptcv_interface(void) { return 1; }

            """)
        _ = try PDFReaders.succeeded("cc", ["-shared", "-fPIC", "-o", folder + "/libPDFTrapperVision.so", scratch.path + "/old.c"],
                                     hint: "apt-get install gcc")
        let version = try PDFReaders.succeeded("env", [folder + "/pdftrapper", "--version"]).text
        #expect(version.contains("find_page needs libPDFTrapperVision.so of interface 4")
                    && version.contains("is of interface 1: install the binary and the library from one build"), "\(version)")
    }
}
