import Foundation
import Imaging
import Testing
import TrapperCore

/// Netpbm files, as SANE's scanimage writes them: bitmaps become CCITT G4, the rest Flate; all
/// render as the source, sized by the default resolution (PNM states none).
@Suite struct PNMInputTests {
    @Test(arguments: [
        ("P4 bitmap", "Image.frombytes('1', (203, 67), bytes((i * 37 + i // 29) % 256 for i in range(26 * 67))).save('in.pnm')", true),
        ("P1 plain bitmap", """
            rows = [' '.join('1' if (x * y) % 5 == 0 else '0' for x in range(21)) for y in range(9)]
            open('in.pnm', 'w').write('P1\\n# plain\\n21 9\\n' + '\\n'.join(rows) + '\\n')
            """, true),
        ("P5 grey", "pattern(50, 30).convert('L').save('in.pnm')", false),
        ("P6 colour", "pattern(50, 30).save('in.pnm')", false),
        ("P6 16-bit", """
            import struct
            data = b''.join(struct.pack('>HHH', x * 1300, y * 2100, 65535 - x * 1000) for y in range(30) for x in range(50))
            open('in.pnm', 'wb').write(b'P6 50 30 65535\\n' + data)
            ref = Image.new('RGB', (50, 30)); ref.putdata([((x * 1300 * 255 + 32767) // 65535, (y * 2100 * 255 + 32767) // 65535,
                ((65535 - x * 1000) * 255 + 32767) // 65535) for y in range(30) for x in range(50)]); ref.save('ref.png')
            """, false),
        ("P2 plain maxval 15", """
            open('in.pnm', 'w').write('P2 7 5 15\\n' + '\\n'.join(' '.join(str((x + y * 3) % 16) for x in range(7)) for y in range(5)))
            ref = Image.new('L', (7, 5)); ref.putdata([((x + y * 3) % 16) * 17 for y in range(5) for x in range(7)]); ref.save('ref.png')
            """, false),
        ("P3 plain colour", """
            open('in.pnm', 'w').write('P3\\n4 3\\n255\\n' + ' '.join(f'{x * 60} {y * 100} 7' for y in range(3) for x in range(4)))
            """, false),
    ])
    func rendersAsTheSource(_ kind: String, _ make: String, _ bitmap: Bool) throws {
        let scratch = try ImageScratch()
        defer { scratch.remove() }
        try scratch.python(make)
        let pages = try scratch.convert("in.pnm", to: "out.pdf")
        let filter = pages[0].image.dictionary[.filter]
        #expect(filter == .name(bitmap ? "CCITTFaxDecode" : "FlateDecode"), "\(kind): \(String(describing: filter))")
        try scratch.requireReadersAgree("out.pdf", pages: 1)
        let difference = try scratch.python(
            "print(diff(render('out.pdf'), Image.open('ref.png') if os.path.exists('ref.png') else Image.open('in.pnm')))")
        // Poppler rounds 16-bit samples to 8 bits its own way: one level either side.
        #expect((Int(difference) ?? 999) <= (kind.contains("16-bit") ? 1 : 0), "\(kind): render differs from the source by \(difference)")
    }

    @Test func pageSizeFollowsTheDefaultResolution() throws {
        let scratch = try ImageScratch()
        defer { scratch.remove() }
        try scratch.python("Image.new('1', (2550, 3300), 1).save('in.pnm')")  // a letter page at 300 dpi
        let pages = try scratch.convert("in.pnm", to: "out.pdf", limits: ImageLimits(defaultDPI: 300))
        #expect(pages[0].image.data.count < 2_000, "a blank G4 page is tiny, got \(pages[0].image.data.count) bytes")
        #expect(try scratch.pageSizes("out.pdf")[0] == (612, 792))
        try scratch.requireReadersAgree("out.pdf", pages: 1)
    }
}
