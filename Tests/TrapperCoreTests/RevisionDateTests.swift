import Foundation
import Testing
@testable import TrapperCore

/// A revision's date, worked out without a Calendar, against Foundation's Gregorian calendar in UTC
/// across leap days, century years and the edges of days; and back again.
@Suite struct RevisionDateTests {
    static func byCalendar(_ date: Date) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let c = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
        return String(format: "D:%04d%02d%02d%02d%02d%02dZ", c.year!, c.month!, c.day!, c.hour!, c.minute!, c.second!)
    }

    @Test func agreesWithTheGregorianCalendar() {
        var dates = [0.0, 59.999, 86399, 86400, 951_782_400, 951_868_799, 4_107_542_399, 4_107_542_400, 1_780_142_400.5]
        var generator = SystemRandomNumberGenerator()
        dates += (0..<2000).map { _ in Double(UInt64.random(in: 0...8_000_000_000, using: &generator)) }
        dates += [-1, -86401, -2_208_988_800]  // before 1970: 1969-12-31 23:59:59, ..., 1900-01-01
        for seconds in dates {
            let date = Date(timeIntervalSince1970: seconds)
            #expect(RevisionRecord.pdfDate(date) == Self.byCalendar(date), "\(seconds)")
        }
    }

    @Test func readsBackWhatItWrites() {
        let date = Date(timeIntervalSince1970: 1_780_142_400)
        #expect(RevisionRecord.pdfDate(date) == "D:20260530120000Z")
        #expect(RevisionRecord.date(fromPDF: RevisionRecord.pdfDate(date)) == date)
    }
}
