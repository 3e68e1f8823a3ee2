/// A stream (§7.3.8): its dictionary and its bytes exactly as stored (still encoded by /Filter).
/// When written, /Length is set from `data`, so the two can never disagree.
public struct PDFStream: Sendable, Hashable {
    public var dictionary: PDFDictionary
    public var data: [UInt8]

    public init(dictionary: PDFDictionary = [:], data: [UInt8]) {
        self.dictionary = dictionary
        self.data = data
    }

    /// The filter names, in order, from /Filter (a name or an array of names).
    public var filters: [PDFName] {
        switch dictionary[.filter] {
        case .name(let name)?: return [name]
        case .array(let items)?: return items.compactMap(\.nameValue)
        default: return []
        }
    }
}
