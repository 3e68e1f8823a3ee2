/// A PDF dictionary (§7.3.7) that keeps its keys in insertion order, so what is read and written
/// again looks the same. Lookups are linear: PDF dictionaries are small.
public struct PDFDictionary: Sendable, Hashable, ExpressibleByDictionaryLiteral, Sequence {
    public private(set) var keys: [PDFName] = []
    public private(set) var values: [PDFObject] = []

    public init() {}

    public init(dictionaryLiteral elements: (PDFName, PDFObject)...) {
        for (key, value) in elements { self[key] = value }
    }

    public var count: Int { keys.count }
    public var isEmpty: Bool { keys.isEmpty }

    /// Setting `nil` (or `.null`, which the spec treats as absent) removes the key.
    public subscript(key: PDFName) -> PDFObject? {
        get {
            guard let index = keys.firstIndex(of: key) else { return nil }
            return values[index]
        }
        set {
            let index = keys.firstIndex(of: key)
            switch (index, newValue) {
            case (let index?, nil), (let index?, .null?):
                keys.remove(at: index)
                values.remove(at: index)
            case (let index?, let value?):
                values[index] = value
            case (nil, nil), (nil, .null?):
                break
            case (nil, let value?):
                keys.append(key)
                values.append(value)
            }
        }
    }

    public func makeIterator() -> Zip2Sequence<[PDFName], [PDFObject]>.Iterator {
        zip(keys, values).makeIterator()
    }
}
