import Foundation
import Imaging
import TestSupport
import Testing
import TrapperCore

/// Phone photos (HEIC, AVIF, WebP) made by their own encoders go in as a JPEG does: upright, sized,
/// readable by every reader, looking like the picture the format's own decoder shows.
@Suite struct PhotoInputTests {
    /// Makes `name` from the upright `pattern(64, 40)` (also written as upright.png) stored turned
    /// by the inverse of `orientation` (so that shown by it, it is upright): HEIF with that
    /// irot/imir and the same EXIF orientation (an iPhone writes both; EXIF describes the coded
    /// image), WebP with it in its EXIF chunk.
    static func orientedPhoto(_ scratch: ImageScratch, _ name: String, orientation: Int) throws {
        try scratch.python("""
            o = \(orientation)
            inverse = {2: Image.Transpose.FLIP_LEFT_RIGHT, 3: Image.Transpose.ROTATE_180, 4: Image.Transpose.FLIP_TOP_BOTTOM,
                       5: Image.Transpose.TRANSPOSE, 6: Image.Transpose.ROTATE_90, 7: Image.Transpose.TRANSVERSE,
                       8: Image.Transpose.ROTATE_270}
            upright = pattern(64, 40)
            upright.save('upright.png')
            stored = upright.transpose(inverse[o]) if o in inverse else upright
            pam(stored, '\(name).pam')
            stored.save('\(name).png')
            open('\(name).exif', 'wb').write(exif(orientation=o))
            """)
        switch (name as NSString).pathExtension {
        case "webp":
            try PhotoMaker.tool("cwebp", ["-quiet", "-lossless", scratch.path("\(name).png"), "-o", scratch.path("\(name).plain")])
            try PhotoMaker.tool("webpmux", ["-set", "exif", scratch.path("\(name).exif"), scratch.path("\(name).plain"), "-o",
                                            scratch.path(name)])
        default:
            try PhotoMaker.heif((name.hasSuffix(".avif") ? ["--avif"] : []) + [
                "--quality", "95", "--chroma", "444", "--orientation", "\(orientation)", "--exif-orientation", "\(orientation)",
                scratch.path("\(name).pam"), scratch.path(name),
            ])
        }
    }

    /// All eight orientations of one format as the eight pages of one PDF: every reader opens it,
    /// and each page renders upright.
    @Test(arguments: ["heic", "avif", "webp"])
    func everyOrientationLandsUprightOnce(_ format: String) throws {
        let scratch = try ImageScratch()
        defer { scratch.remove() }
        var pages: [ImagePage] = []
        for orientation in 1...8 {
            try Self.orientedPhoto(scratch, "o\(orientation).\(format)", orientation: orientation)
            pages.append(try ImageFiles.open(path: scratch.path("o\(orientation).\(format)"), limits: ImageLimits(defaultDPI: 72),
                                             flate: ImageScratch.flate).page(0))
        }
        try Data(try ImagePage.newDocument(pages).serialized()).write(to: URL(fileURLWithPath: scratch.path("out.pdf")))
        try scratch.requireReadersAgree("out.pdf", pages: 8)
        // Upright: 64 x 40 at the 72 dpi these tests assume, whichever way the pixels were stored.
        let sizes = try scratch.pageSizes("out.pdf")
        #expect(sizes.count == 8 && sizes.allSatisfy { $0 == (64, 40) }, "\(format): \(sizes)")
        // HEVC and AV1 at quality 95 and a JPEG at 90 stray by about 4.5 on this noisy pattern; a
        // wrong turn or flip puts other quadrants' colours on top and differs by over 60.
        let differences = try scratch.python("""
            print(' '.join('%.2f' % meandiff(render('out.pdf', page), Image.open('upright.png')) for page in range(1, 9)))
            """).split(separator: " ").map { Double($0) ?? 999 }
        for (index, difference) in differences.enumerated() {
            #expect(difference < 8, "\(format) orientation \(index + 1): render differs by \(difference) on average")
        }
        #expect(differences.count == 8)
        for (index, page) in pages.enumerated() {
            if format == "webp" {
                // WebP's orientation is a matrix on the page, as for a JPEG; the pixels are stored as they came.
                #expect(page.orientation == ImageOrientation(rawValue: index + 1))
            } else {
                #expect(page.orientation == .up, "libheif turns HEIF pixels while decoding")
            }
        }
    }

