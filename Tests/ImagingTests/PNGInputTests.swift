import Foundation
import Imaging
import Testing
import TrapperCore

/// PNGs: IDAT kept as is where PDF's predictors can read it, decoded losslessly where not; alpha
/// and tRNS become a soft mask; every variant renders as the source (over white, as a page shows it).
@Suite struct PNGInputTests {
    /// `write_png(path, rows, depth, color_type, interlace=, plte=, trns=)`: a PNG writer that
    /// cycles through all five row filters and can interlace (Pillow writes neither 48-bit nor
    /// interlaced PNGs). `ref` is what the page must look like.
    static let writer = #"""
        import zlib, struct, random
        random.seed(7)
        def chunk(t, d): return struct.pack('>I', len(d)) + t + d + struct.pack('>I', zlib.crc32(t + d) & 0xffffffff)
        def pack(samples, depth):
            if depth == 8: return bytes(samples)
            if depth == 16: return b''.join(struct.pack('>H', s) for s in samples)
            out, acc, n = bytearray(), 0, 0
            for s in samples:
                acc, n = (acc << depth) | s, n + depth
                if n == 8: out.append(acc); acc, n = 0, 0
            if n: out.append(acc << (8 - n))
            return bytes(out)
        def paeth(a, b, c):
            p = a + b - c; pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
            return a if pa <= pb and pa <= pc else (b if pb <= pc else c)
        def filt(kind, row, prev, bpp):
            out = bytearray()
            for i, x in enumerate(row):
                a = row[i - bpp] if i >= bpp else 0; b = prev[i] if prev else 0; c = prev[i - bpp] if prev and i >= bpp else 0
                out.append((x - [0, a, b, (a + b) // 2, paeth(a, b, c)][kind]) & 255)
            return bytes([kind]) + bytes(out)
        def write_png(path, rows, depth, ctype, interlace=False, plte=None, trns=None):
            h, w = len(rows), len(rows[0]); channels = len(rows[0][0])
            bpp = max(1, channels * depth // 8)
            passes = [(0,0,8,8),(4,0,8,8),(0,4,4,8),(2,0,4,4),(0,2,2,4),(1,0,2,2),(0,1,1,2)] if interlace else [(0,0,1,1)]
            raw, k = bytearray(), 0
            for x0, y0, dx, dy in passes:
                prev = None
                for y in range(y0, h, dy):
                    xs = range(x0, w, dx)
                    if len(xs) == 0: continue
                    line = pack([s for x in xs for s in rows[y][x]], depth)
                    raw += filt(k % 5, line, prev, bpp); prev = line; k += 1
            data = b'\x89PNG\r\n\x1a\n' + chunk(b'IHDR', struct.pack('>IIBBBBB', w, h, depth, ctype, 0, 0, int(interlace)))
            if plte: data += chunk(b'PLTE', bytes(plte))
            if trns is not None: data += chunk(b'tRNS', bytes(trns))
            data += chunk(b'pHYs', struct.pack('>IIB', 2835, 2835, 1))  # 72.009 dpi
            z = zlib.compress(bytes(raw))
            data += chunk(b'IDAT', z[:len(z) // 2]) + chunk(b'IDAT', z[len(z) // 2:]) + chunk(b'IEND', b'')
            open(path, 'wb').write(data)
        def grid(w, h, f): return [[f(x, y) for x in range(w)] for y in range(h)]
        """#

    struct Case: Sendable, CustomStringConvertible {
        var description: String
        var script: String
        var passThrough: Bool
        var softMask: Bool
        var tolerance: Int = 0
    }

    static let cases: [Case] = [
        Case(description: "grey 1-bit", script: "write_png('in.png', grid(37, 21, lambda x, y: ((x ^ y) & 1,)), 1, 0)",
            passThrough: true, softMask: false),
        Case(description: "grey 2-bit", script: "write_png('in.png', grid(37, 21, lambda x, y: ((x + y) % 4,)), 2, 0)",
            passThrough: true, softMask: false),
        Case(description: "grey 4-bit", script: "write_png('in.png', grid(37, 21, lambda x, y: ((x * y) % 16,)), 4, 0)",
            passThrough: true, softMask: false),
        Case(description: "grey 8-bit", script: "write_png('in.png', grid(37, 21, lambda x, y: ((x * 7 + y * 11) % 256,)), 8, 0)",
            passThrough: true, softMask: false),
        Case(description: "RGB 8-bit (Pillow)", script: "pattern(40, 30).save('in.png', dpi=(72, 72))",
            passThrough: true, softMask: false),
        Case(description: "palette 1-bit (Pillow)",
            script: "pattern(40, 30).convert('P', palette=Image.Palette.ADAPTIVE, colors=2).save('in.png', dpi=(72, 72))",
            passThrough: true, softMask: false),
        Case(description: "palette 4-bit (Pillow)",
            script: "pattern(40, 30).convert('P', palette=Image.Palette.ADAPTIVE, colors=12).save('in.png', dpi=(72, 72))",
            passThrough: true, softMask: false),
        Case(description: "palette 8-bit", script: """
            plte = [c for i in range(200) for c in (i, 255 - i, (i * 5) % 256)]
            write_png('in.png', grid(37, 21, lambda x, y: ((x * 3 + y * 5) % 200,)), 8, 3, plte=plte)
            """, passThrough: true, softMask: false),
        Case(description: "palette 2-bit with tRNS", script: """
            write_png('in.png', grid(37, 21, lambda x, y: ((x + 2 * y) % 4,)), 2, 3,
                      plte=[255, 0, 0, 0, 255, 0, 0, 0, 255, 10, 10, 10], trns=[0, 128, 255])
            """, passThrough: true, softMask: true, tolerance: 2),
        Case(description: "grey 8-bit with tRNS key",
            script: "write_png('in.png', grid(37, 21, lambda x, y: ((x * 9) % 256,)), 8, 0, trns=[0, 18])",
            passThrough: true, softMask: true),
        Case(description: "RGB 16-bit with tRNS key", script: """
            write_png('in.png', grid(37, 21, lambda x, y: (x * 1700, y * 3000, 40000)), 16, 2, trns=list(struct.pack('>HHH', 1700 * 3, 3000 * 2, 40000)))
            # Pillow ignores a 16-bit RGB key; the expected page is drawn by hand.
            ref = Image.new('RGB', (37, 21)); ref.putdata([(255, 255, 255) if (x, y) == (3, 2) else
                ((x * 1700 * 255 + 32767) // 65535, (y * 3000 * 255 + 32767) // 65535, 156) for y in range(21) for x in range(37)])
            ref.save('ref.png')
            """, passThrough: false, softMask: true, tolerance: 1),
        Case(description: "RGBA 8-bit (Pillow)", script: """
            img = pattern(40, 30).convert('RGBA'); img.putalpha(Image.linear_gradient('L').resize((40, 30)))
            img.save('in.png', dpi=(72, 72))
            """, passThrough: false, softMask: true, tolerance: 2),
        Case(description: "grey + alpha 8-bit", script: """
            write_png('in.png', grid(37, 21, lambda x, y: ((x * 6) % 256, (y * 12) % 256)), 8, 4)
            """, passThrough: false, softMask: true, tolerance: 2),
        Case(description: "RGBA 16-bit", script: """
            write_png('in.png', grid(37, 21, lambda x, y: (x * 1700, y * 3000, 40000, 65535 - x * 1000)), 16, 6)
            """, passThrough: false, softMask: true, tolerance: 2),
        Case(description: "grey 16-bit (Pillow)", script: """
            img = Image.new('I;16', (40, 30)); img.putdata([(x * 1600 + y * 17) for y in range(30) for x in range(40)])
            img.save('in.png', dpi=(72, 72))
            # Pillow clips 16-bit grey to 255 when converting; the page shows it scaled.
            ref = Image.new('L', (40, 30)); ref.putdata([(v * 255 + 32767) // 65535 for v in img.getdata()]); ref.save('ref.png')
            """, passThrough: false, softMask: false, tolerance: 1),
        Case(description: "RGB 16-bit", script: """
            write_png('in.png', grid(37, 21, lambda x, y: (x * 1700, y * 3000, (x * y * 97) % 65536)), 16, 2)
            """, passThrough: false, softMask: false, tolerance: 1),
        Case(description: "interlaced RGB 8-bit", script: """
            write_png('in.png', grid(37, 21, lambda x, y: (x * 6, y * 12, (x * y) % 256)), 8, 2, interlace=True)
            """, passThrough: false, softMask: false),
        Case(description: "interlaced grey 1-bit", script: """
            write_png('in.png', grid(13, 11, lambda x, y: ((x * y + x) % 3 == 0,)), 1, 0, interlace=True)
            """, passThrough: false, softMask: false),
        Case(description: "interlaced palette 4-bit", script: """
            write_png('in.png', grid(19, 9, lambda x, y: ((x + y * 3) % 16,)), 4, 3, interlace=True,
                      plte=[c for i in range(16) for c in (i * 16, 255 - i * 16, 128)])
            """, passThrough: false, softMask: false),
        Case(description: "interlaced RGBA 16-bit", script: """
            write_png('in.png', grid(11, 10, lambda x, y: (x * 5000, y * 6000, 30000, 20000 + x * 4000)), 16, 6, interlace=True)
            """, passThrough: false, softMask: true, tolerance: 2),
    ]

    @Test(arguments: cases)
    func rendersAsTheSource(_ png: Case) throws {
        let scratch = try ImageScratch()
        defer { scratch.remove() }
        try scratch.python(Self.writer + "\n" + png.script)
        let pages = try scratch.convert("in.png", to: "out.pdf")
        let page = try #require(pages.first)
        let file = try PNGFile(try scratch.bytes("in.png"))
        #expect((page.image.data == file.idat) == png.passThrough, "\(png): IDAT passed through: \(!png.passThrough)")
        #expect((page.softMask != nil) == png.softMask, "\(png): soft mask")
        if png.passThrough {
            #expect(page.image.dictionary["DecodeParms"]?.dictionaryValue?["Predictor"] == 15)
        }
        try scratch.requireReadersAgree("out.pdf", pages: 1)
        let size = try scratch.pageSizes("out.pdf")[0]
        let expected = (Double(file.width) / (file.resolution?.x ?? 72) * 72, Double(file.height) / (file.resolution?.y ?? 72) * 72)
        #expect(abs(size.0 - expected.0) < 0.01 && abs(size.1 - expected.1) < 0.01, "\(png): page \(size)")
        let difference = try scratch.python("print(diff(render('out.pdf'), Image.open('ref.png') if os.path.exists('ref.png') else flatten(Image.open('in.png'))))")
        #expect((Int(difference) ?? 999) <= png.tolerance, "\(png): render differs from the source by \(difference)")
    }
}
