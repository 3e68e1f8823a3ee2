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
            guard let record = RevisionRecord(trailer: reader.tail.trailer),
                  try isRevision(record, trailer: reader.tail.trailer, end: end, in: source) else {
                entries.append(Entry(base: 0, end: end, record: nil))
                break
            }
            entries.append(Entry(base: record.base, end: end, record: record))
            end = record.base
        }
        return entries.reversed()
    }

    /// Whether a record describes a real incremental update: it begins where an earlier revision
    /// ended (the bytes before `base` end in `%%EOF`) and its trailer chains to that revision
    /// (/Prev). A record carried over by a program that rewrote the whole file fails this, so its
    /// stale `base` is never truncated to.
    public static func isRevision(_ record: RevisionRecord, trailer: PDFDictionary, end: Int,
                                  in source: any PDFByteSource) throws -> Bool {
        guard record.base < end else { return false }
        guard record.base > 0 else { return trailer[.prev] == nil }
        guard let previous = trailer[.prev]?.integerValue, previous < record.base else { return false }
        let before = try source.read(offset: max(0, record.base - 8), count: min(8, record.base))
        let trimmed = before.reversed().drop { $0 == 0x0A || $0 == 0x0D || $0 == 0x20 }.reversed()
        return trimmed.count >= 5 && Array(trimmed.suffix(5)) == Array("%%EOF".utf8)
    }
}
