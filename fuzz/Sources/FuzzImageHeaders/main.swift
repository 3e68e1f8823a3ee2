import CFuzzerDriver
import TrapperCore

/// The image parsers on arbitrary bytes: `FileKind.sniff`, the inbox's completeness check, then the JPEG, PNG, TIFF and PNM
/// readers (every one, whatever the sniff says, so each sees every input), each of which may
/// throw `ImageInputError`, never crash or allocate past `limits`. What parses becomes a page and a
/// one-page PDF, as ingesting it would: PNG samples unfiltered, CCITT strips cut out, sizes and
/// resolutions written as PDF numbers. Last, the bytes as a sheet's corners for `SheetGeometry`.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzImageHeaders(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
    _ = FileKind.sniff(bytes)
    // The inbox's completeness check, for every kind whatever the sniff says.
    let source = PDFMemorySource(bytes)
    for kind in FileKind.allCases { _ = Completeness.check(source, kind: kind) }
    let limits = Fixtures.limits
    var pages: [ImagePage] = []
    if let page = try? JPEGFile.page(bytes, limits: limits) { pages.append(page) }
    if let page = try? PNGFile.page(bytes, limits: limits, flate: StoredFlate()) { pages.append(page) }
    if let pnm = try? PNMFile(bytes, limits: limits), let page = try? PNMFile.page(pnm, limits: limits, flate: StoredFlate()) {
        pages.append(page)
    }
    if let tiff = try? TIFFFile(bytes, limits: limits) {
        for page in tiff.pages.prefix(4) {
            if let image = TIFFFile.ccittImage(page, in: bytes) {
                pages.append(TIFFFile.imagePage(image, for: page, limits: limits))
            }
        }
    }
    for page in pages { _ = try? ImagePage.newDocument([page]).serialized() }
    // The bytes as four corners in a picture for find_page's geometry (the finder itself is C++ in
    // Sources/SheetVision): proportions through the perspective, a focal length from EXIF or not,
    // snapping; degenerate, crossed or far-away corners must never trap.
    if bytes.count >= 19 {
        let width = 1 + Int(bytes[0]) * 40, height = 1 + Int(bytes[1]) * 40
        let corners = (0..<4).map { i in
            SheetGeometry.Point(Double(Int(bytes[2 + 4 * i]) << 8 | Int(bytes[3 + 4 * i])) - 8000,
                                Double(Int(bytes[4 + 4 * i]) << 8 | Int(bytes[5 + 4 * i])) - 8000)
        }
        let focal35: Double? = bytes[18] == 0 ? nil : Double(bytes[18])
        _ = SheetGeometry.sheet(corners: corners, width: width, height: height, focal35: focal35)
        if let ordered = SheetGeometry.quadrilateral(corners) {
            _ = SheetGeometry.proportions(ordered, width: width, height: height, focal35: focal35)
        }
    }
    return 0
}

enum Fixtures {
    /// Small enough that no input makes the fuzzer wait on a huge allocation; overflow checks are
    /// reached all the same, since they come before the pixel count is compared.
    static let limits = ImageLimits(maxPixels: 1 << 22, maxBytes: 1 << 20)
}

/// TrapperCore has no zlib: "inflating" takes the data as stored (so PNG unfiltering and
/// de-interlacing see fuzzed rows directly), "deflating" stores it.
struct StoredFlate: FlateCoding {
    struct TooLong: Error {}

    func deflate(_ data: [UInt8]) throws -> [UInt8] { data }

    func inflate(_ data: [UInt8], limit: Int) throws -> [UInt8] {
        guard data.count <= limit else { throw TooLong() }
        return data
    }
}

fuzz_run_driver(CommandLine.argc, CommandLine.unsafeArgv, fuzzImageHeaders)
