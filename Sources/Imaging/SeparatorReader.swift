import CLeptonica
import CZbar
import System
import TrapperCore

/// A page found to be a separator sheet; for barcodes, the value after the prefix.
public struct SeparatorSheet: Sendable, Equatable {
    public var barcode: String?

    public init(barcode: String? = nil) {
        self.barcode = barcode
    }
}

/// Tells separator sheets from pages: a blank page, Kodak's patch T, or a QR code or Code 128 with
/// the rule's prefix (read by zbar). Looks at the page as it is shown (EXIF orientation applied).
public enum SeparatorReader {
    /// A page rendered from a PDF input (8-bit grey or RGB) at `dpi`. Nil, too, when leptonica
    /// (or for barcodes zbar) cannot be opened: the page is then kept as a page.
    public static func sheet(in raster: Raster, dpi: Int, separator: Separator, blankThreshold: Double) -> SeparatorSheet? {
        guard let lept = try? Leptonica.functions() else { return nil }
        _ = lept.setMsgSeverity(Int32(L_SEVERITY_ERROR))
        guard let pix = LeptonicaPix(lept, raster: raster), let ink = try? PageProcessor.inkImage(pix, dpi: dpi) else { return nil }
        return try? sheet(pix, dpi: dpi, ink: ink, separator: separator, blankThreshold: blankThreshold)
    }

    /// `ink` is the page's 150 ppi ink image (`PageProcessor.inkImage`). Throws when a barcode
    /// separator needs zbar and it cannot be opened.
    static func sheet(_ pix: LeptonicaPix, dpi: Int, ink: LeptonicaPix, separator: Separator,
                      blankThreshold: Double) throws(SharedLibrary.Failure) -> SeparatorSheet? {
        switch separator.kind {
        case .blank:
            return PageProcessor.inkFraction(ink) < blankThreshold ? SeparatorSheet() : nil
        case .patchT:
            return hasPatchT(ink) ? SeparatorSheet() : nil
        case .barcode:
            let values = try barcodes(pix, dpi: dpi)
            guard let value = values.first(where: { $0.hasPrefix(separator.prefix) }) else { return nil }
            return SeparatorSheet(barcode: String(value.dropFirst(separator.prefix.count)))
        }
    }

    // MARK: Patch T

    /// Patch T is four bars across the sheet, narrow-wide-narrow-wide (about 2 and 5 mm) with
    /// narrow spaces, read along the feed. Found when, at one place on the page, the pattern runs
    /// under at least 15 mm of the bars' length, read down the page (bars across it) or along it
    /// (a sheet fed sideways); either way round, so a sheet put in upside down counts too.
    static func hasPatchT(_ ink: LeptonicaPix) -> Bool {
        let bits = BitRows(ink)
        let millimetre = 150 / 25.4
        let step = max(1, Int(millimetre.rounded()))
        let needed = Int((15 * millimetre / Double(step)).rounded(.up))
        for across in [true, false] {
            let lines = across ? bits.width : bits.height
            var places: [Int: Int] = [:]
            for line in stride(from: 0, to: lines, by: step) {
                let runs = across ? bits.runs(column: line) : bits.runs(row: line)
                for start in patchStarts(runs, millimetre: millimetre) {
                    // Bars seen from neighbouring lines start within a few millimetres of each other.
                    let place = Int(Double(start) / (4 * millimetre))
                    places[place, default: 0] += 1
                    if (places[place] ?? 0) + (places[place - 1] ?? 0) >= needed { return true }
                }
            }
        }
        return false
    }

    /// Where, along one line of pixels, the patch's pattern starts. `runs` alternate white, black,
    /// white..., starting with white.
    static func patchStarts(_ runs: [Int], millimetre: Double) -> [Int] {
        func isNarrow(_ run: Int) -> Bool { (1.2 * millimetre...3.3 * millimetre).contains(Double(run)) }
        func isWide(_ run: Int) -> Bool { (3.8 * millimetre...7.5 * millimetre).contains(Double(run)) }
        let quiet = 2 * millimetre
        var starts: [Int] = []
        var offset = 0
        var index = 0
        while index + 8 < runs.count {
            defer {
                offset += runs[index] + runs[index + 1]
                index += 2
            }
            // runs[index] is white, runs[index + 1 ... index + 7] the four bars and three spaces.
            let bars = [runs[index + 1], runs[index + 3], runs[index + 5], runs[index + 7]]
            let spaces = [runs[index + 2], runs[index + 4], runs[index + 6]]
            guard Double(runs[index]) >= quiet, Double(runs[index + 8]) >= quiet, spaces.allSatisfy(isNarrow) else { continue }
            let forward = isNarrow(bars[0]) && isWide(bars[1]) && isNarrow(bars[2]) && isWide(bars[3])
            let backward = isWide(bars[0]) && isNarrow(bars[1]) && isWide(bars[2]) && isNarrow(bars[3])
            if forward || backward { starts.append(offset + runs[index]) }
        }
        return starts
    }

