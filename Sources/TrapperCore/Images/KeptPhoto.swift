import Foundation

/// The photo a page was cut from by `find_page`, kept in the file so that the crop can be redone
/// (`reframe`): the photo's image XObject, how it stands upright, the corners the page was cut
/// along, and the steps that made the page from it. It lives in the page's /PieceInfo (§14.5, the
/// place for an application's private data about a page) under /PDFTrapper, so every reader
/// ignores it and a compaction keeps it:
///
///     /PieceInfo << /PDFTrapper << /LastModified (D:…) /Private << /Photo 12 0 R /Orientation 6
///         /Width 3024 /Height 4032 /DPI 72 /Corners [0.08 0.11 0.93 0.09 0.95 0.92 0.06 0.94] /Clean true /Compress /keep
///         /JPEGQuality 90 /OCR [(eng)] /Suggested [...] /Focal35 26 /Outline [...] >> >> >>
public struct KeptPhoto: Sendable, Equatable {
    /// The photo's image XObject (its pixels as stored, before `orientation`).
    public var image: PDFReference
    public var orientation: ImageOrientation
    /// The upright photo's size in pixels (what the corners are fractions of).
    public var width: Int
    public var height: Int
    /// The photo's resolution as it went in (its EXIF density, or the default).
    public var dpi: Int
    /// Where the page's corners lie in the upright photo, as fractions of its width and height
    /// (y down), clockwise from the top left; the whole photo when no sheet was found.
    public var corners: [SheetGeometry.Point]
    /// `clean = "auto"` was done after the cut.
    public var clean: Bool
    public var compress: Compression
    /// The quality a page cut from it is stored at when it is stored as JPEG.
    public var jpegQuality: Int
    /// Tesseract languages: a page cut again gets its text layer again.
    public var ocr: [String]
    /// When no sheet was found: the best candidate's corners (as `corners`), where a person cropping
    /// by hand starts.
    public var suggested: [SheetGeometry.Point]?
    /// The camera's focal length as a 35 mm equivalent (EXIF), for the proportions of a new cut.
    public var focal35: Double?
    /// Where the page's sides bowed or curled: the curves it was cut along (fractions as `corners`;
    /// per side, top, right, bottom, left, the points from its corner to the next, both included),
    /// so that it is cut along them again while its corners stay; nil when its sides were straight.
    public var outline: [[SheetGeometry.Point]]?

    public init(image: PDFReference, orientation: ImageOrientation, width: Int, height: Int, dpi: Int, corners: [SheetGeometry.Point], clean: Bool,
                compress: Compression, jpegQuality: Int, ocr: [String], suggested: [SheetGeometry.Point]? = nil, focal35: Double? = nil,
                outline: [[SheetGeometry.Point]]? = nil) {
        self.image = image
        self.orientation = orientation
        self.width = width
        self.height = height
        self.dpi = dpi
        self.corners = corners
        self.clean = clean
        self.compress = compress
        self.jpegQuality = jpegQuality
        self.ocr = ocr
        self.suggested = suggested
        self.focal35 = focal35
        self.outline = outline
    }

    /// The curves to cut along for a page cut at `corners`: the outline it was cut along first, while
    /// those are still its corners (to within a millionth, as stored); nil for other corners, which
    /// are cut with straight sides.
    public func outline(cutAt corners: [SheetGeometry.Point]) -> [[SheetGeometry.Point]]? {
        guard corners.count == self.corners.count,
              zip(corners, self.corners).allSatisfy({ abs($0.x - $1.x) <= 1e-6 && abs($0.y - $1.y) <= 1e-6 }) else { return nil }
        return outline
    }

    /// The corners of the whole photo: a page nothing was cut from.
    public static let wholePhoto = [SheetGeometry.Point(0, 0), SheetGeometry.Point(1, 0), SheetGeometry.Point(1, 1), SheetGeometry.Point(0, 1)]

    static let application: PDFName = "PDFTrapper"

