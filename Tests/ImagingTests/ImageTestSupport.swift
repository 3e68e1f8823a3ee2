import Foundation
import Imaging
import PDFAccess
import TestSupport
import Testing
import TrapperCore

/// What the image tests share: a scratch folder, Pillow to make inputs and judge renders, and
/// the real PDF readers every written file must satisfy, run through TestSupport's `PDFReaders`
/// and `Python`. What is here is the image-specific part: the Python prelude, full renders and
/// image-stream decoding.
struct ImageScratch {
    let directory: URL
    static let flate = ZlibFlate()

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("imagetests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    func path(_ name: String) -> String { directory.appendingPathComponent(name).path }

    func remove() { try? FileManager.default.removeItem(at: directory) }

    /// Runs `tool` (through TestSupport's `PDFReaders.run`); its status and everything it printed,
    /// stdout then stderr.
    @discardableResult
    static func run(_ tool: String, _ arguments: [String]) throws -> (status: Int32, output: String) {
        let result = try PDFReaders.run(tool, arguments)
        return (result.status, result.text + result.stderr)
    }

    /// Runs a Python script (TestSupport's `Python.run`) with the helpers below in scope, in this
    /// folder; returns its output, and fails the test at `sourceLocation` if it exits non-zero.
    @discardableResult
    func python(_ script: String, sourceLocation: Testing.SourceLocation = #_sourceLocation) throws -> String {
        do {
            let output = try Python.run(Self.prelude + "\nos.chdir(\(quoted(directory.path)))\n" + script, [])
            return output.trimmingCharacters(in: .whitespacesAndNewlines)
        } catch {
            Issue.record("python failed:\n\(error)", sourceLocation: sourceLocation)
            return ""
        }
    }

    private func quoted(_ text: String) -> String { "'" + text.replacingOccurrences(of: "'", with: "\\'") + "'" }

    /// Opens `input` with PDFTrapper's reader and writes every page into `output`.
    @discardableResult
    func convert(_ input: String, to output: String, limits: ImageLimits = ImageLimits(defaultDPI: 72)) throws
        -> [ImagePage]
    {
        let document = try ImageFiles.open(path: path(input), limits: limits, flate: Self.flate)
        let pages = try (0..<document.pageCount).map { try document.page($0) }
        let revision = try ImagePage.newDocument(pages)
        try Data(revision.serialized()).write(to: URL(fileURLWithPath: path(output)))
        return pages
    }

    /// qpdf --check, pdfinfo, mutool info, Ghostscript, pypdf (strict) and pypdfium2 all read
    /// `pdf` without complaint and count `pages` pages.
    func requireReadersAgree(_ pdf: String, pages: Int, sourceLocation: Testing.SourceLocation = #_sourceLocation) throws {
        let file = path(pdf)
        let qpdf = try Self.run("qpdf", ["--check", file])
        #expect(qpdf.status == 0, "qpdf --check: \(qpdf.output)", sourceLocation: sourceLocation)
        let info = try Self.run("pdfinfo", [file])
        #expect(info.status == 0 && Self.pageCount(info.output) == pages, "pdfinfo: \(info.output)",
            sourceLocation: sourceLocation)
        #expect(!info.output.lowercased().contains("error"), "pdfinfo: \(info.output)", sourceLocation: sourceLocation)
        let mutool = try Self.run("mutool", ["info", file])
        #expect(mutool.status == 0 && Self.pageCount(mutool.output) == pages
            && !mutool.output.contains("error"), "mutool: \(mutool.output)", sourceLocation: sourceLocation)
        // Ghostscript renders every page, so broken image data shows up as an error here.
        let gs = try Self.run("gs", ["-q", "-dNOPAUSE", "-dBATCH", "-dPDFSTOPONERROR", "-sDEVICE=nullpage", file])
        #expect(gs.status == 0 && gs.output.isEmpty, "gs: \(gs.output)", sourceLocation: sourceLocation)
        let counts = try python("""
            import pypdf, pypdfium2
            r = pypdf.PdfReader(\(quoted(file)), strict=True)
            for p in r.pages:
                for name, obj in p['/Resources']['/XObject'].items():
                    obj.get_object().get_data()  # decodes the image stream
            d = pypdfium2.PdfDocument(\(quoted(file)))
            for i in range(len(d)):
                d[i].render(scale=0.25).to_pil()
            print(len(r.pages), len(d))
            """, sourceLocation: sourceLocation)
        #expect(counts == "\(pages) \(pages)", "pypdf, pypdfium2 pages: \(counts)", sourceLocation: sourceLocation)
    }

    /// The number on the "Pages:" line of pdfinfo's or mutool's report.
    static func pageCount(_ report: String) -> Int? {
        report.split(separator: "\n").first { $0.hasPrefix("Pages:") }
            .flatMap { Int($0.dropFirst("Pages:".count).trimmingCharacters(in: .whitespaces)) }
    }

    /// The page sizes pdfinfo reports, in points.
    func pageSizes(_ pdf: String) throws -> [(Double, Double)] {
        let output = try Self.run("pdfinfo", ["-f", "1", "-l", "9999", path(pdf)]).output
        return output.split(separator: "\n").compactMap { line in
            guard let match = line.firstMatch(of: #/Page\s+\d+ size:\s+([0-9.]+) x ([0-9.]+) pts/#) else { return nil }
            return (Double(match.1)!, Double(match.2)!)
        }
    }

    func bytes(_ name: String) throws -> [UInt8] { [UInt8](try Data(contentsOf: URL(fileURLWithPath: path(name)))) }

    /// Python helpers: `render(pdf, page, dpi)` with poppler (sampled at pixel centres), `diff(a, b)` the largest channel
    /// difference, `flatten(img)` composites alpha over white, as a page shows it.
    static let prelude = #"""
        import os, subprocess, sys
        from PIL import Image, ImageChops, ImageOps, TiffImagePlugin
        def render(pdf, page=1, dpi=72):
            # Poppler blends neighbours at 1:1; at 4x, each source pixel's centre is exact.
            out = f"render-{os.getpid()}-{page}"
            subprocess.run(["pdftoppm", "-r", str(dpi * 4), "-f", str(page), "-l", str(page), "-singlefile", "-png", pdf, out], check=True)
            img = Image.open(out + ".png").convert("RGB")
            return img.resize((round(img.width / 4), round(img.height / 4)), Image.NEAREST)
        def flatten(img):
            img = img.convert("RGBA")
            white = Image.new("RGBA", img.size, (255, 255, 255, 255))
            return Image.alpha_composite(white, img).convert("RGB")
        def diff(a, b):
            a = a.convert("RGB"); b = b.convert("RGB")
            if a.size != b.size:
                return f"size {a.size} != {b.size}"
            return max(hi for lo, hi in ImageChops.difference(a, b).getextrema())
        def meandiff(a, b):
            """The mean difference of all channels, 0 to 255: for lossy codecs, where single pixels stray."""
            a = a.convert("RGB"); b = b.convert("RGB")
            if a.size != b.size:
                return 999
            data = ImageChops.difference(a, b).getdata()
            return sum(sum(p) for p in data) / (3 * len(data))
        def pam(img, path):
            """PAM for heif-make: 8-bit RGB or RGB_ALPHA."""
            kind = "RGB_ALPHA" if img.mode == "RGBA" else "RGB"
            header = f"P7\nWIDTH {img.width}\nHEIGHT {img.height}\nDEPTH {len(img.mode)}\nMAXVAL 255\nTUPLTYPE {kind}\nENDHDR\n"
            open(path, "wb").write(header.encode() + img.tobytes())
        def exif(orientation=None, dpi=None):
            ex = Image.Exif()
            if orientation: ex[0x0112] = orientation
            if dpi: ex[0x011A] = dpi; ex[0x011B] = dpi; ex[0x0128] = 2
            return ex.tobytes()
        def pattern(w, h):
            """Quadrants of distinct colors over gradients: any flip or turn changes it."""
            img = Image.new("RGB", (w, h))
            px = img.load()
            for y in range(h):
                for x in range(w):
                    q = (x * 2 // w) + 2 * (y * 2 // h)
                    base = [(220, 40, 40), (40, 200, 40), (40, 40, 220), (230, 230, 40)][q]
                    px[x, y] = tuple(min(255, c + (x * 7 + y * 3) % 24) for c in base)
            return img
        """#
}

extension Array where Element == UInt8 {
    /// True when `needle` occurs in these bytes.
    func contains(bytes needle: [UInt8]) -> Bool {
        guard !needle.isEmpty, needle.count <= count else { return needle.isEmpty }
        let first = needle[0]
        var index = 0
        while let found = self[index...].firstIndex(of: first), found + needle.count <= count {
            if self[found..<(found + needle.count)].elementsEqual(needle) { return true }
            index = found + 1
        }
        return false
    }
}