    @Test(arguments: ["in.heic", "in.avif"])
    func theReaderTakesThePrimaryImageNotTheThumbnailOrAnotherImage(_ name: String) throws {
        let scratch = try ImageScratch()
        defer { scratch.remove() }
        try scratch.python("p = pattern(96, 64); pam(p, 'in.pam'); p.save('in.png')")
        // Both the thumbnail and the image written before the primary one are the picture inverted.
        try PhotoMaker.heif((name.hasSuffix(".avif") ? ["--avif"] : []) + ["--quality", "95", "--chroma", "444", "--thumbnail",
                             "--extra", scratch.path("in.pam"), scratch.path(name)])
        try scratch.convert(name, to: "out.pdf")
        try scratch.requireReadersAgree("out.pdf", pages: 1)
        #expect(try scratch.pageSizes("out.pdf")[0] == (96, 64))
        let difference = try scratch.python("print(meandiff(render('out.pdf'), Image.open('in.png')))")
        #expect((Double(difference) ?? 999) < 8, "\(name): render differs from the primary image by \(difference)")
    }

    @Test(arguments: ["in.heic", "in.avif", "in.webp"])
    func alphaBecomesASoftMask(_ name: String) throws {
        let scratch = try ImageScratch()
        defer { scratch.remove() }
        // A transparent band across the middle, a half-transparent one below it.
        try scratch.python("""
            p = pattern(64, 48).convert('RGBA')
            for y in range(16, 24):
                for x in range(64): p.putpixel((x, y), (0, 0, 0, 0))
            for y in range(32, 40):
                for x in range(64): r, g, b, _ = p.getpixel((x, y)); p.putpixel((x, y), (r, g, b, 128))
            pam(p, 'in.pam'); p.save('in.png')
            """)
        if name.hasSuffix(".webp") {
            try PhotoMaker.tool("cwebp", ["-quiet", "-q", "95", "-exact", "-alpha_q", "100", scratch.path("in.png"), "-o", scratch.path(name)])
        } else {
            try PhotoMaker.heif((name.hasSuffix(".avif") ? ["--avif"] : []) + ["--quality", "95", "--chroma", "444",
                                 scratch.path("in.pam"), scratch.path(name)])
        }
        let pages = try scratch.convert(name, to: "out.pdf")
        #expect(pages[0].softMask != nil, "\(name): no soft mask")
        try scratch.requireReadersAgree("out.pdf", pages: 1)
        let difference = try scratch.python("print(meandiff(render('out.pdf'), flatten(Image.open('in.png'))))")
        #expect((Double(difference) ?? 999) < 8, "\(name): render over white differs by \(difference)")
        // The transparent band shows the paper.
        let band = try scratch.python("print(min(render('out.pdf').getpixel((32, 20))))")
        #expect((Int(band) ?? 0) > 240, "\(name): the transparent band renders \(band)")
    }

    @Test(arguments: ["in.heic", "in.avif", "in.webp"])
    func anICCProfileIsKeptAsICCBased(_ name: String) throws {
        let scratch = try ImageScratch()
        defer { scratch.remove() }
        let profile = PhotoMaker.iccFolder + "/a98.icc"
        try scratch.python("p = pattern(64, 40); pam(p, 'in.pam'); p.save('in.png')")
        if name.hasSuffix(".webp") {
            try PhotoMaker.tool("cwebp", ["-quiet", "-q", "90", scratch.path("in.png"), "-o", scratch.path("plain.webp")])
            try PhotoMaker.tool("webpmux", ["-set", "icc", profile, scratch.path("plain.webp"), "-o", scratch.path(name)])
        } else {
            try PhotoMaker.heif((name.hasSuffix(".avif") ? ["--avif"] : []) + ["--icc", profile, scratch.path("in.pam"), scratch.path(name)])
        }
        try scratch.convert(name, to: "out.pdf")
        try scratch.requireReadersAgree("out.pdf", pages: 1)
        let kept = try scratch.python("""
            import pypdf
            image = pypdf.PdfReader('out.pdf').pages[0]['/Resources']['/XObject']['/Im0'].get_object()
            space = image['/ColorSpace']
            stream = space[1].get_object()
            print(space[0], stream['/N'], stream['/Alternate'], stream.get_data() == open('\(profile)', 'rb').read())
            """)
        #expect(kept == "/ICCBased 3 /DeviceRGB True", "\(name): \(kept)")
    }

