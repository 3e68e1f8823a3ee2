import Testing

@testable import TrapperCore

@Suite("PDF lexer and object parser")
struct PDFParserTests {
    func parse(_ text: String) throws -> PDFObject {
        var parser = PDFObjectParser(bytes: Array(text.utf8))
        return try parser.parseObject()
    }

    func parseError(_ bytes: [UInt8]) -> PDFError? {
        var parser = PDFObjectParser(bytes: bytes, baseOffset: 1000)
        do {
            _ = try parser.parseObject()
            return nil
        } catch let error as PDFError {
            return error
        } catch {
            return nil
        }
    }

    @Test func numbers() throws {
        #expect(try parse("17") == 17)
        #expect(try parse("+17") == 17)
        #expect(try parse("-98") == -98)
        #expect(try parse("34.5") == 34.5)
        #expect(try parse("-.002") == .real(-0.002))
        #expect(try parse("4.") == 4.0)
        #expect(try parse(".5") == 0.5)
        #expect(try parse("99999999999999999999") == .real(1e20))
    }

    @Test func commentsAndAllWhitespace() throws {
        let text = "%comment\r\n[\u{0}1\t2\u{0C}3 % inside\n\r4]"
        #expect(try parse(text) == [1, 2, 3, 4])
    }

    @Test func referencesNeedBothNumbersAndR() throws {
        #expect(try parse("[1 0 R 2 0 3 R 4]") == [.reference(PDFReference(1, 0)), 2, .reference(PDFReference(0, 3)), 4])
        #expect(try parse("[1 2]") == [1, 2])
        #expect(try parse("<</A 5 0 R/B 6>>") == .dictionary(["A": .reference(PDFReference(5)), "B": 6]))
    }

    @Test func namesDecodeHashes() throws {
        #expect(try parse("/A#20B") == .name("A B"))
        #expect(try parse("/Lime#20Green") == .name("Lime Green"))
        #expect(try parse("/bad#zz") == .name("bad#zz"))
        #expect(try parse("/") == .name(""))
    }

    @Test func literalStrings() throws {
        #expect(try parse("(a (nested (deep)) b)") == .string(PDFString("a (nested (deep)) b")))
        #expect(try parse("(\\(\\)\\\\\\n\\r\\t\\b\\f)") == .string(PDFString("()\\\n\r\t\u{8}\u{C}")))
        #expect(try parse("(\\053\\53\\0053)") == .string(PDFString("++\u{5}3")))
        #expect(try parse("(line\\\ncontinued)") == .string(PDFString("linecontinued")))
        #expect(try parse("(cr\rcrlf\r\nlf\n)") == .string(PDFString("cr\ncrlf\nlf\n")))
        #expect(try parse("(\\q)") == .string(PDFString("q")))
    }

    @Test func hexStrings() throws {
        #expect(try parse("<48 65 6c6C6F>") == .string(PDFString("Hello")))
        #expect(try parse("<901FA>") == .string(PDFString(bytes: [0x90, 0x1F, 0xA0])))
    }

    @Test func nestedDictionaries() throws {
        let value = try parse("<</Type/Page/Kids[<</A<</B[[1]]>>>>]/Empty<<>>/S(x)>>")
        guard case .dictionary(let dictionary) = value else {
            Issue.record("not a dictionary")
            return
        }
        #expect(dictionary.keys == ["Type", "Kids", "Empty", "S"])
        #expect(dictionary["Empty"] == .dictionary([:]))
    }

    @Test func indirectObjectsAndStreams() throws {
        let bytes = Array("12 0 obj\n<</Length 5>>\r\nstream\r\nhello\nendstream\nendobj".utf8)
        var parser = PDFObjectParser(bytes: bytes, baseOffset: 100)
        let (reference, body) = try parser.parseIndirectObject()
        #expect(reference == PDFReference(12, 0))
        #expect(body == .stream([.length: 5], dataOffset: 100 + 32))
        var plain = PDFObjectParser(bytes: Array("3 1 obj (x) endobj".utf8))
        #expect(try plain.parseIndirectObject() == (PDFReference(3, 1), .object(.string(PDFString("x")))))
    }

    @Test func garbageThrowsWithOffsetNeverCrashes() {
        #expect(parseError(Array("[1 2".utf8)) == .syntax(.parsingObject, offset: 1004, "unterminated array"))
        #expect(parseError(Array("<</A>>".utf8))?.offset == 1004)
        #expect(parseError(Array("(unterminated".utf8))?.offset == 1013)
        #expect(parseError(Array("<zz>".utf8))?.offset == 1001)
        #expect(parseError(Array(")".utf8))?.offset == 1000)
        #expect(parseError(Array("1.2.3".utf8))?.offset == 1000)
        #expect(parseError(Array("<<1 2>>".utf8))?.offset == 1002)
        #expect(parseError(Array(repeating: UInt8(ascii: "["), count: 100_000)) == .tooDeep(.parsingObject, offset: 1256))
        // Random bytes: any outcome but a crash.
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<2000 {
            let length = Int.random(in: 0..<64, using: &generator)
            let alphabet = Array("<<>>[]()/\\ 0123456789.+-Robjstreamendtrue%\n\r#ABCDEF".utf8) + [0, 0xFF]
            let bytes = (0..<length).map { _ in alphabet.randomElement(using: &generator)! }
            _ = parseError(bytes)
            var parser = PDFObjectParser(bytes: bytes)
            _ = try? parser.parseIndirectObject()
        }
    }
}
