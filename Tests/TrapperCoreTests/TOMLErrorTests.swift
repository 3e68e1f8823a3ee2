import Testing
import TrapperCore

/// Broken documents: each error must say what is wrong, in words, at the exact line:column of the
/// problem (columns count Unicode scalars).
@Suite struct TOMLErrorTests {
    /// Parses `text`, expecting failure; returns the error.
    private func failure(_ text: String, limits: TOML.Limits = .init(),
                         sourceLocation: Testing.SourceLocation = #_sourceLocation) -> TOMLError? {
        do {
            let table = try TOML.parse(text, limits: limits)
            Issue.record("expected an error, parsed \(table.keys)", sourceLocation: sourceLocation)
            return nil
        } catch {
            return error
        }
    }

    private func expectError(_ text: String, _ line: Int, _ column: Int, _ message: String,
                             sourceLocation: Testing.SourceLocation = #_sourceLocation) {
        guard let error = failure(text, sourceLocation: sourceLocation) else { return }
        #expect(error.location == TrapperCore.SourceLocation(line: line, column: column), "\(error)",
                sourceLocation: sourceLocation)
        #expect(error.message == message, sourceLocation: sourceLocation)
    }

    @Test func duplicateKeyPointsAtTheSecondAndNamesTheFirst() {
        expectError("name = \"a\"\nother = 1\nname = \"b\"\n", 3, 1, "key \"name\" is already defined at 1:1")
    }

    @Test func duplicateKeyAcrossCRLFLines() {
        expectError("a = 1\r\nb = 1\r\n  a = 2\r\n", 3, 3, "key \"a\" is already defined at 1:1")
    }

    @Test func dottedKeyRedefinition() {
        expectError("site.name = \"x\"\nsite.name = \"y\"\n", 2, 6, "key \"site.name\" is already defined at 1:6")
    }

    @Test func tableDefinedTwiceShowsTheFirstHeader() {
        expectError("[server]\nport = 80\n\n[server]\nhost = \"h\"\n", 4, 2, "table \"server\" is already defined at 1:1")
    }

    @Test func headerCannotReopenADottedTable() {
        expectError("[fruit]\napple.color = \"red\"\n[fruit.apple]\n", 3, 8,
                    "table \"fruit.apple\" is already defined by dotted keys at 2:1")
    }

    @Test func dottedKeyCannotExtendAHeaderTable() {
        expectError("[a.b]\nx = 1\n[a]\nb.y = 2\n", 4, 1,
                    "cannot add to table \"b\" with a dotted key: it is defined by a header at 1:1")
    }

    @Test func dottedKeysClaimATableAHeaderOnlyImplied() throws {
        // [a.b.c] only implies a.b, so dotted keys under [a] may add to it; after that it counts as
        // defined by dotted keys and a header cannot define it.
        _ = try TOML.parse("[a.b.c]\n[a]\nb.d = 1\n")
        expectError("[a.b.c]\n[a]\nb.d = 1\n[a.b]\n", 4, 4, "table \"a.b\" is already defined by dotted keys at 3:1")
    }

    @Test func inlineTableIsClosed() {
        expectError("point = { x = 1 }\npoint.y = 2\n", 2, 1,
                    "cannot add to inline table \"point\" defined at 1:9; an inline table is closed once written")
    }

    @Test func staticArrayIsNotAnArrayOfTables() {
        expectError("jobs = []\n[[jobs]]\n", 2, 3,
                    "cannot append to \"jobs\": it is a static array defined at 1:1, not an array of tables")
    }

    @Test func badEscapeAtTheBackslash() {
        expectError("s = \"ab\\qc\"\n", 1, 8, "invalid escape '\\q' in string")
    }

    @Test func columnsCountUnicodeScalarsNotBytes() {
        // "ключ" is 4 scalars (8 bytes), so the backslash is the 11th scalar. "é" written as e + U+0301 is 2.
        expectError("\"ключ\" = \"\\x\"\n", 1, 11, "invalid escape '\\x' in string")
        expectError("k = \"e\u{301}🙂\\z\"\n", 1, 9, "invalid escape '\\z' in string")
    }

    @Test func byteOrderMarkIsNotAColumn() {
        guard let error = failure("\u{FEFF}a = \"\\q\"\n") else { return }
        #expect(error.location == TrapperCore.SourceLocation(line: 1, column: 6))
    }

    @Test func surrogateEscape() {
        expectError("s = \"\\uD800\"\n", 1, 6,
                    "escape '\\uD800' is not a Unicode scalar value (surrogates and values above 10FFFF are not allowed)")
    }

    @Test func unterminatedStrings() {
        expectError("a = 1\nb = \"open\n", 2, 5, "unterminated string (a \"…\" string must end on the line it starts)")
        expectError("x = \"\"\"\nabc\n", 1, 5, "unterminated multi-line string")
        expectError("x = 'abc", 1, 5, "unterminated string")
    }

    @Test func missingEquals() {
        expectError("name \"x\"\n", 1, 6, "expected '=' after key \"name\", found '\"'")
    }

    @Test func missingValue() {
        expectError("name =\n", 1, 7, "expected a value, found end of line")
        expectError("name = yes\n", 1, 8, "invalid value \"yes\" (strings need quotes)")
    }

    @Test func integerOutOfRange() {
        expectError("n = 9223372036854775808\n", 1, 5, "integer 9223372036854775808 is out of range")
        expectError("n = 0x8000000000000000\n", 1, 5, "integer 0x8000000000000000 is out of range")
    }

    @Test func numberSyntax() {
        expectError("n = 012\n", 1, 5, "leading zeros are not allowed in \"012\"")
        expectError("n = 1__000\n", 1, 5, "an underscore must sit between two digits in \"1__000\"")
        expectError("n = 1.\n", 1, 5, "a float needs digits after the '.' in \"1.\"")
        expectError("n = -0x10\n", 1, 5, "hexadecimal integer \"-0x10\" cannot have a sign")
    }

    @Test func invalidDates() {
        expectError("d = 2023-02-29\n", 1, 5, "invalid date \"2023-02-29\": day must be 01 to 28 in February 2023")
        expectError("t = 07:32\n", 1, 5, "invalid time \"07:32\": expected HH:MM:SS (TOML 1.0 requires the seconds)")
        expectError("d = 1979-05-27T25:00:00Z\n", 1, 5,
                    "invalid date-time \"1979-05-27T25:00:00Z\": hour must be 00 to 23")
    }

    @Test func textAfterAValue() {
        expectError("a = 1 b = 2\n", 1, 7, "expected the end of the line after the value, found 'b'")
    }

    @Test func inlineTableRules() {
        expectError("t = {a = 1, }\n", 1, 11, "a trailing comma is not allowed in an inline table (TOML 1.0)")
        expectError("t = {a = 1,\n b = 2}\n", 1, 12,
                    "an inline table must stay on one line: the '{' at 1:5 is not closed before the end of the line")
    }

    @Test func unclosedArray() {
        expectError("a = [1,\n2,\n", 3, 1, "unterminated array: the '[' at 1:5 is never closed")
    }

    @Test func controlCharacters() {
        expectError("a = 1 # bell\u{07}\n", 1, 13, "control character U+0007 is not allowed in a comment")
        expectError("a = \"tab\tok but not \u{1F}\"\n", 1, 21, "control character U+001F is not allowed in a string; use an escape")
        expectError("a = 1\rb = 2\n", 1, 6, "carriage return must be followed by a line feed")
    }

    @Test func invalidUTF8() throws {
        let bytes: [UInt8] = Array("a = 1\nb = \"".utf8) + [0xC3, 0x28] + Array("\"\n".utf8)
        do {
            _ = try TOML.parse(bytes)
            Issue.record("invalid UTF-8 was accepted")
        } catch {
            #expect(error.location == TrapperCore.SourceLocation(line: 2, column: 6))
            #expect(error.message == "invalid UTF-8 byte 0xC3; TOML files must be UTF-8")
        }
    }

    @Test func sizeLimit() {
        guard let error = failure("a = \"0123456789\"\n", limits: .init(maxBytes: 10)) else { return }
        #expect(error.location == .start)
        #expect(error.message == "the document is 17 bytes, more than the limit of 10")
    }

    @Test func descriptionIsLineColonColumnMessage() {
        let error = TOMLError("key \"a\" is already defined at 3:1", at: TrapperCore.SourceLocation(line: 5, column: 2))
        #expect(error.description == "5:2: key \"a\" is already defined at 3:1")
    }
}