    /// The page's /PieceInfo and /LastModified entries that hold it, dated `date`.
    public func pageEntries(date: Date) -> PDFDictionary {
        var data: PDFDictionary = [
            "Photo": .reference(image), "Orientation": .integer(orientation.rawValue),
            "Width": .integer(width), "Height": .integer(height), "DPI": .integer(dpi),
            "Corners": .array(corners.flatMap { [PDFObject.real(Self.rounded($0.x)), .real(Self.rounded($0.y))] }),
            "Clean": .bool(clean), "Compress": .name(PDFName(compress.rawValue)), "JPEGQuality": .integer(jpegQuality),
        ]
        if !ocr.isEmpty { data["OCR"] = .array(ocr.map { .string(PDFString($0)) }) }
        if let suggested { data["Suggested"] = .array(suggested.flatMap { [PDFObject.real(Self.rounded($0.x)), .real(Self.rounded($0.y))] }) }
        if let focal35 { data["Focal35"] = .real(focal35) }
        if let outline { data["Outline"] = .array(outline.flatMap { $0.flatMap { [PDFObject.real(Self.rounded($0.x)), .real(Self.rounded($0.y))] } }) }
        let modified = PDFObject.string(PDFString(RevisionRecord.pdfDate(date)))
        let piece: PDFDictionary = ["LastModified": modified, "Private": .dictionary(data)]
        return ["PieceInfo": .dictionary([Self.application: .dictionary(piece)]), "LastModified": modified]
    }

    /// Read back from a page's /PieceInfo, its values already resolved by `resolve`; nil when the
    /// page has none or it is not whole (a page made by something else, or damaged).
    public init?(pieceInfo: PDFObject?, resolve: (PDFObject) throws -> PDFObject) rethrows {
        guard let pieceInfo, let pieces = try resolve(pieceInfo).dictionaryValue,
              let ours = try pieces[Self.application].map(resolve)?.dictionaryValue,
              let data = try ours["Private"].map(resolve)?.dictionaryValue,
              let image = data["Photo"]?.referenceValue,
              let dpi = try data["DPI"].map(resolve)?.integerValue, dpi > 0,
              let width = try data["Width"].map(resolve)?.integerValue, width > 0,
              let height = try data["Height"].map(resolve)?.integerValue, height > 0,
              let numbers = try data["Corners"].map(resolve)?.arrayValue?.compactMap({ try resolve($0).numberValue }),
              numbers.count == 8, numbers.allSatisfy({ $0.isFinite && (0...1).contains($0) })
        else { return nil }
        let compress = try data["Compress"].map(resolve)?.nameValue.flatMap { Compression(rawValue: $0.string) } ?? .keep
        let languages = try data["OCR"].map(resolve)?.arrayValue?.compactMap { try resolve($0).stringValue?.description } ?? []
        let suggested = try data["Suggested"].map(resolve)?.arrayValue?.compactMap({ try resolve($0).numberValue })
        let focal35 = try data["Focal35"].map(resolve)?.numberValue
        // four sides of as many points each, two numbers a point; fractions, a little outside the
        // photo at most (the cut's margin)
        let outline = try data["Outline"].map(resolve)?.arrayValue?.compactMap({ try resolve($0).numberValue })
        self.init(image: image, orientation: ImageOrientation(tag: try data["Orientation"].map(resolve)?.integerValue),
                  width: width, height: height, dpi: dpi,
                  corners: stride(from: 0, to: 8, by: 2).map { SheetGeometry.Point(numbers[$0], numbers[$0 + 1]) },
                  clean: try data["Clean"].map(resolve)?.boolValue ?? false, compress: compress,
                  jpegQuality: min(100, max(1, try data["JPEGQuality"].map(resolve)?.integerValue ?? PhotoEncoding.defaultJPEGQuality)),
                  ocr: languages.filter(TableReader.isLanguageCode),
                  suggested: suggested.flatMap { numbers in
                      numbers.count == 8 && numbers.allSatisfy({ $0.isFinite && (0...1).contains($0) })
                          ? stride(from: 0, to: 8, by: 2).map { SheetGeometry.Point(numbers[$0], numbers[$0 + 1]) } : nil
                  },
                  focal35: focal35.flatMap { (8...1200).contains($0) ? $0 : nil },
                  outline: outline.flatMap { numbers in
                      guard numbers.count >= 16, numbers.count % 8 == 0, numbers.allSatisfy({ $0.isFinite && (-0.5...1.5).contains($0) })
                      else { return nil }
                      let perSide = numbers.count / 4
                      return (0..<4).map { side in
                          stride(from: side * perSide, to: (side + 1) * perSide, by: 2).map { SheetGeometry.Point(numbers[$0], numbers[$0 + 1]) }
                      }
                  })
    }

    /// Six decimals: a millionth of the photo's side, far below a pixel.
    static func rounded(_ value: Double) -> Double { (value * 1_000_000).rounded() / 1_000_000 }
}
