import Foundation
import Testing
import TrapperCore

/// TOML 1.0 conformance, judged the way the official toml-test suite judges: every valid document
/// must parse to exactly the tagged JSON beside it, every invalid one must be rejected with a
/// located message. The project's own cases (`Tests/Fixtures/toml`, one or more per rule of the
/// specification) always run; toml-test's TOML 1.0.0 file list runs too when the suite is there, at
/// `../shared/toml-test` next to the package root, or wherever `PDFTRAPPER_TOML_TEST_DIR` points.
@Suite struct TOMLConformanceTests {
    static let environmentVariable = "PDFTRAPPER_TOML_TEST_DIR"

    static var suiteDirectory: URL {
        if let override = ProcessInfo.processInfo.environment[environmentVariable], !override.isEmpty {
            return URL(fileURLWithPath: override, isDirectory: true)
        }
        // <root>/Tests/TrapperCoreTests/TOMLConformanceTests.swift → <root>/../shared/toml-test
        return packageRoot.deletingLastPathComponent()
            .appendingPathComponent("shared/toml-test", isDirectory: true).standardizedFileURL
    }

    static var packageRoot: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    }

    static let suiteIsPresent = FileManager.default.fileExists(atPath: suiteDirectory.path)

    static var suiteMissing: Comment {
        Comment(rawValue: "../shared/toml-test is missing (looked in \(suiteDirectory.path); \(environmentVariable) sets another)")
    }

    /// The project's cases: `valid/NAME.toml` beside `valid/NAME.json`, and `invalid/NAME.toml`.
    @Test func projectCases() throws {
        let directory = Self.packageRoot.appendingPathComponent("Tests/Fixtures/toml")
        let files = try ["valid", "invalid"].flatMap { kind in
            try FileManager.default.contentsOfDirectory(atPath: directory.appendingPathComponent(kind).path)
                .filter { $0.hasSuffix(".toml") }.map { "\(kind)/\($0)" }
        }.sorted()
        let result = Self.check(files, in: directory)
        print("TOML cases: \(result.summary)")
        #expect(result.validTotal >= 15 && result.invalidTotal >= 80, "the cases were not all found in \(directory.path)")
        #expect(result.failures.isEmpty, "\(result.failures.count) TOML cases failed:\n\(result.failures.joined(separator: "\n"))")
    }

    @Test(.enabled(if: suiteIsPresent, suiteMissing)) func tomlTestSuite100() throws {
        let directory = Self.suiteDirectory
        let listURL = directory.appendingPathComponent("tests/files-toml-1.0.0")
        let list = try String(contentsOf: listURL, encoding: .utf8)
        let files = list.split(whereSeparator: \.isNewline).map(String.init).filter { $0.hasSuffix(".toml") }
        let result = Self.check(files, in: directory.appendingPathComponent("tests"))
        print("toml-test 1.0.0: \(result.summary)")
        #expect(result.validTotal > 0 && result.invalidTotal > 0, "the file list \(listURL.path) named no tests")
        #expect(result.failures.isEmpty, "\(result.failures.count) toml-test files failed:\n\(result.failures.joined(separator: "\n"))")
    }

    struct Result {
        var failures: [String] = []
        var validPassed = 0, validTotal = 0, invalidPassed = 0, invalidTotal = 0
        var elapsed = 0.0
        var summary: String {
            "\(validPassed)/\(validTotal) valid, \(invalidPassed)/\(invalidTotal) invalid (\(String(format: "%.2f", elapsed))s)"
        }
    }

    /// Parses each of `files` (paths below `testsDirectory`, starting `valid/` or `invalid/`) and
    /// judges it as toml-test does.
    static func check(_ files: [String], in testsDirectory: URL) -> Result {
        var result = Result()
        let started = Date()
        for file in files {
            let url = testsDirectory.appendingPathComponent(file)
            guard let data = FileManager.default.contents(atPath: url.path) else {
                result.failures.append("\(file): cannot read the file")
                continue
            }
            let bytes = [UInt8](data)
            if file.hasPrefix("valid/") {
                result.validTotal += 1
                let jsonURL = url.deletingPathExtension().appendingPathExtension("json")
                guard let jsonData = FileManager.default.contents(atPath: jsonURL.path),
                      let expected = try? JSONSerialization.jsonObject(with: jsonData, options: [.fragmentsAllowed]) else {
                    result.failures.append("\(file): cannot read the expected JSON \(jsonURL.lastPathComponent)")
                    continue
                }
                do {
                    let table = try TOML.parse(bytes)
                    if let mismatch = TaggedJSON.compare(expected: expected, actual: .table(table), path: "") {
                        result.failures.append("\(file): \(mismatch)")
                    } else {
                        result.validPassed += 1
                    }
                } catch {
                    result.failures.append("\(file): rejected a valid document: \(error)")
                }
            } else if file.hasPrefix("invalid/") {
                result.invalidTotal += 1
                do {
                    _ = try TOML.parse(bytes)
                    result.failures.append("\(file): accepted an invalid document")
                } catch {
                    if error.location.line < 1 || error.location.column < 1 || error.message.isEmpty {
                        result.failures.append("\(file): error without a proper location or message: \(error)")
                    } else {
                        result.invalidPassed += 1
                    }
                }
            }
        }
        result.elapsed = Date().timeIntervalSince(started)
        return result
    }
}

