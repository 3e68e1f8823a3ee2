import Foundation

/// Pictures of text pages, drawn by Pillow with DejaVu Serif (Debian's fonts-dejavu-core): an A4
/// page at `dpi` with a thick rule across its top (so a test can measure its slant) and `lines`
/// lines of English words; then turned by `skew` degrees (counterclockwise, as Pillow turns) and by
/// `quarterTurn` (90, 180 or 270, counterclockwise).
public enum TextPages {
    public static let script = """
        import json, random, sys
        from PIL import Image, ImageDraw, ImageFont
        spec = json.loads(sys.argv[2])
        dpi = spec.get("dpi", 200)
        w, h = int(8.27 * dpi), int(11.69 * dpi)
        rnd = random.Random(spec.get("seed", 7))
        truth = []
        def page(kind):
            if kind == "noisy-blank":
                im = Image.effect_noise((w, h), 12).point(lambda v: min(255, 205 + v // 5))
                d = ImageDraw.Draw(im)
                for _ in range(500):
                    d.point((rnd.randrange(w), rnd.randrange(h)), fill=rnd.randrange(40, 140))
                return im
            im = Image.new("L", (w, h), 255)
            d = ImageDraw.Draw(im)
            font = ImageFont.truetype("/usr/share/fonts/truetype/dejavu/DejaVuSerif.ttf", int(dpi * 11 / 72))
            words = ("the quick brown fox jumps over the lazy dog while invoices and letters arrive "
                     "in the morning post for the office").split()
            y = int(dpi * 1.0)
            lines = 1 if kind == "one-line" else spec.get("lines", 40)
            if kind != "one-line":
                d.rectangle([int(dpi * 0.8), y, w - int(dpi * 0.8), y + int(dpi * 0.04)], fill=0)
            y += int(dpi * 0.3)
            for _ in range(lines):
                line = " ".join(rnd.choice(words) for _ in range(11))
                truth.append(line)
                d.text((int(dpi * 0.8), y), line, font=font, fill=0)
                y += int(dpi * 0.22)
            if spec.get("skew"):
                im = im.rotate(spec["skew"], resample=Image.BICUBIC, fillcolor=255)
            if spec.get("quarterTurn"):
                im = im.rotate(spec["quarterTurn"], expand=True)
            return im
        pages = [page(kind) for kind in spec.get("pages", ["text"])]
        options = {"dpi": (dpi, dpi)}
        if sys.argv[1].endswith(".jpg"):
            options["quality"] = 90
        if len(pages) > 1:
            options["save_all"] = True
            options["append_images"] = pages[1:]
        pages[0].save(sys.argv[1], **options)
        open(sys.argv[1] + ".txt", "w").write("\\n".join(truth) + "\\n")
        """

    /// Writes the picture, and beside it `PATH.txt` with the lines of text it shows; `pages` are
    /// "text", "one-line" and "noisy-blank" (a multi-page TIFF when several).
    public static func make(_ path: String, skew: Double = 0, quarterTurn: Int = 0, dpi: Int = 200,
                            pages: [String] = ["text"]) throws {
        let spec: [String: Any] = ["skew": skew, "quarterTurn": quarterTurn, "dpi": dpi, "pages": pages]
        let json = String(decoding: try JSONSerialization.data(withJSONObject: spec), as: UTF8.self)
        _ = try Python.run(script, [path, json])
    }

    /// The slant of the page's top rule in degrees (positive: rising to the right), as pdftoppm
    /// renders page `page` at 150 dpi: where the rule's dark run is centred at 20% and 80% of the width.
    public static func ruleSlant(_ pdf: String, page: Int = 1) throws -> Double {
        let out = try Python.run("""
            import io, math, subprocess, sys
            from PIL import Image
            ppm = subprocess.run(["pdftoppm", "-r", "150", "-gray", "-f", sys.argv[2], "-l", sys.argv[2], sys.argv[1]],
                                 check=True, capture_output=True).stdout
            im = Image.open(io.BytesIO(ppm)).convert("L")
            w, h = im.size
            px = im.load()
            def centre(x):
                # The first dark run from the top: the rule.
                y = 0
                while y < h and px[x, y] > 128: y += 1
                top = y
                while y < h and px[x, y] <= 128: y += 1
                return (top + y - 1) / 2
            x1, x2 = int(w * 0.2), int(w * 0.8)
            print(math.degrees(math.atan2(centre(x1) - centre(x2), x2 - x1)))
            """, [pdf, String(page)])
        guard let slant = Double(out.trimmingCharacters(in: .whitespacesAndNewlines)) else {
            throw PDFReaders.Failure.failed("measure the rule in \(pdf)", status: 0, output: out)
        }
        return slant
    }
}
