import CSheetVision
import Foundation
import TrapperCore

/// Where the sheet lies in a phone photo (issue 42), looked for on a colour copy 768 pixels long by
/// the package's OpenCV half (Sources/SheetVision, opened on first use): candidate quadrilaterals
/// from edges at three scales, from line segments grouped into four sides and from the bright,
/// colourless region; each judged by the colour step across each of its sides, where an edge runs
/// along it; the best-supported taken when its evidence is convincing, a larger one around it when
/// that is the sheet's true edge. Here: the photo in, the corners out in the photo's own pixels, and
/// when nothing is taken, the best candidate and why it fell short.
enum SheetFinder {
    typealias Point = SheetGeometry.Point

    /// Long side of the colour copy searched (the finder's constants are tuned at this size).
    static let searchSize = 768

    static let library: Result<trapper_vision, SharedLibrary.Failure> =
        SharedLibrary.open(libraryPath(), for: "find_page") { trapper_vision_load($0, $1) }

    /// libPDFTrapperVision.so beside the binary (a build in .build/, the test bundle there too), or
    /// in ../lib/pdftrapper where `make install` puts it; its bare name otherwise, for the error.
    static func libraryPath() -> String {
        let name = "libPDFTrapperVision.so"
        var buffer = [CChar](repeating: 0, count: 4096)
        let length = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard length > 0 else { return name }
        let folder = (String(decoding: buffer[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self) as NSString).deletingLastPathComponent
        for path in [folder + "/" + name, folder + "/../lib/pdftrapper/" + name]
        where FileManager.default.fileExists(atPath: path) {
            return (path as NSString).standardizingPath
        }
        return name
    }

    /// A candidate sheet: its corners in the photo's pixels, clockwise from the top left, and the
    /// evidence for it.
    struct Candidate {
        var corners: [Point]
        /// 0-1: half the mean, half the least of the four sides' support.
        var score: Double
        /// Per side (top, right, bottom, left as the corners run), the share of it showing the sheet's edge.
        var support: [Double]
        /// Its share of the photo.
        var area: Double
        /// "edges/2+refined", "lines", "region/paper".
        var source: String
    }

    struct Search {
        /// The sheet taken, if any candidate was convincing.
        var chosen: Candidate?
        /// The cut: the chosen corners with each side moved out a little (a sliver of table, never a
        /// sliver less sheet).
        var cut: [Point]?
        /// The best candidate, taken or not.
        var best: Candidate?
        /// The score a candidate needs.
        var accept: Double
        /// Quadrilaterals found and judged.
        var judged: Int
        /// The photo's border is paper all round (a flat scan, a page filling the frame): with no
        /// sheet taken, there is nothing to cut and nothing to say.
        var allSheet: Bool
    }

    /// Looks for the sheet in `pix` (upright, any depth).
    static func search(_ pix: LeptonicaPix) throws -> Search {
        let vision = try library.get()
        let lept = pix.lept
        let scale = min(1, Float(searchSize) / Float(max(pix.width, pix.height)))
        var copy = pix
        if scale < 1, let smaller = LeptonicaPix(lept, lept.pixScale(pix.pix, scale, scale)) { copy = smaller }
        if copy.depth != 32, let colour = LeptonicaPix(lept, lept.pixConvertTo32(copy.pix)) { copy = colour }
        let rgb = try copy.pdfSamples().samples
        let (width, height) = (copy.width, copy.height)
        var result = ptcv_result()
        var error = [CChar](repeating: 0, count: 256)
        let status = rgb.withUnsafeBufferPointer { vision.ptcv_find_sheet($0.baseAddress, Int32(width), Int32(height), Int32(width * 3), &result, &error, error.count) }
        guard status == 0 else {
            throw ImageInputError.decodeFailed(.jpeg, "find_page: OpenCV failed: " + message(error))
        }
        // The copy's pixel centres back to the photo's.
        let (fx, fy) = (Double(pix.width) / Double(width), Double(pix.height) / Double(height))
        func points(_ c: (Double, Double, Double, Double, Double, Double, Double, Double)) -> [Point] {
            [(c.0, c.1), (c.2, c.3), (c.4, c.5), (c.6, c.7)].map { Point(($0.0 + 0.5) * fx - 0.5, ($0.1 + 0.5) * fy - 0.5) }
        }
        let candidates = withUnsafeBytes(of: result.candidates) { raw in
            Array(raw.bindMemory(to: ptcv_candidate.self).prefix(Int(result.count)))
        }.map { c in
            Candidate(corners: points(c.corners), score: c.score, support: [c.support.0, c.support.1, c.support.2, c.support.3],
                      area: c.area, source: withUnsafeBytes(of: c.source) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) })
        }
        let chosen = result.chosen >= 0 && Int(result.chosen) < candidates.count ? candidates[Int(result.chosen)] : nil
        return Search(chosen: chosen, cut: chosen == nil ? nil : points(result.cut), best: candidates.first,
                      accept: result.accept, judged: Int(result.judged), allSheet: borderIsPaper(rgb, width: width, height: height))
    }

    /// Whether nine tenths of the photo's outer border (2 % of its short side deep) is as light as
    /// its lightest tenth and colourless: paper to every edge, as a flat scan is.
    static func borderIsPaper(_ rgb: [UInt8], width: Int, height: Int) -> Bool {
        func grey(_ i: Int) -> Int { (Int(rgb[3 * i]) + Int(rgb[3 * i + 1]) + Int(rgb[3 * i + 2])) / 3 }
        func colourless(_ i: Int) -> Bool {
            let (r, g, b) = (Int(rgb[3 * i]), Int(rgb[3 * i + 1]), Int(rgb[3 * i + 2]))
            return max(r, g, b) - min(r, g, b) < 40
        }
        var histogram = [Int](repeating: 0, count: 256)
        for i in 0..<(width * height) { histogram[grey(i)] += 1 }
        var light = 255, above = 0
        while light > 0, above + histogram[light] < width * height / 10 { above += histogram[light]; light -= 1 }
        let depth = max(1, min(width, height) / 50)
        var ring = 0, paper = 0
        for y in 0..<height {
            for x in 0..<width where x < depth || y < depth || x >= width - depth || y >= height - depth {
                let i = y * width + x
                ring += 1
                if grey(i) >= light * 4 / 5, colourless(i) { paper += 1 }
            }
        }
        return ring > 0 && paper * 10 >= ring * 9
    }

    /// The NUL-terminated line the library wrote into `buffer`.
    static func message(_ buffer: [CChar]) -> String {
        String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Why no sheet was taken, with the numbers: "no candidate is convincing: the best (lines, 41 %
    /// of the photo) scores 0.52 of the 0.70 needed, its left side showing an edge along 12 % of it".
    static func reason(_ search: Search) -> String {
        guard let best = search.best else {
            return search.judged == 0 ? "no four-sided outline of a sheet's size in the photo"
                : "none of the \(search.judged) four-sided outlines has the shape of a sheet in perspective"
        }
        let names = ["top", "right", "bottom", "left"]
        let weakest = best.support.indices.min { best.support[$0] < best.support[$1] } ?? 0
        return "no candidate is convincing: the best (\(best.source), " + String(format: "%.0f%% of the photo) scores %.2f of the %.2f needed, its ", best.area * 100, best.score, search.accept)
            + names[weakest] + String(format: " side showing an edge along %.0f%% of it", best.support[weakest] * 100)
    }
}
