import Testing

@testable import TrapperCore

/// A drawing's numbers: written by integer arithmetic (PDFReal.writeFixedPoint) exactly as the
/// general way writes them, and read back from a stroke's string (PointText) as Swift reads them.
@Suite("Point text")
struct PointTextTests {
    @Test func theFastWriterWritesWhatTheGeneralWayWrites() {
        var random = SystemRandomNumberGenerator()
        var values: [Double] = [0.5, -0.5, 3, 10, 100, 0.000001, -0.0000004, 0.1 + 0.2, 1234.5678, 9_999_999.999999, 1e-7, -0.0]
        for _ in 0..<20_000 {
            let magnitude = Double.random(in: 0..<1, using: &random) * [1, 10, 1000, 20_000, 9_999_999][Int.random(in: 0..<5, using: &random)]
            let rounded = [magnitude, (magnitude * 100).rounded() / 100, (magnitude * 1000).rounded() / 1000][Int.random(in: 0..<3, using: &random)]
            values.append(Bool.random(using: &random) ? rounded : -rounded)
        }
        for value in values {
            var fast: [UInt8] = []
            #expect(PDFReal.writeFixedPoint(value, to: &fast))
            #expect(String(decoding: fast, as: UTF8.self) == String(decoding: PDFReal.shortestDigits(value), as: UTF8.self), "\(value)")
        }
        var large: [UInt8] = []
        #expect(!PDFReal.writeFixedPoint(1e7, to: &large) && large.isEmpty)
    }

    @Test func aStrokesNumbersAreReadAsSwiftReadsThem() throws {
        let written = "12.5 -3, 0.125\n4 .25 1e2 -0 1234567.891"
        #expect(try PointText.numbers(written).get() == [12.5, -3, 0.125, 4, 0.25, 100, 0, 1234567.891])
        var random = SystemRandomNumberGenerator()
        for _ in 0..<5_000 {
            let value = (Double.random(in: -20_000..<20_000, using: &random) * 100).rounded() / 100
            var text: [UInt8] = []
            PointText.write(value, to: &text)
            let string = String(decoding: text, as: UTF8.self)
            #expect(try PointText.numbers(string).get() == [Double(string)!], "\(string)")
        }
    }

    @Test func aWordThatIsNotANumberIsNamed() {
        #expect(PointText.numbers("1 2 three 4") == .failure(PointText.NotANumber(word: "three")))
        #expect(PointText.numbers("1 2 1.2.3") == .failure(PointText.NotANumber(word: "1.2.3")))
        #expect(PointText.numbers("nan 1") == .failure(PointText.NotANumber(word: "nan")))
        #expect(PointText.numbers("- 1") == .failure(PointText.NotANumber(word: "-")))
        #expect(PointText.numbers("  ") == .success([]))
    }

    @Test func anInkStrokeMayBeAStringOfNumbers() throws {
        let parsed = try EditScriptParser.parse(Array(#"""
            {"target": "a.pdf", "edit": [{"op": "ink", "page": 1, "strokes": ["10 20 30 40.5", [[1, 2], [3, 4]]]}]}
            """#.utf8), file: "s.json", libraryRoot: "/library")
        guard case .markup(let markup) = parsed.edits[0].operation, case .ink(let strokes, _) = markup.shape else {
            Issue.record("not an ink edit: \(parsed.edits)")
            return
        }
        #expect(strokes == [[ScriptPoint(10, 20), ScriptPoint(30, 40.5)], [ScriptPoint(1, 2), ScriptPoint(3, 4)]])
        for (stroke, problem) in [("\"10 20 30\"", "must hold x and y of each point"), ("\"10 x\"", "\"x\" is not a number"),
                                  ("\"10 99999\"", "beyond the")] {
            let script = "{\"target\": \"a.pdf\", \"edit\": [{\"op\": \"ink\", \"page\": 1, \"strokes\": [\(stroke)]}]}"
            do {
                _ = try EditScriptParser.parse(Array(script.utf8), file: "s.json", libraryRoot: "/library")
                Issue.record("\(stroke) was taken")
            } catch {
                #expect(error.description.contains(problem), "\(error)")
            }
        }
    }
}
