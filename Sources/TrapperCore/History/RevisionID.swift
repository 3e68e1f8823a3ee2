/// A revision of a target as a person or a client names it: where the file ends and the first 16
/// hex digits of the SHA-256 of its last 64 KiB, written `END-HASH` (`48213-9f2c4e1a07b3d5c6`).
/// The length alone cannot tell two revisions apart: an undo followed by a save that happens to
/// end at the same byte is another document, and a tab still showing the first must be refused.
public struct RevisionID: Hashable, Sendable, CustomStringConvertible {
    public var end: Int
    public var hash: String

    static let hashDigits = 16

    public init(end: Int, sha256Hex: String) {
        self.end = end
        hash = String(sha256Hex.prefix(Self.hashDigits))
    }

    /// Parses `END-HASH`; nil for anything else.
    public init?(_ text: String) {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 2, let end = Int(parts[0]), end >= 0, parts[1].count == Self.hashDigits,
              parts[1].allSatisfy({ $0.isHexDigit && !$0.isUppercase }) else { return nil }
        self.end = end
        hash = String(parts[1])
    }

    public var description: String { "\(end)-\(hash)" }
}
