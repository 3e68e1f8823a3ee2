/// RFC 3339 dates and times as TOML 1.0 has them: offset date-times, local date-times, local dates
/// and local times. Seconds are required; the date/time separator is `T`, `t` or one space; the
/// offset is `Z`, `z` or `±HH:MM`; fractional seconds keep nine digits and truncate the rest.

extension TOMLParser {
    /// `dddd-` starts a date.
    var atDate: Bool {
        TOMLByte.isDigit(peek()) && TOMLByte.isDigit(peek(1)) && TOMLByte.isDigit(peek(2)) && TOMLByte.isDigit(peek(3))
            && peek(4) == TOMLByte.minus
    }

    /// `dd:` starts a time.
    var atTime: Bool {
        TOMLByte.isDigit(peek()) && TOMLByte.isDigit(peek(1)) && peek(2) == TOMLByte.colon
    }

    /// At a date: a local date, a local date-time or an offset date-time.
    mutating func parseDateTime() throws(TOMLError) -> TOMLValue {
        let start = pos
        let startLocation = location()
        let date = try parseDate(start: start, at: startLocation)

        let c = peek()
        if c == 0x54 || c == 0x74 {                                   // T or t
            pos += 1
        } else if c == TOMLByte.space && TOMLByte.isDigit(peek(1)) && TOMLByte.isDigit(peek(2)) && peek(3) == TOMLByte.colon {
            pos += 1
        } else {
            try expectTokenEnd(start: start, at: startLocation, kind: "date")
            return .localDate(date)
        }

        let time = try parseTime(start: start, at: startLocation, kind: "date-time")
        let o = peek()
        if o == 0x5A || o == 0x7A {                                   // Z or z
            pos += 1
            try expectTokenEnd(start: start, at: startLocation, kind: "date-time")
            return .offsetDateTime(date, time, offsetMinutes: 0)
        }
        if o == TOMLByte.plus || o == TOMLByte.minus {
            guard let hours = twoDigits(1), peek(3) == TOMLByte.colon, let minutes = twoDigits(4) else {
                throw invalid("date-time", start: start, scanFrom: pos + 1, at: startLocation,
                              detail: "the offset must be Z or ±HH:MM")
            }
            guard hours <= 23, minutes <= 59 else {
                throw invalid("date-time", start: start, scanFrom: pos + 1, at: startLocation,
                              detail: hours > 23 ? "offset hours must be 00 to 23" : "offset minutes must be 00 to 59")
            }
            pos += 6
            try expectTokenEnd(start: start, at: startLocation, kind: "date-time")
            let total = hours * 60 + minutes
            return .offsetDateTime(date, time, offsetMinutes: o == TOMLByte.minus ? -total : total)
        }
        try expectTokenEnd(start: start, at: startLocation, kind: "date-time")
        return .localDateTime(date, time)
    }

    /// At a time: a local time.
    mutating func parseLocalTime() throws(TOMLError) -> TOMLValue {
        let start = pos
        let startLocation = location()
        let time = try parseTime(start: start, at: startLocation, kind: "time")
        try expectTokenEnd(start: start, at: startLocation, kind: "time")
        return .localTime(time)
    }

    // MARK: Pieces

    private mutating func parseDate(start: Int, at startLocation: SourceLocation) throws(TOMLError) -> TOMLDate {
        guard let y1 = twoDigits(0), let y2 = twoDigits(2), peek(4) == TOMLByte.minus,
              let month = twoDigits(5), peek(7) == TOMLByte.minus, let day = twoDigits(8) else {
            throw invalid("date", start: start, scanFrom: pos, at: startLocation, detail: "expected YYYY-MM-DD")
        }
        let year = y1 * 100 + y2
        guard (1...12).contains(month) else {
            throw invalid("date", start: start, scanFrom: pos, at: startLocation, detail: "month must be 01 to 12")
        }
        let days = Self.daysIn(month: month, year: year)
        guard (1...days).contains(day) else {
            throw invalid("date", start: start, scanFrom: pos, at: startLocation,
                          detail: "day must be 01 to \(days) in \(Self.monthNames[month - 1]) \(year)")
        }
        pos += 10
        return TOMLDate(year: year, month: month, day: day)
    }

    private mutating func parseTime(start: Int, at startLocation: SourceLocation, kind: String) throws(TOMLError) -> TOMLTime {
        guard let hour = twoDigits(0), peek(2) == TOMLByte.colon, let minute = twoDigits(3) else {
            throw invalid(kind, start: start, scanFrom: pos, at: startLocation, detail: "expected HH:MM:SS")
        }
        guard peek(5) == TOMLByte.colon, let second = twoDigits(6) else {
            throw invalid(kind, start: start, scanFrom: pos, at: startLocation,
                          detail: peek(5) == TOMLByte.colon ? "expected HH:MM:SS" : "expected HH:MM:SS (TOML 1.0 requires the seconds)")
        }
        guard hour <= 23, minute <= 59, second <= 60 else {
            let detail = hour > 23 ? "hour must be 00 to 23" : minute > 59 ? "minute must be 00 to 59" : "second must be 00 to 60"
            throw invalid(kind, start: start, scanFrom: pos, at: startLocation, detail: detail)
        }
        pos += 8
        var nanosecond = 0
        if peek() == TOMLByte.dot {
            pos += 1
            var digits = 0
            while TOMLByte.isDigit(peek()) {
                if digits < 9 { nanosecond = nanosecond * 10 + Int(peek() - 0x30) }
                digits += 1
                pos += 1
            }
            guard digits > 0 else {
                throw invalid(kind, start: start, scanFrom: pos, at: startLocation, detail: "expected digits after '.'")
            }
            for _ in digits..<max(digits, 9) { nanosecond *= 10 }
        }
        return TOMLTime(hour: hour, minute: minute, second: second, nanosecond: nanosecond)
    }

    /// Two TOMLByte digits at `pos + offset`, as a number.
    private func twoDigits(_ offset: Int) -> Int? {
        let a = peek(offset), b = peek(offset + 1)
        guard TOMLByte.isDigit(a), TOMLByte.isDigit(b) else { return nil }
        return Int(a - 0x30) * 10 + Int(b - 0x30)
    }

    /// A date or time must not run on into other word characters (`2001-01-01x`, `12:00:00:00`).
    private mutating func expectTokenEnd(start: Int, at startLocation: SourceLocation, kind: String) throws(TOMLError) {
        if pos < bytes.count && TOMLByte.isWord(bytes[pos]) {
            throw invalid(kind, start: start, scanFrom: pos, at: startLocation, detail: nil)
        }
    }

    /// `invalid date-time "…": detail`, quoting the value from `start` to the end of the word it is in.
    private func invalid(_ kind: String, start: Int, scanFrom: Int, at location: SourceLocation, detail: String?) -> TOMLError {
        var end = max(scanFrom, start)
        while end < bytes.count && TOMLByte.isWord(bytes[end]) { end += 1 }
        let written = text(start..<end)
        return TOMLError("invalid \(kind) \"\(written)\"" + (detail.map { ": " + $0 } ?? ""), at: location)
    }

    static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    static let monthNames = ["January", "February", "March", "April", "May", "June", "July",
                             "August", "September", "October", "November", "December"]
}
