import Testing

@testable import TrapperCore

@Suite("PDF serialization")
struct PDFSerializationTests {
    func text(_ object: PDFObject) -> String { String(decoding: object.serialized, as: UTF8.self) }

    @Test func scalars() {
        #expect(text(.null) == "null")
        #expect(text(true) == "true")
        #expect(text(false) == "false")
        #expect(text(0) == "0")
        #expect(text(-42) == "-42")
        #expect(text(.integer(Int.max)) == "9223372036854775807")
        #expect(text(.integer(Int.min)) == "-9223372036854775808")
        #expect(text(.reference(PDFReference(12, 3))) == "12 3 R")
    }

    @Test(arguments: [
        (0.5, "0.5"), (-3.0, "-3"), (1e-7, "0"), (-0.25, "-0.25"), (612.0, "612"), (1e-300, "0"), (-4e-7, "0"),
        (6e-7, "0.000001"), (0.1234565, "0.123457"), (1.0 / 3.0, "0.333333"),
        (1.5e20, "150000000000000000000"), (0.1, "0.1"), (123.456, "123.456"), (0.0, "0"), (-0.0, "0"),
        (Double.nan, "0"), (Double.infinity, "0"), (1e-12, "0"), (100.0, "100"), (2.5e-5, "0.000025"),
    ])
    func reals(value: Double, expected: String) {
        #expect(text(.real(value)) == expected)
    }

    /// At most 6 decimals, so a value reads back within half a millionth (strict readers refuse longer forms).
    @Test func realsReadBackToSixDecimals() throws {
        for value in [0.1, 1.0 / 3.0, 595.276, -1e-9, 12345.6789, 7e-300, 841.8897637795] {
            let written = PDFObject.real(value).serialized
            var parser = PDFObjectParser(bytes: written)
            let read = try #require(try parser.parseObject().numberValue)
            #expect(abs(read - value) <= 0.5e-6)
            let decimals = written.split(separator: UInt8(ascii: ".")).dropFirst().first?.count ?? 0
            #expect(decimals <= 6, "\(String(decoding: written, as: UTF8.self))")
        }
    }

    @Test func names() {
        #expect(text(.name("Type")) == "/Type")
        #expect(text(.name("A B")) == "/A#20B")
        #expect(text(.name("a#b")) == "/a#23b")
        #expect(text(.name("x/y(z)")) == "/x#2Fy#28z#29")
        #expect(text(.name(PDFName(bytes: [0xE9, 0x00]))) == "/#E9#00")
        #expect(text(.name("")) == "/")
    }

    @Test func literalStrings() {
        #expect(text(.string(PDFString("plain"))) == "(plain)")
        #expect(text(.string(PDFString("a(b)c\\d"))) == "(a\\(b\\)c\\\\d)")
        #expect(text(.string(PDFString("l1\nl2\r\t"))) == "(l1\\nl2\\r\\t)")
        #expect(PDFObject.string(PDFString(bytes: [0x00, 0x1B, 0x7F, 0xFF])).serialized == Array("(\\000\\033\\177".utf8) + [0xFF, 0x29])
    }

    @Test func hexStrings() {
        #expect(text(.string(PDFString(bytes: [0x00, 0xAB, 0x10], form: .hex))) == "<00AB10>")
        #expect(text(.string(PDFString(bytes: [], form: .hex))) == "<>")
    }

    @Test func containersKeepOrder() {
        let dictionary: PDFDictionary = ["Z": 1, "A": [1, 2.5, .name("N")], "M": .dictionary(["K": .null])]
        #expect(text(.dictionary(dictionary)) == "<</Z 1/A [1 2.5 /N]/M <<>>>>")
        var edited = dictionary
        edited["Z"] = 2
        edited["B"] = true
        edited["A"] = nil
        #expect(edited.keys == ["Z", "M", "B"])
    }

    @Test func streamsSetTheirLength() {
        let stream = PDFStream(dictionary: [.length: 999, "Filter": .name("X")], data: Array("abc".utf8))
        #expect(text(.stream(stream)) == "<</Length 3/Filter /X>>\nstream\nabc\nendstream")
    }

    @Test func decimalAndPaddedHelpers() {
        var buffer: [UInt8] = []
        buffer.appendPaddedDecimal(1234, width: 10)
        buffer.append(0x20)
        buffer.appendPaddedDecimal(65535, width: 5)
        buffer.append(0x20)
        buffer.appendBigEndian(0x0102_03, width: 4)
        #expect(Array(buffer[0..<16]) == Array("0000001234 65535".utf8))
        #expect(Array(buffer[17...]) == [0, 1, 2, 3])
    }

    @Test func roundTripThroughParser() throws {
        let value: PDFObject = .dictionary([
            "Name": .name("with space#and(parens)"), "Str": .string(PDFString(bytes: Array(0...255))),
            "Hex": .string(PDFString(bytes: [1, 2, 3], form: .hex)), "Ref": .reference(PDFReference(5, 0)),
            "Arr": [1, -2, 0.75, .null, true, [[]]], "Real": .real(2.5e-5),
        ])
        var parser = PDFObjectParser(bytes: value.serialized)
        #expect(try parser.parseObject() == value)
    }
}
