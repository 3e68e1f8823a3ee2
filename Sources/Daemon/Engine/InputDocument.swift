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
}

extension InputDocument {
    public func writeForm<Sink: PDFObjectSink>(into sink: inout Sink) throws -> PDFDictionary? { nil }
    public var stepsNote: String? { nil }
}
