/// An ink stroke written as one string of numbers, `"x y x y …"`: how the workspace sends and saves
/// ink. A million points as a million small `[x, y]` arrays cost every reader on the way an object
/// or a tree node each (the HTTP body's JSON, the edit script's parser, the ink reader); as a few
/// thousand strings they cost one each, and the numbers are read by one loop over the bytes.
public enum PointText {
    /// The numbers of `text`, separated by spaces or commas; or the first word that is not one.
    public static func numbers(_ text: String) -> Result<[Double], NotANumber> {
        var numbers: [Double] = []
        var result: Result<[Double], NotANumber>?
        text.utf8.withContiguousStorageIfAvailable { bytes in
            result = read(bytes, into: &numbers)
        }
        if let result { return result }
        // A string not stored as UTF-8 (bridged from elsewhere): read from a copy.
        let copy = Array(text.utf8)
        return copy.withUnsafeBufferPointer { read($0, into: &numbers) }
    }

    public struct NotANumber: Error, Sendable, Equatable {
        public var word: String
    }

    private static func read(_ bytes: UnsafeBufferPointer<UInt8>, into numbers: inout [Double]) -> Result<[Double], NotANumber> {
        numbers.reserveCapacity(bytes.count / 5)
        var index = 0
        while index < bytes.count {
            if separates(bytes[index]) {
                index += 1
                continue
            }
            var end = index
            while end < bytes.count, !separates(bytes[end]) { end += 1 }
            guard let value = number(bytes, index..<end) else {
                return .failure(NotANumber(word: String(decoding: UnsafeBufferPointer(rebasing: bytes[index..<min(end, index + 40)]),
                                                        as: UTF8.self)))
            }
            numbers.append(value)
            index = end
        }
        return .success(numbers)
    }

    /// A space, a comma, a tab or a line's end.
    private static func separates(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x2C || byte == 0x0A || byte == 0x09 || byte == 0x0D
    }

    /// `-12.5`, `3`, `.25` by integer arithmetic (exact: the digits as an integer below 2^53,
    /// divided by a power of ten a Double holds exactly, is the correctly rounded value); anything
    /// else (an exponent, twenty digits) as Swift reads a Double; nil for what is not a number.
    private static func number(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> Double? {
        var index = range.lowerBound
        let negative = bytes[index] == UInt8(ascii: "-")
        if negative || bytes[index] == UInt8(ascii: "+") { index += 1 }
        var digits: Int64 = 0, count = 0, decimals = -1
        while index < range.upperBound {
            let byte = bytes[index]
            if byte == UInt8(ascii: "."), decimals < 0 {
                decimals = 0
            } else if byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9"), count < 15 {
                digits = digits * 10 + Int64(byte - UInt8(ascii: "0"))
                count += 1
                if decimals >= 0 { decimals += 1 }
            } else {
                let word = String(decoding: UnsafeBufferPointer(rebasing: bytes[range]), as: UTF8.self)
                return Double(word).flatMap { $0.isFinite ? $0 : nil }
            }
            index += 1
        }
        guard count > 0 else { return nil }
        let value = Double(digits) / powersOfTen[max(decimals, 0)]
        return negative ? -value : value
    }

    private static let powersOfTen: [Double] = (0...15).map { power in (0..<power).reduce(1.0) { value, _ in value * 10 } }

    /// Appends `value` to a thousandth, as PDF and the readers above read it: `12.5`, `-3`, `0.125`.
    public static func write(_ value: Double, to bytes: inout [UInt8]) {
        PDFReal.write((value * 1000).rounded() / 1000, to: &bytes)
    }
}
