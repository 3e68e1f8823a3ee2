/// A target's revisions, read from the file itself: PDFTrapper's revisions each say in their
/// trailer where the one before ended, so the walk goes back revision by revision, reading only
/// tails; what is left when the walk meets a trailer without a record was written by another program.
public enum RevisionHistory {
    public struct Entry: Sendable, Equatable {
        /// `base..<end` are the revision's bytes.
        public var base: Int
        public var end: Int
        /// Nil for the part of the file another program wrote.
        public var record: RevisionRecord?

        public var isForeign: Bool { record == nil }
    }

    /// Every revision, oldest first.
    public static func read(_ source: any PDFByteSource, decoder: any PDFStreamDecoding) throws -> [Entry] {
        var entries: [Entry] = []
        var end = source.length
        while end > 0 {
            let reader = try PDFTailReader(source: PDFPrefixSource(source, length: end), decoder: decoder)
            guard let record = RevisionRecord(trailer: reader.tail.trailer), record.base < end else {
                entries.append(Entry(base: 0, end: end, record: nil))
                break
            }
            entries.append(Entry(base: record.base, end: end, record: record))
            end = record.base
        }
        return entries.reversed()
    }
}
