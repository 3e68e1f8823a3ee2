/// Integers (decimal, 0x, 0o, 0b; underscores only between digits; Int64 range) and floats
/// (fraction and/or exponent; inf and nan with an optional sign).

extension TOMLParser {
    /// At a digit, a sign, `i` or `n`: reads the whole token (letters, digits, `_ . + -`) and parses it.
    mutating func parseNumber() throws(TOMLError) -> TOMLValue {
        let start = pos
        while pos < bytes.count && TOMLByte.isWord(bytes[pos]) { pos += 1 }
        let end = pos
        let token = text(start..<end)
        let startLocation = location(at: start)
        func fail(_ message: String) -> TOMLError { TOMLError(message, at: startLocation) }

        var body = start
        var negative = false
        if bytes[body] == TOMLByte.plus || bytes[body] == TOMLByte.minus {
            negative = bytes[body] == TOMLByte.minus
            body += 1
        }
        if end - body == 3 {
            if bytes[body] == 0x69 && bytes[body + 1] == 0x6E && bytes[body + 2] == 0x66 {      // inf
                return .float(negative ? -Double.infinity : Double.infinity)
            }
            if bytes[body] == 0x6E && bytes[body + 1] == 0x61 && bytes[body + 2] == 0x6E {      // nan
                return .float(negative ? -Double.nan : Double.nan)
            }
        }
        guard body < end, TOMLByte.isDigit(bytes[body]) else {
            throw fail("invalid value \"\(token)\"")
        }

        // 0x…, 0o…, 0b…
        if end - body >= 2 && bytes[body] == 0x30 {
            let radix: UInt64
            switch bytes[body + 1] {
            case 0x78: radix = 16
            case 0x6F: radix = 8
            case 0x62: radix = 2
            default: radix = 0
            }
            if radix != 0 {
                if body != start {
                    throw fail("\(radix == 16 ? "hexadecimal" : radix == 8 ? "octal" : "binary") integer \"\(token)\" cannot have a sign")
                }
                return .integer(try radixInteger(from: body + 2, to: end, radix: radix, token: token, fail: fail))
            }
        }

        // Decimal integer or float: int-part [ "." digits ] [ e [sign] digits ].
        var j = body
        let intDigits = try digitRun(&j, end, token: token, fail: fail)
        if bytes[body] == 0x30 && intDigits > 1 {
            throw fail("leading zeros are not allowed in \"\(token)\"")
        }
        var isFloat = false
        if j < end && bytes[j] == TOMLByte.dot {
            isFloat = true
            j += 1
            if try digitRun(&j, end, token: token, fail: fail) == 0 {
                throw fail("a float needs digits after the '.' in \"\(token)\"")
            }
        }
        if j < end && bytes[j] | 0x20 == 0x65 {   // e or E
            isFloat = true
            j += 1
            if j < end && (bytes[j] == TOMLByte.plus || bytes[j] == TOMLByte.minus) { j += 1 }
            if try digitRun(&j, end, token: token, fail: fail) == 0 {
                throw fail("a float needs digits in the exponent of \"\(token)\"")
            }
        }
        guard j == end else {
            throw fail("invalid number \"\(token)\"")
        }

        if isFloat {
            var cleaned = ""
            cleaned.reserveCapacity(end - start)
            for k in start..<end where bytes[k] != TOMLByte.underscore {
                cleaned.unicodeScalars.append(Unicode.Scalar(bytes[k]))
            }
            guard let value = Double(cleaned), value.isFinite else {
                throw fail("float \(token) is out of range")
            }
            return .float(value)
        }

        let limit: UInt64 = negative ? UInt64(Int64.max) + 1 : UInt64(Int64.max)
        var magnitude: UInt64 = 0
        for k in body..<end where bytes[k] != TOMLByte.underscore {
            let (times10, o1) = magnitude.multipliedReportingOverflow(by: 10)
            let (sum, o2) = times10.addingReportingOverflow(UInt64(bytes[k] - 0x30))
            guard !o1, !o2, sum <= limit else {
                throw fail("integer \(token) is out of range")
            }
            magnitude = sum
        }
        if negative {
            return .integer(magnitude == UInt64(Int64.max) + 1 ? Int64.min : -Int64(magnitude))
        }
        return .integer(Int64(magnitude))
    }

    /// Digits with single underscores between them; returns how many digits. Stops at anything else.
    private func digitRun(_ j: inout Int, _ end: Int, token: String,
                          fail: (String) -> TOMLError) throws(TOMLError) -> Int {
        var count = 0
        while j < end {
            let c = bytes[j]
            if TOMLByte.isDigit(c) {
                count += 1
            } else if c == TOMLByte.underscore {
                guard count > 0, TOMLByte.isDigit(bytes[j - 1]), j + 1 < end, TOMLByte.isDigit(bytes[j + 1]) else {
                    throw fail("an underscore must sit between two digits in \"\(token)\"")
                }
            } else {
                break
            }
            j += 1
        }
        return count
    }

    private func radixInteger(from start: Int, to end: Int, radix: UInt64, token: String,
                              fail: (String) -> TOMLError) throws(TOMLError) -> Int64 {
        var value: UInt64 = 0
        var digits = 0
        var k = start
        while k < end {
            let c = bytes[k]
            if c == TOMLByte.underscore {
                guard digits > 0, bytes[k - 1] != TOMLByte.underscore, k + 1 < end, bytes[k + 1] != TOMLByte.underscore else {
                    throw fail("an underscore must sit between two digits in \"\(token)\"")
                }
                k += 1
                continue
            }
            let d: UInt64
            if TOMLByte.isDigit(c) { d = UInt64(c - 0x30) }
            else if TOMLByte.isHexDigit(c) { d = UInt64(TOMLByte.hexValue(c)) }
            else { d = 99 }
            guard d < radix else {
                throw fail("invalid digit \(describe(at: k)) in \(radix == 16 ? "hexadecimal" : radix == 8 ? "octal" : "binary") integer \"\(token)\"")
            }
            let (times, o1) = value.multipliedReportingOverflow(by: radix)
            let (sum, o2) = times.addingReportingOverflow(d)
            guard !o1, !o2, sum <= UInt64(Int64.max) else {
                throw fail("integer \(token) is out of range")
            }
            value = sum
            digits += 1
            k += 1
        }
        guard digits > 0 else {
            throw fail("\"\(token)\" has no digits after its prefix")
        }
        return Int64(value)
    }
}