    @Test(arguments: [("in.heic", 10), ("in.heic", 12), ("in.avif", 10), ("in.avif", 12)])
    func deepSamplesAreReducedToEightBitsAndSaidSo(_ name: String, _ bits: Int) throws {
        let scratch = try ImageScratch()
        defer { scratch.remove() }
        try scratch.python("p = pattern(64, 40); pam(p, 'in.pam'); p.save('in.png')")
        if name.hasSuffix(".avif") && bits == 10 {
            try PhotoMaker.tool("avifenc", ["-d", "10", "-y", "444", "--min", "0", "--max", "10", scratch.path("in.png"), scratch.path(name)])
        } else {
            try PhotoMaker.heif((name.hasSuffix(".avif") ? ["--avif"] : []) + ["--bits", "\(bits)", "--quality", "95",
                                 "--chroma", "444", scratch.path("in.pam"), scratch.path(name)])
        }
        let pages = try scratch.convert(name, to: "out.pdf")
        try scratch.requireReadersAgree("out.pdf", pages: 1)
        #expect(pages[0].image.dictionary["BitsPerComponent"] == 8)
        #expect(pages[0].notes.contains { $0.contains("\(bits)-bit samples reduced to 8 bits") }, "\(pages[0].notes)")
        let difference = try scratch.python("print(meandiff(render('out.pdf'), Image.open('in.png')))")
        #expect((Double(difference) ?? 999) < 8, "\(name) \(bits)-bit: render differs by \(difference)")
    }

    @Test func aStatedDensityGivesThePhysicalSizeAndTheDefaultOtherwise() throws {
        let scratch = try ImageScratch()
        defer { scratch.remove() }
        try scratch.python("""
            p = pattern(300, 150); pam(p, 'in.pam'); p.save('in.png')
            open('exif.bin', 'wb').write(exif(dpi=150))
            """)
        try PhotoMaker.heif(["--dpi", "150", scratch.path("in.pam"), scratch.path("dense.heic")])
        try PhotoMaker.heif([scratch.path("in.pam"), scratch.path("plain.heic")])
        try PhotoMaker.tool("cwebp", ["-quiet", scratch.path("in.png"), "-o", scratch.path("plain.webp")])
        try PhotoMaker.tool("webpmux", ["-set", "exif", scratch.path("exif.bin"), scratch.path("plain.webp"), "-o", scratch.path("dense.webp")])
        let limits = ImageLimits(defaultDPI: 300)
        for (name, size) in [("dense.heic", (144.0, 72.0)), ("plain.heic", (72, 36)), ("dense.webp", (144, 72)), ("plain.webp", (72, 36))] {
            try scratch.convert(name, to: "\(name).pdf", limits: limits)
            let sizes = try scratch.pageSizes("\(name).pdf")
            #expect(sizes.first.map { $0 == size } == true, "\(name): \(sizes)")
        }
    }

