import Foundation
import Imaging
import Testing
import TrapperCore

/// JPEGs go into the PDF byte for byte, copied from their files as the page is written; the page is
/// sized from the file's resolution and turned by its EXIF orientation with a matrix, never by
/// re-encoding.
@Suite struct JPEGInputTests {
    @Test(arguments: [
        ("grey", "img = pattern(64, 48).convert('L'); img.save('in.jpg', quality=92, dpi=(72, 72))"),
        ("rgb", "pattern(64, 48).save('in.jpg', quality=92, dpi=(72, 72))"),
        ("rgb 4:4:4", "pattern(64, 48).save('in.jpg', quality=100, subsampling=0, dpi=(72, 72))"),
        ("progressive", "pattern(64, 48).save('in.jpg', quality=92, progressive=True, dpi=(72, 72))"),
    ])
    func embedsTheFileUnchangedAndRendersItsPixels(_ kind: String, _ make: String) throws {
        let scratch = try ImageScratch()
        defer { scratch.remove() }
        try scratch.python(make)
        let pages = try scratch.convert("in.jpg", to: "out.pdf")
        let input = try scratch.bytes("in.jpg")
        #expect(pages[0].imageFile?.count == input.count, "\(kind): the JPEG is not left in its file to be copied when written")
        #expect(try scratch.bytes("out.pdf").contains(bytes: input), "\(kind): file bytes not found in the PDF")
        #expect(pages[0].image.dictionary[.filter] == .name("DCTDecode"))
        try scratch.requireReadersAgree("out.pdf", pages: 1)
        let sizes = try scratch.pageSizes("out.pdf")
        #expect(sizes.count == 1 && sizes[0] == (64, 48), "\(kind): \(sizes)")
        let difference = try scratch.python("print(diff(render('out.pdf'), Image.open('in.jpg')))")
        #expect((Int(difference) ?? 999) <= 3, "\(kind): render differs from Pillow's decode by \(difference)")
    }

    @Test func adobeInvertedCMYKGetsADecodeArrayAndRendersRight() throws {
        let scratch = try ImageScratch()
        defer { scratch.remove() }
        // White, black, cyan and magenta bands; Pillow writes CMYK JPEGs the Adobe way, inverted.
        try scratch.python("""
            img = Image.new('CMYK', (80, 20), (0, 0, 0, 0))
            for i, c in enumerate([(0, 0, 0, 0), (0, 0, 0, 255), (255, 0, 0, 0), (0, 255, 0, 0)]):
                img.paste(c, (i * 20, 0, i * 20 + 20, 20))
            img.save('in.jpg', quality=95, dpi=(72, 72))
            """)
        let jpeg = try JPEGFile(try scratch.bytes("in.jpg"))
        #expect(jpeg.components == 4 && jpeg.adobeTransform != nil)
        let pages = try scratch.convert("in.jpg", to: "out.pdf")
        #expect(pages[0].image.dictionary["Decode"] == [1, 0, 1, 0, 1, 0, 1, 0])
        #expect(pages[0].image.dictionary["ColorSpace"] == .name("DeviceCMYK"))
        #expect(try scratch.bytes("out.pdf").contains(bytes: scratch.bytes("in.jpg")), "the JPEG was re-encoded")
        try scratch.requireReadersAgree("out.pdf", pages: 1)
        let colors = try scratch.python("""
            r = render('out.pdf')
            print(' '.join('%d,%d,%d' % r.getpixel((x, 10)) for x in (10, 30, 50, 70)))
            """).split(separator: " ").map { $0.split(separator: ",").map { Int($0)! } }
        #expect(colors[0].allSatisfy { $0 > 235 }, "white band renders \(colors[0])")
        #expect(colors[1].allSatisfy { $0 < 60 }, "black band renders \(colors[1])")
        #expect(colors[2][0] < 80 && colors[2][1] > 120 && colors[2][2] > 180, "cyan band renders \(colors[2])")
        #expect(colors[3][0] > 180 && colors[3][1] < 80 && colors[3][2] > 80, "magenta band renders \(colors[3])")
    }

