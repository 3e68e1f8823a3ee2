/// `n g R`: a reference to indirect object number n, generation g (§7.3.10).
public struct PDFReference: Sendable, Hashable, Comparable, CustomStringConvertible {
    public var number: Int
    public var generation: Int

    public init(_ number: Int, _ generation: Int = 0) {
        self.number = number
        self.generation = generation
    }

    public static func < (lhs: PDFReference, rhs: PDFReference) -> Bool {
        (lhs.number, lhs.generation) < (rhs.number, rhs.generation)
    }

    public var description: String { "\(number) \(generation) R" }
}
