import CFuzzerDriver
import Foundation
import TrapperCore

/// The tail reader on arbitrary bytes, as the append path uses it on a target PDF: header,
/// `startxref`, the last cross-reference section (table, stream or hybrid) and trailer; then the
/// catalog, the page-tree root and its first kids, and the first objects by number (following
/// /Prev and object streams); then one page appended and the result opened again; then, as an edit
/// script would, the page editor on a fresh reader: every kind of edit, written as one revision.
/// Each step may throw, never crash, hang or allocate without bound.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPDFTail(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
    guard let reader = try? PDFTailReader(source: PDFMemorySource(bytes), decoder: StoredFlateDecoder()) else {
        return 0
    }
    read(reader)
    append(to: reader, bytes)
    edit(bytes)
    return 0
}

/// What every command reads first: the catalog, the page-tree root and its first kids, objects by number.
func read(_ reader: PDFTailReader) {
    _ = try? reader.catalog()
    if let (_, root) = try? PDFPageTree.root(of: reader),
        let kids = try? reader.resolve(root[.kids] ?? .null).arrayValue
    {
        for kid in kids.prefix(8) { _ = try? reader.resolve(kid) }
    }
    for number in 0..<min(reader.tail.size, 64) { _ = try? reader.object(number: number) }
    _ = try? reader.object(number: reader.tail.size)
}

/// The ingest path: one page at the end (or the front), then the file as it would be on disk, opened.
func append(to reader: PDFTailReader, _ bytes: [UInt8]) {
    // as the store does before every commit: a /Size with no room left is refused (and repaired)
    guard (try? reader.tail.checkNumberingRoom()) != nil else { return }
    var revision = PDFRevision(appendingTo: reader.tail)
    let position: PDFPagePosition = bytes.count % 2 == 0 ? .end : .front
    guard (try? PDFPageTree.addPages([Fixtures.page], at: position, reader: reader, to: &revision)) != nil else { return }
    guard let written = try? revision.serialized() else { return }
    let appended = bytes + written
    if let again = try? PDFTailReader(source: PDFMemorySource(appended), decoder: StoredFlateDecoder()) {
        _ = try? PDFPageTree.root(of: again)
    }
}

/// The page editor's reads (the page tree, inherited attributes, /Info, the outline) and writes.
func edit(_ bytes: [UInt8]) {
    guard let reader = try? PDFTailReader(source: PDFMemorySource(bytes), decoder: StoredFlateDecoder()),
        var editor = try? PDFPageEditor(reader: reader)
    else { return }
    let count = editor.pageCount
    let last = max(0, count - 1)
    _ = try? editor.mediaBox(ofPage: last)
    _ = try? editor.cropBox(ofPage: 0)
    _ = try? editor.rotation(ofPage: last)
    try? editor.rotate([0, last], by: 90)
    try? editor.crop([last], to: [10, 10, 100, 50])
    try? editor.duplicate([0])
    try? editor.move([last], before: 0)
    try? editor.insertBlank(at: min(1, count), width: 100, height: 200)
    try? editor.delete([1])
    try? editor.setInfo(title: "T", author: nil, subject: "", keywords: nil, modified: Fixtures.date)
    try? editor.addBookmark(title: "B", page: 0)
    var revision = PDFRevision(appendingTo: reader.tail)
    guard let changes = try? editor.write(into: &revision) else { return }
    if let info = changes.info { revision.info = info }
    _ = try? revision.serialized()
}

enum Fixtures {
    static let page = PDFNewPage(width: 200, height: 100, content: Array("0 0 1 rg 10 10 50 50 re f\n".utf8))
    static let date = Date(timeIntervalSince1970: 1_700_000_000)
}

/// TrapperCore has no zlib, so /FlateDecode here takes the data as already inflated (a fuzzer could
/// hardly write valid zlib anyway) and then undoes /DecodeParms predictors as the real decoder does:
/// compressed xref and object streams, and their predictors, are reached. Other filters are refused.
struct StoredFlateDecoder: PDFStreamDecoding {
    func decode(_ data: [UInt8], dictionary: PDFDictionary) throws -> [UInt8] {
        let filters = PDFStream(dictionary: dictionary, data: []).filters
        guard !filters.isEmpty else { return data }
        guard filters.count == 1, filters[0] == "FlateDecode" || filters[0] == "Fl" else {
            throw PDFError.unsupportedFilter(.decodingStream, offset: 0, filters.map(\.description).joined(separator: " "))
        }
        return try PDFPredictor.undo(data, PDFPredictor.Parameters(dictionary["DecodeParms"]?.dictionaryValue))
    }
}

fuzz_run_driver(CommandLine.argc, CommandLine.unsafeArgv, fuzzPDFTail)