    @Test func pageSizeComesFromJFIFThenEXIFThenTheDefault() throws {
        let scratch = try ImageScratch()
        defer { scratch.remove() }
        try scratch.python("""
            pattern(300, 200).save('jfif.jpg', dpi=(150, 100))
            ex = Image.Exif(); ex[0x011A] = 600; ex[0x011B] = 600; ex[0x0128] = 2
            pattern(300, 200).save('exif.jpg', exif=ex.tobytes())  # JFIF density 1:1 without a unit
            pattern(300, 200).save('none.jpg')
            """)
        try scratch.convert("jfif.jpg", to: "jfif.pdf")
        try scratch.convert("exif.jpg", to: "exif.pdf")
        try scratch.convert("none.jpg", to: "none.pdf", limits: ImageLimits(defaultDPI: 300))
        #expect(try scratch.pageSizes("jfif.pdf")[0] == (144, 144))
        #expect(try scratch.pageSizes("exif.pdf")[0] == (36, 24))
        #expect(try scratch.pageSizes("none.pdf")[0] == (72, 48))
        try scratch.requireReadersAgree("exif.pdf", pages: 1)
    }

    /// The lens's 35 mm-equivalent focal length, which find_page needs for a photo taken square-on,
    /// comes from the Exif IFD; 0 ("unknown") and its absence give none.
    @Test func theFocalLengthIn35mmComesFromEXIF() throws {
        let scratch = try ImageScratch()
        defer { scratch.remove() }
        try scratch.python("""
            for name, focal in (('26.jpg', 26), ('0.jpg', 0)):
                ex = Image.Exif(); ex[0x0112] = 1; ex.get_ifd(0x8769)[0xA405] = focal
                pattern(300, 200).save(name, exif=ex.tobytes())
            pattern(300, 200).save('none.jpg')
            """)
        func focal(_ name: String) throws -> Double? { try JPEGFile(Array(Data(contentsOf: URL(fileURLWithPath: scratch.path(name))))).focal35 }
        #expect(try focal("26.jpg") == 26)
        #expect(try focal("0.jpg") == nil)
        #expect(try focal("none.jpg") == nil)
        #expect(try JPEGFile.page(Array(Data(contentsOf: URL(fileURLWithPath: scratch.path("26.jpg"))))).focal35 == 26)
    }

    @Test(arguments: 1...8)
    func everyEXIFOrientationRendersUpright(_ orientation: Int) throws {
        let scratch = try ImageScratch()
        defer { scratch.remove() }
        // Store the upright picture turned the inverse way, tag it, and check Pillow agrees it is upright.
        try scratch.python("""
            o = \(orientation)
            upright = pattern(64, 40)
            inverse = {2: Image.Transpose.FLIP_LEFT_RIGHT, 3: Image.Transpose.ROTATE_180, 4: Image.Transpose.FLIP_TOP_BOTTOM,
                       5: Image.Transpose.TRANSPOSE, 6: Image.Transpose.ROTATE_90, 7: Image.Transpose.TRANSVERSE,
                       8: Image.Transpose.ROTATE_270}
            stored = upright.transpose(inverse[o]) if o in inverse else upright
            ex = Image.Exif(); ex[0x0112] = o
            stored.save('in.jpg', quality=100, subsampling=0, dpi=(72, 72), exif=ex.tobytes())
            assert diff(ImageOps.exif_transpose(Image.open('in.jpg')), upright) <= 8
            """)
        try scratch.convert("in.jpg", to: "out.pdf")
        #expect(try scratch.bytes("out.pdf").contains(bytes: scratch.bytes("in.jpg")), "the JPEG was re-encoded")
        try scratch.requireReadersAgree("out.pdf", pages: 1)
        #expect(try scratch.pageSizes("out.pdf")[0] == (64, 40))
        let difference = try scratch.python("print(diff(render('out.pdf'), ImageOps.exif_transpose(Image.open('in.jpg'))))")
        #expect((Int(difference) ?? 999) <= 3, "orientation \(orientation): render differs by \(difference)")
    }
}