    /// A 1-bit image's pixels, read a row or a column at a time.
    struct BitRows {
        let width: Int
        let height: Int
        private let words: [UInt32]
        private let wordsPerLine: Int

        init(_ pix: LeptonicaPix) {
            width = pix.width
            height = pix.height
            wordsPerLine = Int(pix.lept.pixGetWpl(pix.pix))
            words = Array(UnsafeBufferPointer(start: pix.lept.pixGetData(pix.pix), count: wordsPerLine * height))
        }

        func isInk(_ x: Int, _ y: Int) -> Bool {
            words[y * wordsPerLine + x >> 5] >> (31 - UInt32(x & 31)) & 1 == 1
        }

        func runs(column x: Int) -> [Int] { runs(count: height) { isInk(x, $0) } }
        func runs(row y: Int) -> [Int] { runs(count: width) { isInk($0, y) } }

        /// Lengths of alternating runs, the first one white (0 long when the line starts with ink).
        private func runs(count: Int, _ ink: (Int) -> Bool) -> [Int] {
            var runs: [Int] = []
            var current = false
            var length = 0
            for position in 0..<count {
                if ink(position) == current {
                    length += 1
                } else {
                    runs.append(length)
                    current.toggle()
                    length = 1
                }
            }
            runs.append(length)
            return runs
        }
    }

    // MARK: Barcodes

    /// The values of the QR codes and Code 128 barcodes on the page, as zbar reads them in an 8-bit
    /// grey copy of at most 300 ppi.
    static func barcodes(_ pix: LeptonicaPix, dpi: Int) throws(SharedLibrary.Failure) -> [String] {
        let zbar = try ZBar.functions()
        let lept = pix.lept
        guard var gray = LeptonicaPix(lept, lept.pixConvertTo8(pix.pix, 0)) else { return [] }
        if dpi > 300, let smaller = LeptonicaPix(lept, lept.pixScale(gray.pix, Float(300) / Float(dpi), Float(300) / Float(dpi))) {
            gray = smaller
        }
        let (width, height) = (gray.width, gray.height)
        let wordsPerLine = Int(lept.pixGetWpl(gray.pix))
        guard width > 0, height > 0, let data = lept.pixGetData(gray.pix) else { return [] }
        // zbar wants packed rows of bytes; leptonica keeps 8-bit pixels four to a native-endian word.
        var samples = [UInt8](repeating: 0, count: width * height)
        for y in 0..<height {
            let row = data + y * wordsPerLine
            for x in 0..<width {
                samples[y * width + x] = UInt8(truncatingIfNeeded: row[x >> 2] >> (24 - 8 * UInt32(x & 3)))
            }
        }
        guard let scanner = zbar.zbar_image_scanner_create() else { return [] }
        defer { zbar.zbar_image_scanner_destroy(scanner) }
        _ = zbar.zbar_image_scanner_set_config(scanner, ZBAR_NONE, ZBAR_CFG_ENABLE, 0)
        _ = zbar.zbar_image_scanner_set_config(scanner, ZBAR_QRCODE, ZBAR_CFG_ENABLE, 1)
        _ = zbar.zbar_image_scanner_set_config(scanner, ZBAR_CODE128, ZBAR_CFG_ENABLE, 1)
        guard let image = zbar.zbar_image_create() else { return [] }
        defer { zbar.zbar_image_destroy(image) }
        // "Y800": 8-bit grey, as zbar's fourcc.
        zbar.zbar_image_set_format(image, UInt(0x3030_3859))
        zbar.zbar_image_set_size(image, UInt32(width), UInt32(height))
        return samples.withUnsafeBytes { buffer -> [String] in
            zbar.zbar_image_set_data(image, buffer.baseAddress, UInt(buffer.count), nil)
            defer { zbar.zbar_image_set_data(image, nil, 0, nil) }
            guard zbar.zbar_scan_image(scanner, image) > 0 else { return [] }
            var values: [String] = []
            var symbol = zbar.zbar_image_first_symbol(image)
            while let current = symbol {
                if let text = zbar.zbar_symbol_get_data(current) {
                    let length = Int(zbar.zbar_symbol_get_data_length(current))
                    values.append(String(decoding: UnsafeRawBufferPointer(start: text, count: length), as: UTF8.self))
                }
                symbol = zbar.zbar_symbol_next(current)
            }
            return values
        }
    }
}
