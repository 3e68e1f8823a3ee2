import Foundation
import Glibc
import Hashing
import Imaging
import PDFAccess
import TrapperCore

/// Opens the inputs of an ingest by their content, checking each before the target is touched:
/// an image's headers and limits, a PDF's structure and encryption. A file that fails becomes
/// `EngineError.badInput` with a one-line reason.
public struct InputFiles: Sendable {
    public var limits: ImageLimits
    /// Pages one input may have.
    public var maxPages: Int
    let flate = ZlibFlate()

    public init(limits: ImageLimits = ImageLimits(), maxPages: Int = LimitsSettings().maxPages) {
        self.limits = limits
        self.maxPages = maxPages
    }

    /// The config's `[limits]`.
    public init(_ settings: LimitsSettings) {
        self.init(limits: settings.images, maxPages: settings.maxPages)
    }

    /// Opens the input; an image input's pages go through `steps` (a PDF's pages go in as they are).
    /// An input whose every page is blank is refused, unless `blankIsEmpty` (a scanned sheet's
    /// blank back is just one page fewer).
    public func open(_ path: String, steps: PageSteps = PageSteps(), blankIsEmpty: Bool = false) throws(EngineError)
        -> any InputDocument
    {
        let document = try openUnchecked(path, steps: steps, blankIsEmpty: blankIsEmpty)
        guard document.pageCount <= maxPages else {
            throw .badInput(name: document.name, reason: "\(document.pageCount) pages, more than limits.max_pages = \(maxPages)")
        }
        return document
    }

    private func openUnchecked(_ path: String, steps: PageSteps, blankIsEmpty: Bool) throws(EngineError) -> any InputDocument {
        let name = (path as NSString).lastPathComponent
        do {
            var status = stat()
            guard lstat(path, &status) == 0 else { throw EngineError.unreadable(target: path, reason: "no such file") }
            guard status.st_mode & S_IFMT == S_IFREG else {
                throw EngineError.badInput(name: name, reason: "not a regular file (a link, folder, FIFO, socket or device)")
            }
            try limits.check(byteCount: Int(status.st_size))
            let head = try PDFFileSource(path: path).read(offset: 0, count: FileKind.sniffLength)
            switch FileKind.sniff(head) {
            case .pdf:
                return try PDFInput(path: path, name: name, separator: steps.separator, blankThreshold: steps.blankThreshold,
                                    activeContent: steps.activeContent)
            case .unknown:
                throw EngineError.badInput(name: name, reason: Self.describeUnknown(head, name: name))
            default:
                if steps.isEmpty {
                    return try ImageInput(path: path, name: name, limits: limits, photo: steps.photoEncoding, flate: flate)
                }
                return try ProcessedImageInput(path: path, name: name, steps: steps, blankIsEmpty: blankIsEmpty, limits: limits,
                                               flate: flate)
            }
        } catch let error as EngineError {
            throw error
        } catch {
            throw .badInput(name: name, reason: "\(error)")
        }
    }

    /// "not an image or PDF: starts with ..." in words a person can act on.
    /// A file with more than one name lives elsewhere too (`ln`, not `cp`): reading it would read
    /// a file outside the configured folders, so it is refused.
    public static func hardLinkReason(links: Int) -> String? {
        links > 1 ? "a hard link (one file with \(links) names, the others elsewhere); only files of their own are read" : nil
    }

    static func describeUnknown(_ head: [UInt8], name: String) -> String {
        if head.isEmpty { return "empty file (0 bytes)" }
        let text = String(decoding: head.prefix(16), as: UTF8.self).filter { $0.isASCII && !$0.isNewline }
        return "not a \(FileKind.readable) by its content (starts with \"\(text.prefix(12))\")"
    }
}

