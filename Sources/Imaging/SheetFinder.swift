import CSheetVision
import Foundation
import System
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

    /// The library, if it has every function called here and was built with this binary's interface:
    /// one from another build may take other arguments, and is refused rather than called.
    static let library: Result<trapper_vision, SharedLibrary.Failure> =
        SharedLibrary.open(libraryPath(), for: "find_page") { trapper_vision_load($0, $1) }.flatMap { vision in
            let built = vision.ptcv_interface()
            guard built == PTCV_INTERFACE else {
                return .failure(SharedLibrary.Failure(description: "find_page needs libPDFTrapperVision.so of interface \(PTCV_INTERFACE), "
                                                      + "and \(libraryPath()) is of interface \(built): install the binary and the library from one build"))
            }
            return .success(vision)
        }

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
        /// Where the sheet's sides bow or curl: the cut's four sides as curves (top, right, bottom,
        /// left, each from its corner to the next, `cut`'s corners at their ends); nil when straight.
        var outline: [[Point]]?
        /// The best candidate, taken or not.
        var best: Candidate?
        /// The candidate that would have been taken but for its proportions, no paper's; a larger
        /// one around it was taken instead.
        var passedOver: Candidate?
        /// The convincing candidate not taken because it may be printed on `framing`, a larger sheet
        /// around it whose edges show on three sides or more but which is not convincing itself; or,
        /// with no `framing`, because it is part of a larger sheet whose own outline is not found (a
        /// card's dark stripe, with or without the card on one side of it: the card's edges run on
        /// past the stripe's corners).
        var heldBack: Candidate?
        var framing: Candidate?
        /// The score a candidate needs.
        var accept: Double
        /// Quadrilaterals found and judged.
        var judged: Int
        /// The photo's border is paper all round (a flat scan, a page filling the frame): with no
        /// sheet taken, there is nothing to cut and nothing to say, unless a sheet was held back.
        var allSheet: Bool

        /// The corners a person cropping by hand starts from: the larger sheet around one held back
        /// (a looser crop loses nothing), else the best candidate; none (the whole photo) where the
        /// best is part of a sheet not found.
        var suggestion: [Point]? { heldBack != nil && framing == nil ? nil : (framing ?? best)?.corners }
    }

    /// Looks for the sheet in `pix` (upright, any depth). The library reads leptonica's own pixels
    /// and makes its 768-pixel copy itself; a grey or colour-mapped picture is made 32-bit first.
    /// `focal35` (EXIF, 35 mm equivalent) is for judging a candidate's proportions.
    static func search(_ pix: LeptonicaPix, focal35: Double? = nil) throws -> Search {
        let vision = try library.get()
        let lept = pix.lept
        var source = pix
        if pix.depth != 32 || lept.pixGetColormap(pix.pix) != nil {
            guard let colour = LeptonicaPix(lept, lept.pixConvertTo32(pix.pix)) else {
                throw ImageInputError.decodeFailed(.jpeg, "leptonica could not make a colour copy to find the sheet in")
            }
            source = colour
        }
        guard let words = lept.pixGetData(source.pix) else { throw ImageInputError.decodeFailed(.jpeg, "no pixel data") }
        let wordsPerLine = Int(lept.pixGetWpl(source.pix))
        var result = ptcv_result()
        var error = [CChar](repeating: 0, count: 256)
        // The library asks whether a candidate has a paper's proportions: SheetGeometry's arithmetic,
        // with the photo's focal length (NaN: none) passed through as the callback's context.
        var focal = focal35 ?? .nan
        let isPaper: ptcv_plausible = { corners, width, height, context in
            guard let corners else { return 1 }
            let focal35 = context.map { $0.assumingMemoryBound(to: Double.self).pointee }.flatMap { $0.isNaN ? nil : $0 }
            let points = (0..<4).map { Point(corners[2 * $0], corners[2 * $0 + 1]) }
            return SheetGeometry.isPaperShaped(points, width: Int(width), height: Int(height), focal35: focal35) ? 1 : 0
        }
        let status = withUnsafeMutablePointer(to: &focal) { context in
            vision.ptcv_find_sheet(UnsafeRawPointer(words).assumingMemoryBound(to: UInt8.self), Int32(source.width),
                                   Int32(source.height), Int32(wordsPerLine * 4), Int32(PTCV_LEPTONICA_32.rawValue),
                                   isPaper, context, &result, &error, error.count)
        }
        guard status == 0 else {
            throw ImageInputError.decodeFailed(.jpeg, "find_page: OpenCV failed: " + message(error))
        }
        func points(_ c: (Double, Double, Double, Double, Double, Double, Double, Double)) -> [Point] {
            [Point(c.0, c.1), Point(c.2, c.3), Point(c.4, c.5), Point(c.6, c.7)]
        }
        let candidates = withUnsafeBytes(of: result.candidates) { raw in
            Array(raw.bindMemory(to: ptcv_candidate.self).prefix(Int(result.count)))
        }.map { c in
            Candidate(corners: points(c.corners), score: c.score, support: [c.support.0, c.support.1, c.support.2, c.support.3],
                      area: c.area, source: withUnsafeBytes(of: c.source) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) })
        }
        func candidate(_ index: Int32) -> Candidate? { index >= 0 && Int(index) < candidates.count ? candidates[Int(index)] : nil }
        let chosen = candidate(result.chosen)
        let allSheet = borderIsPaper(words, wordsPerLine: wordsPerLine, width: source.width, height: source.height)
        let outline = chosen == nil || result.outlined == 0 ? nil : withUnsafeBytes(of: result.outline) { raw in
            let numbers = Array(raw.bindMemory(to: Double.self))
            let perSide = numbers.count / 4
            return (0..<4).map { side in stride(from: side * perSide, to: (side + 1) * perSide, by: 2).map { Point(numbers[$0], numbers[$0 + 1]) } }
        }
        return Search(chosen: chosen, cut: chosen == nil ? nil : points(result.cut), outline: outline, best: candidates.first,
                      passedOver: candidate(result.passed_over), heldBack: candidate(result.held_back), framing: candidate(result.framing),
                      accept: result.accept, judged: Int(result.judged), allSheet: allSheet)
    }

    /// Whether nine tenths of the photo's outer border (2 % of its short side deep) is as light as
    /// its lightest tenth and colourless: paper to every edge, as a flat scan is. Read from every
    /// fourth pixel of every fourth row of leptonica's 32-bit pixels (red << 24 | green << 16 | blue << 8).
    static func borderIsPaper(_ words: UnsafeMutablePointer<UInt32>, wordsPerLine: Int, width: Int, height: Int) -> Bool {
        let step = 4
        func sample(_ x: Int, _ y: Int) -> (grey: Int, colourless: Bool) {
            let word = words[y * wordsPerLine + x]
            let (r, g, b) = (Int(word >> 24), Int((word >> 16) & 0xFF), Int((word >> 8) & 0xFF))
            return ((r + g + b) / 3, max(r, g, b) - min(r, g, b) < 40)
        }
        var histogram = [Int](repeating: 0, count: 256)
        var count = 0
        for y in stride(from: 0, to: height, by: step) {
            for x in stride(from: 0, to: width, by: step) {
                histogram[sample(x, y).grey] += 1
                count += 1
            }
        }
        var light = 255, above = 0
        while light > 0, above + histogram[light] < count / 10 { above += histogram[light]; light -= 1 }
        let depth = max(1, min(width, height) / 50)
        var ring = 0, paper = 0
        for y in stride(from: 0, to: height, by: step) {
            for x in stride(from: 0, to: width, by: step) where x < depth || y < depth || x >= width - depth || y >= height - depth {
                let pixel = sample(x, y)
                ring += 1
                if pixel.grey >= light * 4 / 5, pixel.colourless { paper += 1 }
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
        if let held = search.heldBack, search.framing == nil {
            return String(format: "the best (%@, %.0f%% of the photo, evidence %.2f) is far darker along one side than beyond it, "
                              + "as a printed stripe is than paper, or has a dark band along one side and paper again beyond it, and an "
                              + "edge runs on straight past that side's corners: part of a larger sheet whose outline is not found; "
                              + "taking it would cut into that sheet",
                          held.source, held.area * 100, held.score)
        }
        if let held = search.heldBack, let framing = search.framing {
            let sides = zip(names, framing.support).map { String(format: "%@ %.0f%%", $0, $1 * 100) }.joined(separator: ", ")
            return String(format: "the best (%@, %.0f%% of the photo, evidence %.2f) may be printed on a larger sheet around it "
                              + "(%@, %.0f%% of the photo, evidence %.2f of the %.2f needed, its sides showing an edge along %@ of them): "
                              + "taking the smaller could cut into that sheet",
                          held.source, held.area * 100, held.score, framing.source, framing.area * 100, framing.score, search.accept, sides)
        }
        let weakest = best.support.indices.min { best.support[$0] < best.support[$1] } ?? 0
        return "no candidate is convincing: the best (\(best.source), " + String(format: "%.0f%% of the photo) scores %.2f of the %.2f needed, its ", best.area * 100, best.score, search.accept)
            + names[weakest] + String(format: " side showing an edge along %.0f%% of it", best.support[weakest] * 100)
    }
}
