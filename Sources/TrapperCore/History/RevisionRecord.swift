import Foundation

/// What made a revision, kept in the revision's own trailer under /PDFTrapper, so the file carries
/// its history wherever it is copied: the operation, when, the inputs and their SHA-256s, and where
/// the previous revision ended (`base`), which is what undo truncates to.
public struct RevisionRecord: Sendable, Equatable {
    public struct Input: Sendable, Equatable {
        public var name: String
        public var sha256: [UInt8]
        public var pages: Int

        public init(name: String, sha256: [UInt8], pages: Int) {
            self.name = name
            self.sha256 = sha256
            self.pages = pages
        }
    }

    public enum Operation: String, Sendable {
        case ingest, edit, ocr
        /// A full rewrite through qpdf (its base is 0, its note what was found and mended); the bytes
        /// before it are kept in the state folder, where undo finds them.
        case repair, compact
    }

    public static let trailerKey: PDFName = "PDFTrapper"

    public var operation: Operation
    public var date: Date
    /// The file's length before this revision: the end of the previous one.
    public var base: Int
    public var pagesAdded: Int
    public var position: PDFPagePosition
    public var inputs: [Input]
    /// A free-form line for the log and `history` (e.g. "2 blank pages dropped").
    public var note: String?
    /// Its place in the file's history (1 made the file; a part another program wrote counts as
    /// one), so an event can say "revision 12" without walking the file. Set when it is written.
    public var number: Int?

    public init(operation: Operation, date: Date, base: Int, pagesAdded: Int, position: PDFPagePosition = .end,
                inputs: [Input], note: String? = nil) {
        self.operation = operation
        self.date = date
        self.base = base
        self.pagesAdded = pagesAdded
        self.position = position
        self.inputs = inputs
        self.note = note
    }

    public var dictionary: PDFDictionary {
        var dictionary: PDFDictionary = [
            "V": 1, "Op": .name(PDFName(operation.rawValue)), "Date": .string(PDFString(Self.pdfDate(date))),
            "Base": .integer(base), "Pages": .integer(pagesAdded),
            "Position": .name(position == .end ? "End" : "Front"),
            "Inputs": .array(inputs.map { input in
                .dictionary(["Name": .string(PDFString(input.name)), "SHA256": .string(PDFString(bytes: input.sha256, form: .hex)),
                             "Pages": .integer(input.pages)])
            }),
        ]
        if let note { dictionary["Note"] = .string(PDFString(note)) }
        if let number { dictionary["N"] = .integer(number) }
        return dictionary
    }

    /// The record in a trailer, or nil when the revision was written by another program.
    public init?(trailer: PDFDictionary) {
        guard case .dictionary(let record)? = trailer[Self.trailerKey],
              let op = record["Op"]?.nameValue.flatMap({ Operation(rawValue: $0.string) }),
              let base = record["Base"]?.integerValue
        else { return nil }
        operation = op
        self.base = base
        pagesAdded = record["Pages"]?.integerValue ?? 0
        position = record["Position"]?.nameValue == "Front" ? .front : .end
        date = record["Date"]?.stringValue.flatMap { Self.date(fromPDF: $0.description) } ?? Date(timeIntervalSince1970: 0)
        note = record["Note"]?.stringValue?.description
        number = record["N"]?.integerValue
        inputs = record["Inputs"]?.arrayValue?.compactMap { item in
            guard let fields = item.dictionaryValue, let name = fields["Name"]?.stringValue?.description else { return nil }
            return Input(name: name, sha256: fields["SHA256"]?.stringValue?.bytes ?? [], pages: fields["Pages"]?.integerValue ?? 0)
        } ?? []
    }

    /// `D:YYYYMMDDHHmmSSZ` (§7.9.4), always in UTC.
    /// "D:20261201190503Z", in UTC. Worked out from the seconds since 1970 (the civil calendar's
    /// days, years of 146,097-day eras): making a Calendar and its time zone cost a one-shot ingest
    /// half a millisecond, and every revision is dated.
    static func pdfDate(_ date: Date) -> String {
        let seconds = Int(date.timeIntervalSince1970.rounded(.down))
        let days = seconds >= 0 ? seconds / 86400 : (seconds - 86399) / 86400
        let time = seconds - days * 86400
        // Days since 0000-03-01: a year that starts in March has its leap day last.
        let shifted = days + 719_468
        let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthFromMarch = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthFromMarch + 2) / 5 + 1
        let month = monthFromMarch < 10 ? monthFromMarch + 3 : monthFromMarch - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        func digits(_ value: Int, _ count: Int) -> String {
            let text = String(value)
            return String(repeating: "0", count: max(0, count - text.count)) + text
        }
        return "D:" + digits(year, 4) + digits(month, 2) + digits(day, 2) + digits(time / 3600, 2) + digits(time / 60 % 60, 2)
            + digits(time % 60, 2) + "Z"
    }

    static func date(fromPDF text: String) -> Date? {
        let digits = Array(text.dropFirst(2).prefix(14))
        guard text.hasPrefix("D:"), digits.count == 14, digits.allSatisfy(\.isNumber) else { return nil }
        func field(_ from: Int, _ count: Int) -> Int { Int(String(digits[from..<(from + count)]))! }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        return calendar.date(from: DateComponents(year: field(0, 4), month: field(4, 2), day: field(6, 2),
                                                  hour: field(8, 2), minute: field(10, 2), second: field(12, 2)))
    }
}