/// An image file: checked at open; its bytes are read again when its pages are written, so a batch
/// of inputs never sits in memory together. A JPEG is never held whole: walked in chunks at open and
/// again when written, its bytes copied into the target a megabyte at a time (`ImageFiles`). The
/// other formats are read whole when their pages are written; a photo a PDF cannot hold (HEIC,
/// AVIF, WebP) is decoded then, once, and its pixels held while its page is made.
final class ImageInput: InputDocument {
    let path: String
    let name: String
    let sha256: [UInt8]
    let pageCount: Int
    private let limits: ImageLimits
    private let photo: PhotoEncoding
    private let flate: any FlateCoding
    /// The document being written, held only while its pages are.
    private var current: (any ImageDocument)?
    /// What making each page written did to the file's pixels ("HEIC stored as JPEG (quality 90)"),
    /// by page: a revision begun again (another input of it failed) writes the pages again.
    private var notes: [Int: [String]] = [:]

    init(path: String, name: String, limits: ImageLimits, photo: PhotoEncoding, flate: any FlateCoding) throws {
        // Hashed a megabyte at a time on a thread of its own while the file is checked here.
        let digest = FileDigest.Pending(path: path)
        let document = try ImageFiles.open(path: path, limits: limits, photo: photo, flate: flate)
        self.path = path
        self.name = name
        self.sha256 = try digest.value()
        self.pageCount = document.pageCount
        self.limits = limits
        self.photo = photo
        self.flate = flate
    }

    var stepsNote: String? {
        let all = notes.sorted { $0.key < $1.key }.flatMap(\.value)
        return all.isEmpty ? nil : all.joined(separator: "; ")
    }

    func writePage<Sink: PDFObjectSink>(_ index: Int, as reference: PDFReference, into sink: inout Sink) throws
        -> PDFDictionary
    {
        let document = try current ?? ImageFiles.open(path: path, limits: limits, photo: photo, flate: flate)
        current = index + 1 < pageCount ? document : nil
        let page = try document.page(index)
        notes[index] = page.notes
        return try page.addObjects(to: &sink)
    }
}

/// An image file whose pages went through a rule's page steps when it was opened, so that blank
/// pages are known (and the input refused when every page is blank) before the target is touched.
/// The file is read whole and its pixels decoded to go through the steps (a JPEG too); the
/// processed pages stay in memory, each encoded (a deskewed A4 page at 300 dpi is about 1 MB).
final class ProcessedImageInput: InputDocument {
    let name: String
    let sha256: [UInt8]
    let pageCount: Int
    let stepsNote: String?
    let separators: [FoundSeparator]
    private let pages: [(page: ImagePage, rotate: Int, photo: PageProcessor.PhotoToKeep?)]

    init(path: String, name: String, steps: PageSteps, blankIsEmpty: Bool, limits: ImageLimits, flate: any FlateCoding) throws {
        let bytes = try ImageFiles.read(path, limits: limits)
        let document = try ImageFiles.open(bytes: bytes, limits: limits, photo: steps.photoEncoding, flate: flate)
        var kept: [(page: ImagePage, rotate: Int, photo: PageProcessor.PhotoToKeep?)] = []
        var notes: [String] = []
        var separators: [FoundSeparator] = []
        var blanks = 0
        for index in 0..<document.pageCount {
            let result = try PageProcessor.process(document.page(index), bytes: bytes, index: index, steps: steps, flate: flate)
            if let sheet = result.separator {
                separators.append(FoundSeparator(after: kept.count, barcode: sheet.barcode))
                continue
            }
            if result.blank {
                blanks += 1
                continue
            }
            kept.append((result.page, result.rotate, result.photo))
            if !result.notes.isEmpty {
                notes.append((document.pageCount > 1 ? "page \(index + 1) " : "") + result.notes.joined(separator: ", "))
            }
        }
        guard !kept.isEmpty || blankIsEmpty else {
            if !separators.isEmpty {
                throw EngineError.badInput(name: name, reason: "it holds only separator sheets, no page of a document")
            }
            throw EngineError.badInput(name: name, reason: document.pageCount == 1 ? "the page is blank (blank = \"drop\")"
                                       : "all \(document.pageCount) pages are blank (blank = \"drop\")")
        }
        if blanks > 0 { notes.insert("\(blanks) blank page\(blanks == 1 ? "" : "s") dropped", at: 0) }
        self.name = name
        self.sha256 = FileDigest.sha256(bytes)
        self.pageCount = kept.count
        self.pages = kept
        self.separators = separators
        self.stepsNote = notes.isEmpty ? nil : notes.joined(separator: "; ")
    }