    @Test func storedAsJPEGAtTheQualityAskedForOrLosslessly() throws {
        let scratch = try ImageScratch()
        defer { scratch.remove() }
        try scratch.python("p = pattern(128, 96); pam(p, 'in.pam'); p.save('in.png')")
        try PhotoMaker.heif(["--quality", "95", scratch.path("in.pam"), scratch.path("in.heic")])
        try PhotoMaker.tool("cwebp", ["-quiet", "-lossless", scratch.path("in.png"), "-o", scratch.path("lossless.webp")])
        try PhotoMaker.tool("cwebp", ["-quiet", "-q", "80", scratch.path("in.png"), "-o", scratch.path("lossy.webp")])
        func page(_ name: String, _ photo: PhotoEncoding) throws -> ImagePage {
            try ImageFiles.open(path: scratch.path(name), limits: ImageLimits(defaultDPI: 72), photo: photo,
                                flate: ImageScratch.flate).page(0)
        }
        let standard = try page("in.heic", PhotoEncoding())
        let low = try page("in.heic", PhotoEncoding(jpegQuality: 40))
        let lossless = try page("in.heic", PhotoEncoding(lossless: true))
        #expect(standard.image.dictionary[.filter] == .name("DCTDecode"))
        #expect(standard.notes == ["HEIC stored as JPEG (quality 90)"])
        #expect(low.image.data.count < standard.image.data.count, "quality 40 is not smaller than 90")
        #expect(lossless.image.dictionary[.filter] == .name("FlateDecode"))
        #expect(lossless.notes == ["HEIC stored losslessly (Flate)"])
        // A lossless WebP stays lossless whatever the rule says; a lossy one becomes a JPEG.
        #expect(try page("lossless.webp", PhotoEncoding()).image.dictionary[.filter] == .name("FlateDecode"))
        #expect(try page("lossy.webp", PhotoEncoding()).image.dictionary[.filter] == .name("DCTDecode"))
        // Lossless means the decoder's pixels exactly: dwebp's and libheif's own (heif-convert).
        try PhotoMaker.tool("dwebp", ["-quiet", scratch.path("lossless.webp"), "-o", scratch.path("dwebp.png")])
        try PhotoMaker.tool("heif-convert", [scratch.path("in.heic"), scratch.path("heif-convert.png")])
        let revision = try ImagePage.newDocument([try page("lossless.webp", PhotoEncoding()), lossless])
        try Data(revision.serialized()).write(to: URL(fileURLWithPath: scratch.path("lossless.pdf")))
        try scratch.requireReadersAgree("lossless.pdf", pages: 2)
        let differences = try scratch.python("""
            print(diff(render('lossless.pdf', 1), Image.open('dwebp.png')), diff(render('lossless.pdf', 2), Image.open('heif-convert.png')))
            """)
        #expect(differences == "0 0", "lossless pages differ from the decoders' own output: \(differences)")
    }

    @Test(arguments: ["in.heic", "in.avif", "in.webp"])
    func thePixelLimitIsCheckedFromTheHeaderAndBadFilesAreRefusedWithAReason(_ name: String) throws {
        let scratch = try ImageScratch()
        defer { scratch.remove() }
        try scratch.python("p = pattern(200, 100); pam(p, 'in.pam'); p.save('in.png')")
        if name.hasSuffix(".webp") {
            try PhotoMaker.tool("cwebp", ["-quiet", scratch.path("in.png"), "-o", scratch.path(name)])
        } else {
            try PhotoMaker.heif((name.hasSuffix(".avif") ? ["--avif"] : []) + [scratch.path("in.pam"), scratch.path(name)])
        }
        let bytes = try scratch.bytes(name)
        #expect(throws: ImageInputError.tooManyPixels(width: 200, height: 100, limit: 10_000)) {
            try ImageFiles.open(bytes: bytes, limits: ImageLimits(maxPixels: 10_000), flate: ImageScratch.flate)
        }
        // Cut anywhere: refused (at open or when its page is made) with a reason naming the format, never a crash.
        let format = FileKind.sniff(bytes).imageFormat!
        for cut in [bytes.count / 4, bytes.count / 2, bytes.count - 10] {
            do {
                _ = try ImageFiles.open(bytes: Array(bytes[..<cut]), flate: ImageScratch.flate).page(0)
                Issue.record("\(name) cut at \(cut) of \(bytes.count) bytes was taken")
            } catch let error as ImageInputError {
                #expect("\(error)".contains(format.rawValue), "\(name) cut at \(cut): \(error)")
            }
        }
    }
}
