import TrapperCore

/// One input of an ingest, opened and checked before the target is touched: an image file (its
/// pages) or a PDF (its pages, imported). Pages are written one at a time, so only one page's data is
/// in memory at once.
public protocol InputDocument {
    /// The name recorded in the history (the file name as it arrived).
    var name: String { get }
    var sha256: [UInt8] { get }
    var pageCount: Int { get }
    /// Writes what page `index` needs into `sink` and returns its dictionary (without /Parent), to be
    /// written at `reference` (the page's own number, which its annotations may point back to).
    func writePage<Sink: PDFObjectSink>(_ index: Int, as reference: PDFReference, into sink: inout Sink) throws
        -> PDFDictionary
    /// After its pages: the interactive form their fields belong to, written into `sink`, if any.
    func writeForm<Sink: PDFObjectSink>(into sink: inout Sink) throws -> PDFDictionary?
    /// What the page steps did, one line: "2 blank pages dropped; page 1 deskewed by 1.80°"; nil when nothing.
    var stepsNote: String? { get }
    /// The files the history names for it (one, but two for a collated pair).
    var recordedInputs: [RevisionRecord.Input] { get }
    /// The separator sheets the page steps found and took out, by the pages that come before each.
    var separators: [FoundSeparator] { get }
}

extension InputDocument {
    public func writeForm<Sink: PDFObjectSink>(into sink: inout Sink) throws -> PDFDictionary? { nil }
    public var stepsNote: String? { nil }
    public var recordedInputs: [RevisionRecord.Input] { [.init(name: name, sha256: sha256, pages: pageCount)] }
    public var separators: [FoundSeparator] { [] }
}

/// A front pass and a back pass of the same sheets, interleaved: front 1, back 1, front 2, ...
/// The back pass is read last page first (the stack was turned over to scan it).
public struct InterleavedInput: InputDocument {
    public let front: any InputDocument
    public let back: any InputDocument

    public init(front: any InputDocument, back: any InputDocument) {
        precondition(front.pageCount == back.pageCount, "a collated pair has as many backs as fronts")
        self.front = front
        self.back = back
    }

    public var name: String { "\(front.name) + \(back.name)" }
    public var sha256: [UInt8] { front.sha256 }
    public var pageCount: Int { front.pageCount * 2 }
    public var stepsNote: String? {
        let notes = [front, back].compactMap { input in input.stepsNote.map { "\(input.name): \($0)" } }
        return (["double-sided: \(front.name) and \(back.name) interleaved"] + notes).joined(separator: "; ")
    }
    public var recordedInputs: [RevisionRecord.Input] { front.recordedInputs + back.recordedInputs }

    public func writePage<Sink: PDFObjectSink>(_ index: Int, as reference: PDFReference, into sink: inout Sink) throws
        -> PDFDictionary
    {
        let sheet = index / 2
        if index % 2 == 0 { return try front.writePage(sheet, as: reference, into: &sink) }
        return try back.writePage(back.pageCount - 1 - sheet, as: reference, into: &sink)
    }
}
