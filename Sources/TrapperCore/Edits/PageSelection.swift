/// Pages as a script names them: `"1-3,5,last"`, `"2-last"`, `"all"`, `"odd"`, `"even"`; 1-based.
/// Parsed without the document; `resolve` checks it against a page count.
public struct PageSelection: Sendable, Equatable, CustomStringConvertible {
    public enum Bound: Sendable, Equatable {
        case page(Int)
        case last
    }

    public enum Part: Sendable, Equatable {
        case single(Bound)
        case range(Bound, Bound)
        case odd, even
    }

    public var parts: [Part]
    public let text: String

    public init(parts: [Part], text: String) {
        self.parts = parts
        self.text = text
    }

    public var description: String { text }
}
