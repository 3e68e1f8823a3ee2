/// What an append needs to know about a target, read from its tail: where its last
/// cross-reference section is, in which form, and its trailer. A value: the writer takes it.
public struct PDFTail: Sendable, Equatable {
    /// The file's length when it was read: the update is appended at this offset.
    public var fileLength: Int
    /// Bytes of garbage before `%PDF`: offsets in the file count from the header, not byte 0.
    public var headerOffset: Int
    /// The `%PDF-x.y` version, e.g. "1.5".
    public var version: String
    /// The value after the last `startxref`, as written (relative to the header).
    public var startxref: Int
    public var form: PDFXrefForm
    /// The newest trailer (for an xref stream: its dictionary).
    public var trailer: PDFDictionary
    public var size: Int
    public var root: PDFReference
    public var info: PDFReference?
    public var id: [PDFString]?
    /// Whether the last byte is an end of line; if not, the update starts with one.
    public var endsWithEOL: Bool

    public init(
        fileLength: Int, headerOffset: Int = 0, version: String, startxref: Int, form: PDFXrefForm,
        trailer: PDFDictionary, size: Int, root: PDFReference, info: PDFReference? = nil, id: [PDFString]? = nil,
        endsWithEOL: Bool
    ) {
        self.fileLength = fileLength
        self.headerOffset = headerOffset
        self.version = version
        self.startxref = startxref
        self.form = form
        self.trailer = trailer
        self.size = size
        self.root = root
        self.info = info
        self.id = id
        self.endsWithEOL = endsWithEOL
    }
}

extension PDFTail {
    /// The largest object number PDF readers accept (ISO 32000-1 Annex C: 8,388,607; mupdf and
    /// Ghostscript hold to it, and poppler and qpdf to less than 2^31).
    public static let largestObjectNumber = 8_388_607
    /// What one revision may number at the most; a target whose /Size leaves less room is
    /// renumbered by a full rewrite first.
    public static let revisionHeadroom = 1_000_000

    /// Refuses (as damage, so the repair path renumbers it) a target whose numbering leaves less
    /// room than one revision may need.
    public func checkNumberingRoom() throws(PDFError) {
        guard size > Self.largestObjectNumber - Self.revisionHeadroom else { return }
        throw .damaged(.readingTrailer, offset: 0, "/Size \(size) leaves no room for new objects below "
                       + "\(Self.largestObjectNumber), the most that PDF readers accept")
    }
}
