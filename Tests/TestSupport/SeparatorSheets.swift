import Foundation

/// A stack of A4 sheets at 150 dpi, drawn by Pillow (barcodes by zint), saved as one multi-page
/// TIFF or PDF. A sheet is one of:
///
/// - `"page:K"`: a page of a document, with K bars across its top quarter (as the tiny scanner
///   draws them, so `TinySane.bars` reads K back) and lines of text below;
/// - `"form:K"`: the same with a ruled table (thin lines 4 mm apart), which must stay a page;
/// - `"patch"` / `"patch-upside-down"`: a patch T separator sheet, bars across the sheet 2.0 and
///   5.1 mm thick, narrow-wide-narrow-wide from the top (or from the bottom);
/// - `"qr:VALUE"` / `"code128:VALUE"`: a sheet with that barcode in its middle;
/// - `"blank"`: scanner-white with a little noise.
public enum SeparatorSheets {
    public static func make(_ path: String, _ sheets: [String]) throws {
        _ = try Python.run(script, [path] + sheets)
    }

    static let script = """
        import os, random, subprocess, sys, tempfile
        from PIL import Image, ImageDraw, ImageFont
        dpi = 150
        w, h = int(8.27 * dpi), int(11.69 * dpi)
        mm = dpi / 25.4
        rnd = random.Random(5)
        font = ImageFont.truetype("/usr/share/fonts/truetype/dejavu/DejaVuSerif.ttf", int(dpi * 11 / 72))

        def page(bars, form):
            im = Image.new("L", (w, h), 255)
            d = ImageDraw.Draw(im)
            for i in range(bars):
                d.rectangle([(2 * i + 1) * w // 40, 0, (2 * i + 2) * w // 40 - 1, h // 4 - 1], fill=0)
            y = h // 3
            for _ in range(25):
                d.text((int(20 * mm), y), " ".join(rnd.choice(["invoice", "letter", "total", "the", "post"]) for _ in range(9)),
                       font=font, fill=0)
                y += int(6 * mm)
            if form:
                for k in range(12):
                    top = int(h * 0.55 + k * 4 * mm)
                    d.rectangle([int(20 * mm), top, w - int(20 * mm), top + int(0.5 * mm)], fill=0)
            return im

        def patch(upside_down):
            im = Image.new("L", (w, h), 255)
            d = ImageDraw.Draw(im)
            widths = [2.0, 5.1, 2.0, 5.1]
            if upside_down:
                widths.reverse()
            y = 30 * mm
            for bar in widths:
                d.rectangle([int(25 * mm), int(y), w - int(25 * mm), int(y + bar * mm) - 1], fill=0)
                y += bar * mm + 2.0 * mm
            return im

        def barcode(kind, value):
            with tempfile.TemporaryDirectory() as folder:
                out = os.path.join(folder, "code.png")
                symbology = {"qr": "58", "code128": "20"}[kind]
                subprocess.run(["zint", "-b", symbology, "--scale", "3" if kind == "qr" else "2", "-d", value, "-o", out],
                               check=True, capture_output=True)
                code = Image.open(out).convert("L")
                code.load()
            im = Image.new("L", (w, h), 255)
            im.paste(code, ((w - code.width) // 2, (h - code.height) // 2))
            return im

        def blank():
            return Image.effect_noise((w, h), 8).point(lambda v: min(255, 215 + v // 6))

        images = []
        for sheet in sys.argv[2:]:
            kind, _, value = sheet.partition(":")
            if kind == "page": images.append(page(int(value), False))
            elif kind == "form": images.append(page(int(value), True))
            elif kind == "patch": images.append(patch(False))
            elif kind == "patch-upside-down": images.append(patch(True))
            elif kind in ("qr", "code128"): images.append(barcode(kind, value))
            elif kind == "blank": images.append(blank())
            else: raise SystemExit("unknown sheet " + sheet)
        extra = {"compression": "tiff_lzw"} if sys.argv[1].endswith(".tiff") else {}
        images[0].save(sys.argv[1], save_all=True, append_images=images[1:], dpi=(dpi, dpi), resolution=dpi, **extra)
        """
}
