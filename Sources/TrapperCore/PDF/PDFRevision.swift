/// One revision of a PDF: the objects it adds or replaces and what its trailer says. Appended to
/// an existing file it is an incremental update (§7.5.6); with no base it is a whole new file.
/// Either way `PDFRevisionWriter` turns it into bytes, so both paths share one writer.
public struct PDFRevision: Sendable {
    public enum Base: Sendable, Equatable {
        /// A brand-new file with this header version (e.g. "1.7").
        case newFile(version: String)
        /// An update appended to the file `PDFTail` describes.
        case appending(PDFTail)
    }

    public let base: Base
    /// Objects in the order they will be written; numbers never repeat.
    public private(set) var objects: [(reference: PDFReference, object: PDFObject)] = []
    private var positions: [Int: Int] = [:]
    /// The next free object number: starts at the base's /Size.
    public private(set) var nextNumber: Int
    /// The catalog. Kept from the base when appending; must be set for a new file.
    public var root: PDFReference?
    public var info: PDFReference?
    /// Private trailer entries (e.g. /PDFTrapper history). Keys the writer owns (/Size, /Prev,
    /// /Root, /ID, ...) are ignored here.
    public var trailerExtras: PDFDictionary = [:]

    public init(appendingTo tail: PDFTail) {
        base = .appending(tail)
        nextNumber = tail.size
        root = tail.root
        info = tail.info
    }

    public init(newFileVersion version: String = "1.7") {
        base = .newFile(version: version)
        nextNumber = 1
    }

    /// Adds a new object under the next free number.
    @discardableResult
    public mutating func add(_ object: PDFObject) -> PDFReference {
        let reference = reserve()
        set(reference, to: object)
        return reference
    }

    /// Takes the next free number without an object yet (for objects that refer to each other,
    /// like a page and its parent); fill it with `set` before writing.
    public mutating func reserve() -> PDFReference {
        defer { nextNumber += 1 }
        return PDFReference(nextNumber, 0)
    }

    /// Replaces an object of the base (same number and generation), or fills a reserved number.
    /// Setting the same number twice keeps the last object.
    public mutating func set(_ reference: PDFReference, to object: PDFObject) {
        if let position = positions[reference.number] {
            objects[position] = (reference, object)
        } else {
            positions[reference.number] = objects.count
            objects.append((reference, object))
            nextNumber = max(nextNumber, reference.number + 1)
        }
    }

    /// The object this revision writes under `number`, if any.
    public func object(number: Int) -> PDFObject? {
        positions[number].map { objects[$0].object }
    }

    /// The bytes to append (or, for a new file, the whole file). `newID` overrides the second
    /// /ID string, which is otherwise derived from the content. Throws where an object's number is
    /// past the most PDF readers accept (a tail whose /Size leaves no room; the store refuses those
    /// first, with `PDFTail.checkNumberingRoom`).
    public func serialized(newID: [UInt8]? = nil) throws -> [UInt8] {
        try PDFRevisionWriter.write(self, newID: newID)
    }
}
