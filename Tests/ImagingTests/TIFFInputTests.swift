import Foundation
import Imaging
import Testing
import TrapperCore

/// TIFFs: every page; single-strip CCITT pages pass through byte for byte, the rest are decoded by
/// leptonica and Flate-compressed; each page renders as Pillow decodes it.
@Suite struct TIFFInputTests {
    static let bitmap = """
        def bitmap(w, h):
            img = Image.new('1', (w, h), 1)
            px = img.load()
            for y in range(h):
                for x in range(w):
                    if (x // 3 * y // 2) % 7 < 2 or x == y: px[x, y] = 0
            return img
        def strips(path, page=0):
            t = Image.open(path); t.seek(page)
            print(' '.join(map(str, t.tag_v2[273])), '/', ' '.join(map(str, t.tag_v2[279])))


        """

    /// Every page of `input` renders as Pillow decodes it, and the readers agree on the count.
    func requireRendersAsPillow(_ scratch: ImageScratch, _ input: String, pages: Int,
        sourceLocation: Testing.SourceLocation = #_sourceLocation) throws
    {
        try scratch.requireReadersAgree("out.pdf", pages: pages, sourceLocation: sourceLocation)
        let differences = try scratch.python("""
            from PIL import ImageSequence
            frames = [f.copy() for f in ImageSequence.Iterator(Image.open('\(input)'))]
            print(' '.join(str(diff(render('out.pdf', i + 1), ImageOps.exif_transpose(f).convert('RGB'))) for i, f in enumerate(frames)))
            """, sourceLocation: sourceLocation)
        #expect(differences == Array(repeating: "0", count: pages).joined(separator: " "),
            "renders differ per page: \(differences)", sourceLocation: sourceLocation)
    }

