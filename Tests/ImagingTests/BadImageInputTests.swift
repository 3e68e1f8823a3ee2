import Foundation
import Glibc
import Imaging
import Testing
import TrapperCore

/// What a person drops in the inbox by mistake: each is refused with a typed error whose one-line
/// text names the problem, from the headers, without decoding or allocating the image.
@Suite struct BadImageInputTests {
    /// Opens `name` and builds every page; returns the error's text, or nil if it was accepted.
    func refusal(_ scratch: ImageScratch, _ name: String, limits: ImageLimits = ImageLimits()) -> ImageInputError? {
        do {
            let document = try ImageFiles.open(path: scratch.path(name), limits: limits, flate: ImageScratch.flate)
            for index in 0..<document.pageCount { _ = try document.page(index) }
            return nil
        } catch let error as ImageInputError {
            return error
        } catch {
            Issue.record("untyped error \(error)")
            return nil
        }
    }

    @Test func eachBadFileGetsItsOneLineReason() throws {
        let scratch = try ImageScratch()
        defer { scratch.remove() }
        try scratch.python("""
            pattern(64, 48).save('good.jpg', quality=90)
            pattern(64, 48).save('good.png')
            pattern(64, 48).save('good.tif', compression='tiff_lzw')
            jpg, png, tif = (open(n, 'rb').read() for n in ('good.jpg', 'good.png', 'good.tif'))
            open('empty.jpg', 'wb').close()
            open('cut.jpg', 'wb').write(jpg[:len(jpg) // 2])
            open('cut-header.jpg', 'wb').write(jpg[:60])
            open('no-iend.png', 'wb').write(png[:-12])
            open('cut.png', 'wb').write(png[:len(png) - 40])
            bad = bytearray(png); bad[len(png) - 30] ^= 0xFF; open('bad-crc.png', 'wb').write(bad)
            open('png-named.jpg', 'wb').write(png)
            open('text.png', 'w').write('hello, I am not a picture\\n')
            open('cut.tif', 'wb').write(tif[:200] if tif[:2] == b'II' and int.from_bytes(tif[4:8], 'little') < 200 else tif[:-100])
            """)
        let expectations: [(String, String?)] = [
            ("empty.jpg", "empty file: zero bytes"),
            ("cut.jpg", "truncated JPEG: no end-of-image marker"),
            ("cut-header.jpg", "truncated JPEG: cut off inside its headers"),
            ("no-iend.png", "truncated PNG: no IEND chunk"),
            ("cut.png", "truncated PNG: cut off inside the IDAT chunk"),
            ("bad-crc.png", "corrupt PNG: bad CRC in the IDAT chunk"),
            ("png-named.jpg", nil),  // a PNG by content: read as one
            ("text.png", "not an image PDFTrapper reads (JPEG, PNG, TIFF, PNM, HEIC, AVIF or WebP), whatever its name says"),
            ("missing.png", "cannot read file: No such file or directory"),
        ]
        for (name, text) in expectations {
            let error = refusal(scratch, name)
            #expect(error?.description == text, "\(name): \(String(describing: error))")
            #expect(error.map { !$0.description.contains("\n") } ?? true)
        }
        let cut = refusal(scratch, "cut.tif")
        #expect(cut?.description.hasPrefix("truncated TIFF: ") == true, "cut.tif: \(String(describing: cut))")
        let tooBig = refusal(scratch, "good.png", limits: ImageLimits(maxBytes: 100))
        #expect(tooBig?.description.hasPrefix("file is ") == true && tooBig?.description.hasSuffix("over the limit of 100 bytes (limits.max_input_size)") == true,
            "\(String(describing: tooBig))")
    }

    @Test func pixelBombsAreRefusedFromTheirHeaders() throws {
        let scratch = try ImageScratch()
        defer { scratch.remove() }
        // Valid headers claiming 100,000 x 100,000 pixels (JPEG's limit: 65,535), with almost no data.
        try scratch.python("""
            import struct, zlib
            def chunk(t, d): return struct.pack('>I', len(d)) + t + d + struct.pack('>I', zlib.crc32(t + d) & 0xffffffff)
            open('bomb.png', 'wb').write(b'\\x89PNG\\r\\n\\x1a\\n' + chunk(b'IHDR', struct.pack('>IIBBBBB', 100000, 100000, 8, 2, 0, 0, 0))
                + chunk(b'IDAT', zlib.compress(b'\\0' * 1000)) + chunk(b'IEND', b''))
            pattern(16, 16).save('small.jpg')
            jpg = bytearray(open('small.jpg', 'rb').read())
            i = jpg.index(b'\\xff\\xc0'); jpg[i + 5:i + 9] = struct.pack('>HH', 65535, 65535)
            open('bomb.jpg', 'wb').write(jpg)
            open('bomb.pnm', 'wb').write(b'P5 100000 100000 255\\n' + b'\\0' * 100)
            ifd = [(256, 4, 100000), (257, 4, 100000), (258, 3, 8), (259, 3, 1), (262, 3, 1), (273, 4, 8), (277, 3, 1), (279, 4, 1)]
            tif = b'II*\\0' + struct.pack('<I', 10) + b'\\0\\0' + struct.pack('<H', len(ifd))
            tif += b''.join(struct.pack('<HHII', t, k, 1, v) if k == 4 else struct.pack('<HHIHH', t, k, 1, v, 0) for t, k, v in ifd)
            open('bomb.tif', 'wb').write(tif + b'\\0\\0\\0\\0')
            """)
        var usage = rusage()
        getrusage(Int32(RUSAGE_SELF.rawValue), &usage)
        let before = usage.ru_maxrss
        for (name, size) in [("bomb.png", "100000 x 100000"), ("bomb.pnm", "100000 x 100000"), ("bomb.tif", "100000 x 100000"),
            ("bomb.jpg", "65535 x 65535")]
        {
            let error = refusal(scratch, name)
            #expect(error?.description == "image is \(size) pixels, over the limit of 200 megapixels (limits.max_pixels)", "\(name): \(String(describing: error))")
        }
        getrusage(Int32(RUSAGE_SELF.rawValue), &usage)
        #expect(usage.ru_maxrss - before < 100_000, "peak memory grew by \(usage.ru_maxrss - before) KiB")
    }
}