    func writePage<Sink: PDFObjectSink>(_ index: Int, as reference: PDFReference, into sink: inout Sink) throws
        -> PDFDictionary
    {
        var dictionary = try pages[index].page.addObjects(to: &sink)
        if pages[index].rotate != 0 { dictionary["Rotate"] = .integer(pages[index].rotate) }
        if let photo = pages[index].photo {
            // The photo the page was cut from, so that `reframe` can cut it again: its own object,
            // or the page's image when that is the photo as it came.
            var kept = photo.kept
            if let picture = photo.picture {
                kept.image = try picture.addImage(to: &sink)
            } else if case .dictionary(let resources)? = dictionary["Resources"], case .dictionary(let images)? = resources["XObject"],
                      case .reference(let image)? = images["Im0"] {
                kept.image = image
            }
            for (key, value) in kept.pageEntries(date: Date()) { dictionary[key] = value }
        }
        return dictionary
    }
}

/// A PDF input: its pages imported through qpdf, objects shared between pages copied once. With
/// a rule's `separator`, each page is rendered through poppler to find the separator sheets, which
/// are left out.
final class PDFInput: InputDocument {
    let name: String
    /// Hashed while the pages are read (`FileDigest.Pending`): asking for it waits for the digest.
    private let digest: FileDigest.Pending
    let separators: [FoundSeparator]
    /// The input's pages that go in, 0-based.
    private let kept: [Int]
    private let importer: PDFImporter

    var pageCount: Int { kept.count }

    /// What was left out of the pages imported so far, for the log and the history.
    var stepsNote: String? {
        guard !importer.removed.isEmpty else { return nil }
        let count = importer.removed.count
        return "removed \(count) action\(count == 1 ? "" : "s"): " + importer.removed.joined(separator: ", ")
    }

    init(path: String, name: String, separator: Separator? = nil, blankThreshold: Double = PageSteps.defaultBlankThreshold,
         activeContent: ActiveContent = .strip) throws {
        importer = try PDFImporter(path: path, keepActiveContent: activeContent == .keep)
        guard importer.pageCount > 0 else { throw EngineError.badInput(name: name, reason: "PDF has no pages") }
        self.name = name
        digest = FileDigest.Pending(path: path)
        var kept: [Int] = []
        var separators: [FoundSeparator] = []
        if let separator {
            let renderer = try PDFPageRenderer(path: path)
            // Barcodes want the finer picture; bars and blank pages are judged at 150 ppi anyway.
            let dpi = separator.kind == .barcode ? 300 : 150
            for index in 0..<importer.pageCount {
                let page = try renderer.render(page: index, dpi: dpi)
                if let sheet = SeparatorReader.sheet(in: page.raster, dpi: dpi, separator: separator, blankThreshold: blankThreshold) {
                    separators.append(FoundSeparator(after: kept.count, barcode: sheet.barcode))
                } else {
                    kept.append(index)
                }
            }
            guard !kept.isEmpty else {
                throw EngineError.badInput(name: name, reason: "it holds only separator sheets, no page of a document")
            }
        } else {
            kept = Array(0..<importer.pageCount)
        }
        self.kept = kept
        self.separators = separators
    }

    /// Empty when the file could not be read to its end; `writeForm`, which every revision calls
    /// after an input's pages, then refuses the input with the reason.
    var sha256: [UInt8] { (try? digest.value()) ?? [] }

    func writePage<Sink: PDFObjectSink>(_ index: Int, as reference: PDFReference, into sink: inout Sink) throws
        -> PDFDictionary
    {
        try importer.copyPage(kept[index], into: &sink, as: reference)
    }

    func writeForm<Sink: PDFObjectSink>(into sink: inout Sink) throws -> PDFDictionary? {
        _ = try digest.value()
        return try importer.formDictionary(into: &sink)
    }
}