    @Test(arguments: [
        ("G4", "bitmap(200, 100).save('in.tif', compression='group4', dpi=(72, 72))", -1),
        ("G3 1-D", "bitmap(200, 100).save('in.tif', compression='group3', dpi=(72, 72))", 0),
        ("G3 2-D", "bitmap(200, 100).save('in.tif', compression='group3', dpi=(72, 72), tiffinfo={292: 1})", 1),
        ("G4 white-is-zero", "bitmap(200, 100).save('in.tif', compression='group4', dpi=(72, 72), tiffinfo={262: 0})", -1),
        ("G3 2-D byte-aligned", "bitmap(200, 100).save('in.tif', compression='group3', dpi=(72, 72), tiffinfo={292: 5})", 1),
    ])
    func singleStripCCITTPassesThrough(_ kind: String, _ make: String, _ k: Int) throws {
        let scratch = try ImageScratch()
        defer { scratch.remove() }
        let strips = try scratch.python(Self.bitmap + make + "\nstrips('in.tif')")
            .split(separator: "/").map { $0.split(separator: " ").compactMap { Int($0) } }
        try #require(strips.count == 2 && strips[0].count == 1, "\(kind): Pillow wrote \(strips) strips")
        let pages = try scratch.convert("in.tif", to: "out.pdf")
        let tiff = try scratch.bytes("in.tif")
        let image = pages[0].image
        #expect(image.data == Array(tiff[strips[0][0]..<(strips[0][0] + strips[1][0])]), "\(kind): strip bytes changed")
        #expect(image.dictionary[.filter] == .name("CCITTFaxDecode"))
        let parameters = image.dictionary["DecodeParms"]?.dictionaryValue
        #expect(parameters?["K"] == .integer(k) && parameters?["Columns"] == 200 && parameters?["Rows"] == 100,
            "\(kind): \(String(describing: parameters))")
        try requireRendersAsPillow(scratch, "in.tif", pages: 1)
        #expect(try scratch.pageSizes("out.pdf")[0] == (200, 100))
    }

    @Test(arguments: [
        ("G4 in four strips", "bitmap(2000, 800).save('in.tif', compression='group4', dpi=(72, 72))"),
        ("LZW RGB", "pattern(60, 40).save('in.tif', compression='tiff_lzw', dpi=(72, 72))"),
        ("Deflate grey", "pattern(60, 40).convert('L').save('in.tif', compression='tiff_adobe_deflate', dpi=(72, 72))"),
        ("PackBits palette", "pattern(60, 40).convert('P', palette=Image.Palette.ADAPTIVE, colors=16).save('in.tif', compression='packbits', dpi=(72, 72))"),
        ("uncompressed bilevel", "bitmap(61, 40).save('in.tif', dpi=(72, 72))"),
        ("LZW turned by orientation 3", "pattern(60, 40).save('in.tif', compression='tiff_lzw', dpi=(72, 72), tiffinfo={274: 3})"),
        ("LZW mirrored by orientation 5", "pattern(60, 40).save('in.tif', compression='tiff_lzw', dpi=(72, 72), tiffinfo={274: 5})"),
        ("G4 in strips turned by orientation 8", "bitmap(1800, 500).save('in.tif', compression='group4', dpi=(72, 72), tiffinfo={274: 8})"),
        ("uncompressed RGBA", """
            img = pattern(60, 40).convert('RGBA'); img.putalpha(255); img.putpixel((5, 5), (0, 0, 0, 255)); img.save('in.tif', dpi=(72, 72))
            """),
    ])
    func otherPagesAreDecodedLosslessly(_ kind: String, _ make: String) throws {
        let scratch = try ImageScratch()
        defer { scratch.remove() }
        try scratch.python(Self.bitmap + make)
        let pages = try scratch.convert("in.tif", to: "out.pdf")
        #expect(pages[0].image.dictionary[.filter] == .name("FlateDecode"), "\(kind)")
        try requireRendersAsPillow(scratch, "in.tif", pages: 1)
    }

    @Test func fillOrderTwoStripIsBitReversedNotDecoded() throws {
        let scratch = try ImageScratch()
        defer { scratch.remove() }
        let strips = try scratch.python(Self.bitmap + """
            bitmap(200, 100).save('in.tif', compression='group4', dpi=(72, 72), tiffinfo={266: 2})
            strips('in.tif')
            """).split(separator: "/").map { $0.split(separator: " ").compactMap { Int($0) } }
        let pages = try scratch.convert("in.tif", to: "out.pdf")
        let strip = try scratch.bytes("in.tif")[strips[0][0]..<(strips[0][0] + strips[1][0])]
        #expect(pages[0].image.dictionary[.filter] == .name("CCITTFaxDecode"))
        #expect(pages[0].image.data == strip.map { byte in (0..<8).reduce(UInt8(0)) { $0 | ((byte >> $1) & 1) << (7 - $1) } }, "strip not bit-reversed byte for byte")
        try requireRendersAsPillow(scratch, "in.tif", pages: 1)
    }

    @Test func passedThroughG4PageIsTurnedByItsOrientationTag() throws {
        let scratch = try ImageScratch()
        defer { scratch.remove() }
        try scratch.python(Self.bitmap + "bitmap(90, 210).save('in.tif', compression='group4', dpi=(72, 72), tiffinfo={274: 8})")
        let pages = try scratch.convert("in.tif", to: "out.pdf")
        #expect(pages[0].image.dictionary[.filter] == .name("CCITTFaxDecode"))
        #expect(try scratch.pageSizes("out.pdf")[0] == (210, 90))
        try requireRendersAsPillow(scratch, "in.tif", pages: 1)
    }

    @Test func everyPageOfAMultiPageFileWithItsOwnSizeAndOrientation() throws {
        let scratch = try ImageScratch()
        defer { scratch.remove() }
        // A G4 page at 72 dpi, an LZW colour page at 144 dpi, a grey page turned by orientation 6.
        try scratch.python(Self.bitmap + """
            first = bitmap(120, 80)
            second = pattern(60, 40)
            third = pattern(50, 30).convert('L')
            # Each page with its own compression, resolution and orientation.
            with TiffImagePlugin.AppendingTiffWriter('in.tif', new=True) as tf:
                for img, info, compression in [(first, {}, 'group4'), (second, {282: 144, 283: 144}, 'tiff_lzw'),
                                               (third, {274: 6}, 'tiff_adobe_deflate')]:
                    tags = TiffImagePlugin.ImageFileDirectory_v2(); tags[296] = 2
                    tags[282] = info.get(282, 72); tags[283] = info.get(283, 72)
                    if 274 in info: tags[274] = info[274]
                    img.save(tf, tiffinfo=tags, compression=compression); tf.newFrame()
            """)
        let pages = try scratch.convert("in.tif", to: "out.pdf")
        #expect(pages.count == 3)
        #expect(pages.map { $0.image.dictionary[.filter]?.nameValue?.string } == ["CCITTFaxDecode", "FlateDecode", "FlateDecode"])
        let sizes = try scratch.pageSizes("out.pdf")
        #expect(sizes.count == 3 && sizes[0] == (120, 80) && sizes[1] == (30, 20) && sizes[2] == (30, 50), "\(sizes)")
        try scratch.requireReadersAgree("out.pdf", pages: 3)
        // Page 2 is at 144 dpi: render it at twice the resolution to compare pixel for pixel.
        let differences = try scratch.python("""
            from PIL import ImageSequence
            frames = [ImageOps.exif_transpose(f.copy()).convert('RGB') for f in ImageSequence.Iterator(Image.open('in.tif'))]
            print(diff(render('out.pdf', 1), frames[0]), diff(render('out.pdf', 2, dpi=144), frames[1]), diff(render('out.pdf', 3), frames[2]))
            """)
        #expect(differences == "0 0 0", "renders differ per page: \(differences)")
    }
}