/// toml-test's tagged JSON, compared the way its own runner compares: integers as Int64, floats by
/// value (nan equals nan), date-times by value and type tag, strings exactly, key sets exactly.
enum TaggedJSON {
    static func compare(expected: Any, actual: TOMLValue, path: String) -> String? {
        let here = path.isEmpty ? "(root)" : path
        if let object = expected as? [String: Any] {
            if object.count == 2, let type = object["type"] as? String, let value = object["value"] as? String {
                return compareScalar(type: type, value: value, actual: actual, path: here)
            }
            guard case .table(let table) = actual else {
                return "\(here): expected a table, got \(actual.typeName)"
            }
            let expectedKeys = Set(object.keys.map { Array($0.unicodeScalars) })
            let actualKeys = Set(table.keys.map { Array($0.unicodeScalars) })
            if table.keys.count != actualKeys.count {
                return "\(here): duplicate keys in the parsed table: \(table.keys)"
            }
            if expectedKeys != actualKeys {
                return "\(here): expected keys \(object.keys.sorted()), got \(table.keys.sorted())"
            }
            for (key, child) in object {
                guard let entry = table.entries.first(where: { Array($0.key.unicodeScalars) == Array(key.unicodeScalars) }) else {
                    return "\(here): missing key \(key)"
                }
                if let mismatch = compare(expected: child, actual: entry.node.value, path: path.isEmpty ? key : path + "." + key) {
                    return mismatch
                }
            }
            return nil
        }
        if let array = expected as? [Any] {
            guard case .array(let items) = actual else {
                return "\(here): expected an array, got \(actual.typeName)"
            }
            guard items.count == array.count else {
                return "\(here): expected \(array.count) array elements, got \(items.count)"
            }
            for (i, (want, got)) in zip(array, items).enumerated() {
                if let mismatch = compare(expected: want, actual: got.value, path: "\(here)[\(i)]") {
                    return mismatch
                }
            }
            return nil
        }
        return "\(here): unexpected JSON \(expected)"
    }

