import TrapperCore

/// One input of an ingest, opened and checked before the target is touched: an image file (its
/// pages) or a PDF (its pages, imported). Pages are written one at a time, so only one page's data is
/// in memory at once.
public protocol InputDocument {
    /// The name recorded in the history (the file name as it arrived).
    var name: String { get }
    var sha256: [UInt8] { get }
    var pageCount: Int { get }
    /// Writes page `index` and everything it needs into `sink`; returns the page dictionary
    /// without /Parent.
    func writePage<Sink: PDFObjectSink>(_ index: Int, into sink: inout Sink) throws -> PDFDictionary
}
