import Foundation

/// Small PDFs with text at known places, written by hand (Python, plain PDF syntax), so tests know
/// exactly where each word stands without depending on any producer.
public enum TextPDF {
    /// One page `width`×`height` points with /Rotate `rotate`; each line of text is Helvetica at
    /// (x, y) baseline, `size` points, in user space.
    public static func make(_ path: String, width: Int = 400, height: Int = 300, rotate: Int = 0,
                            lines: [(x: Int, y: Int, size: Int, text: String)]) throws {
        let content = lines.map { "BT /F1 \($0.size) Tf \($0.x) \($0.y) Td (\($0.text)) Tj ET" }.joined(separator: "\n")
        let script = """
        import sys
        content = sys.argv[2].encode()
        objects = [
            b"<< /Type /Catalog /Pages 2 0 R >>",
            b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
            b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 \(width) \(height)] /Rotate \(rotate) "
            b"/Resources << /Font << /F1 4 0 R >> >> /Contents 5 0 R >>",
            b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>",
            b"<< /Length %d >>\\nstream\\n" % len(content) + content + b"\\nendstream",
        ]
        out = bytearray(b"%PDF-1.7\\n")
        offsets = []
        for number, body in enumerate(objects, 1):
            offsets.append(len(out))
            out += b"%d 0 obj\\n" % number + body + b"\\nendobj\\n"
        xref = len(out)
        out += b"xref\\n0 %d\\n0000000000 65535 f \\n" % (len(objects) + 1)
        for offset in offsets:
            out += b"%010d 00000 n \\n" % offset
        out += b"trailer\\n<< /Size %d /Root 1 0 R >>\\nstartxref\\n%d\\n%%%%EOF\\n" % (len(objects) + 1, xref)
        open(sys.argv[1], "wb").write(out)
        """
        _ = try Python.run(script, [path, content])
    }

    /// The colour of pixels of page `page` rendered at 72 dpi by poppler, pdfium and mupdf, at
    /// points of the page as shown (x right, y down from the top-left corner): one "r,g,b" per
    /// renderer and point, so a test can see that every viewer shows the same.
    public static func pixels(_ path: String, page: Int = 1, at points: [(x: Int, y: Int)]) throws
        -> [String: [String]]
    {
        let script = """
        import io, json, subprocess, sys
        from PIL import Image
        import pypdfium2
        path, page, points = sys.argv[1], int(sys.argv[2]), json.loads(sys.argv[3])
        renders = {}
        ppm = subprocess.run(["pdftoppm", "-r", "72", "-f", str(page), "-l", str(page), path], check=True, capture_output=True).stdout
        renders["poppler"] = Image.open(io.BytesIO(ppm)).convert("RGB")
        document = pypdfium2.PdfDocument(path)
        renders["pdfium"] = document[page - 1].render(scale=1, may_draw_forms=True, draw_annots=True).to_pil().convert("RGB")
        png = subprocess.run(["mutool", "draw", "-q", "-r", "72", "-F", "png", "-o", "-", path, str(page)], check=True, capture_output=True).stdout
        renders["mupdf"] = Image.open(io.BytesIO(png)).convert("RGB")
        print(json.dumps({name: ["%d,%d,%d" % image.getpixel((x, y)) for x, y in points] for name, image in renders.items()}))
        """
        let json = "[" + points.map { "[\($0.x),\($0.y)]" }.joined(separator: ",") + "]"
        let out = try Python.run(script, [path, String(page), json])
        return try JSONDecoder().decode([String: [String]].self, from: Data(out.utf8))
    }
}