    static func compareScalar(type: String, value: String, actual: TOMLValue, path: String) -> String? {
        let mismatch = "\(path): expected \(type) \(value), got \(actual)"
        switch (type, actual) {
        case ("string", .string(let s)):
            return Array(s.unicodeScalars) == Array(value.unicodeScalars) ? nil : mismatch
        case ("integer", .integer(let i)):
            return Int64(value) == i ? nil : mismatch
        case ("float", .float(let d)):
            guard let want = parseFloat(value) else { return "\(path): cannot read expected float \(value)" }
            if want.isNaN && d.isNaN { return nil }
            return want == d ? nil : mismatch
        case ("bool", .boolean(let b)):
            return value == (b ? "true" : "false") ? nil : mismatch
        case ("datetime", .offsetDateTime(let date, let time, let offset)):
            guard let want = DateTimeText(value), let wantOffset = want.offsetMinutes, want.date != nil, want.time != nil else {
                return "\(path): cannot read expected datetime \(value)"
            }
            let wantInstant = instant(want.date!, want.time!, wantOffset)
            return wantInstant == instant(date, time, offset) ? nil : mismatch
        case ("datetime-local", .localDateTime(let date, let time)):
            guard let want = DateTimeText(value), want.offsetMinutes == nil else {
                return "\(path): cannot read expected datetime-local \(value)"
            }
            return want.date == date && want.time == time ? nil : mismatch
        case ("date-local", .localDate(let date)):
            guard let want = DateTimeText(value), want.time == nil else {
                return "\(path): cannot read expected date-local \(value)"
            }
            return want.date == date ? nil : mismatch
        case ("time-local", .localTime(let time)):
            guard let want = DateTimeText(value), want.date == nil else {
                return "\(path): cannot read expected time-local \(value)"
            }
            return want.time == time ? nil : mismatch
        default:
            return mismatch
        }
    }

    static func parseFloat(_ text: String) -> Double? {
        switch text {
        case "nan", "+nan", "-nan": return .nan
        case "inf", "+inf": return .infinity
        case "-inf": return -.infinity
        default: return Double(text)
        }
    }

    /// Seconds and nanoseconds since 1970-01-01T00:00:00Z.
    static func instant(_ date: TOMLDate, _ time: TOMLTime, _ offsetMinutes: Int) -> [Int] {
        // Days from civil (Howard Hinnant's algorithm).
        let y = date.month <= 2 ? date.year - 1 : date.year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = (date.month + 9) % 12
        let doy = (153 * mp + 2) / 5 + date.day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        let days = era * 146097 + doe - 719468
        let seconds = days * 86400 + time.hour * 3600 + time.minute * 60 + time.second - offsetMinutes * 60
        return [seconds, time.nanosecond]
    }
}

/// An RFC 3339 date, time, date-time as toml-test writes them in its JSON, read independently of
/// the parser under test.
struct DateTimeText {
    var date: TOMLDate?
    var time: TOMLTime?
    var offsetMinutes: Int?

    init?(_ text: String) {
        var s = Substring(text)
        func number(_ count: Int) -> Int? {
            let digits = s.prefix(count)
            guard digits.count == count, digits.allSatisfy(\.isASCII), let n = Int(digits) else { return nil }
            s = s.dropFirst(count)
            return n
        }
        func take(_ c: Character) -> Bool {
            guard s.first == c else { return false }
            s = s.dropFirst()
            return true
        }
        if s.count >= 10, s.dropFirst(4).first == "-" {
            guard let y = number(4), take("-"), let m = number(2), take("-"), let d = number(2) else { return nil }
            date = TOMLDate(year: y, month: m, day: d)
            if s.isEmpty { return }
            guard take("T") || take("t") || take(" ") else { return nil }
        }
        guard let h = number(2), take(":"), let mi = number(2), take(":"), let sec = number(2) else { return nil }
        var nanos = 0
        if take(".") {
            var digits = 0
            while let c = s.first, c.isASCII, let d = c.wholeNumberValue {
                if digits < 9 { nanos = nanos * 10 + d }
                digits += 1
                s = s.dropFirst()
            }
            guard digits > 0 else { return nil }
            for _ in digits..<max(digits, 9) { nanos *= 10 }
        }
        time = TOMLTime(hour: h, minute: mi, second: sec, nanosecond: nanos)
        if s.isEmpty { return }
        guard date != nil else { return nil }
        if take("Z") || take("z") {
            offsetMinutes = 0
        } else if let sign = s.first, sign == "+" || sign == "-" {
            s = s.dropFirst()
            guard let oh = number(2), take(":"), let om = number(2) else { return nil }
            offsetMinutes = (sign == "-" ? -1 : 1) * (oh * 60 + om)
        }
        guard s.isEmpty else { return nil }
    }
}
