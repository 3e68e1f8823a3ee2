import Testing
@testable import TrapperCore

/// JSON read into the TOML tree: the same values, the same locations, and errors a person can act on,
/// each at the line:column of the problem.
@Suite struct JSONReaderTests {
    private func parse(_ text: String, limits: JSONReader.Limits = .init()) throws(TOMLError) -> TOMLTable {
        try JSONReader.parse(Array(text.utf8), limits: limits)
    }

    private func value(_ json: String) throws -> TOMLValue {
        try #require(try parse("{\"v\": \(json)}")["v"]).value
    }

    private func expectError(_ text: String, _ line: Int, _ column: Int, _ message: String,
                             limits: JSONReader.Limits = .init(),
                             sourceLocation: Testing.SourceLocation = #_sourceLocation) {
        do {
            let table = try JSONReader.parse(Array(text.utf8), limits: limits)
            Issue.record("expected an error, parsed \(table.keys)", sourceLocation: sourceLocation)
        } catch {
            #expect(error.location == TrapperCore.SourceLocation(line: line, column: column), "\(error)",
                    sourceLocation: sourceLocation)
            #expect(error.message == message, sourceLocation: sourceLocation)
        }
    }

    @Test func objectsBecomeTablesWithLocations() throws {
        let table = try parse("""
        {
          "target": "a.pdf",
          "edit": [ {"op": "rotate", "degrees": 90},
                    {"op": "undo"} ],
          "purge": false
        }
        """)
        #expect(table.keys == ["target", "edit", "purge"])
        #expect(table.location == .init(line: 1, column: 1))
        #expect(table.entry("target")?.keyLocation == .init(line: 2, column: 3))
        #expect(table["target"] == TOMLNode(.string("a.pdf"), at: .init(line: 2, column: 13)))
        #expect(table["purge"]?.value == .boolean(false))
        guard case .array(let edits)? = table["edit"]?.value, case .table(let second) = edits[1].value else {
            Issue.record("edit is not an array of tables")
            return
        }
        #expect(edits[0].location == .init(line: 3, column: 13))
        #expect(second.location == .init(line: 4, column: 13))
        #expect(second["op"] == TOMLNode(.string("undo"), at: .init(line: 4, column: 20)))
    }

    @Test func emptyContainersAndWhitespace() throws {
        #expect(try parse(" \t\r\n{ } \n").entries.isEmpty)
        #expect(try value("[ ]") == .array([]))
        #expect(try value("{}") == .table(TOMLTable(location: .init(line: 1, column: 7))))
        #expect(try parse("\u{FEFF}{\"a\": 1}")["a"]?.location == .init(line: 1, column: 7))
    }

    @Test func integersStayIntegersAndEverythingElseIsAFloat() throws {
        #expect(try value("42") == .integer(42))
        #expect(try value("-0") == .integer(0))
        #expect(try value("-9223372036854775808") == .integer(.min))
        #expect(try value("1e3") == .float(1000))
        #expect(try value("-0.5") == .float(-0.5))
        #expect(try value("42.0") == .float(42))
        #expect(try value("2.5E-3") == .float(0.0025))
        #expect(try value("1E+2") == .float(100))
    }

    @Test func escapes() throws {
        #expect(try value(#""a\"b\\c\/d\b\f\n\r\t""#) == .string("a\"b\\c/d\u{8}\u{C}\n\r\t"))
        #expect(try value(#""\u00e9\u00E9 é""#) == .string("éé é"))
        #expect(try value(#""\ud83d\ude00 and \uD834\uDD1E""#) == .string("😀 and 𝄞"))
        #expect(try value(#""\u0000""#) == .string("\u{0}"))
        #expect(try parse(#"{"k\u00e9y": 1}"#).keys == ["kéy"])
    }

    @Test func columnsCountCharactersNotBytes() {
        expectError(#"{"é😀": null}"#, 1, 8, "null is not allowed; leave the key out instead")
    }

    @Test func nullIsRefused() {
        expectError("{\n  \"title\": null\n}", 2, 12, "null is not allowed; leave the key out instead")
        expectError(#"{"a": [1, null]}"#, 1, 11, "null is not allowed; leave the key out instead")
    }

    @Test func aKeyWrittenTwiceIsRefused() {
        expectError("{\"op\": \"rotate\",\n \"op\": \"delete\"}", 2, 2, "key \"op\" is already defined at 1:2")
        // The same key in different objects is fine.
        #expect(throws: Never.self) { try parse(#"{"a": {"k": 1}, "b": {"k": 2}}"#) }
    }

    @Test func trailingCommasAreRefused() {
        expectError(#"{"a": [1, 2,]}"#, 1, 12, "a trailing comma is not allowed in JSON")
        expectError("{\"a\": 1,\n}", 1, 8, "a trailing comma is not allowed in JSON")
        expectError(#"{"a": [1,,2]}"#, 1, 10, "expected a value, found ','")
    }

    @Test func nestingIsLimited() throws {
        let deep = String(repeating: "[", count: 100) + String(repeating: "]", count: 100)
        expectError("{\"a\": \(deep)}", 1, 70, "nesting is deeper than the limit of 64 objects and arrays")
        expectError(#"{"a": {"b": [1]}}"#, 1, 13, "nesting is deeper than the limit of 2 objects and arrays",
                    limits: .init(maxDepth: 2))
        #expect(throws: Never.self) { try parse(#"{"a": [1]}"#, limits: .init(maxDepth: 2)) }
        // Far deeper than the stack could take: still an error, not a crash.
        let abyss = "{\"a\": " + String(repeating: "[", count: 200_000)
        #expect(throws: TOMLError.self) { try parse(abyss) }
    }

    @Test func badNumbers() {
        expectError(#"{"a": 012}"#, 1, 7, "leading zeros are not allowed in \"012\"")
        expectError(#"{"a": 1.}"#, 1, 7, "a number needs digits after the '.' in \"1.\"")
        expectError(#"{"a": 1e}"#, 1, 7, "a number needs digits in the exponent of \"1e\"")
        expectError(#"{"a": -}"#, 1, 7, "invalid number \"-\": a '-' must be followed by digits")
        expectError(#"{"a": 12px}"#, 1, 7, "invalid number \"12px\"")
        expectError(#"{"a": 1e999}"#, 1, 7, "the number 1e999 is out of range")
        expectError(#"{"a": 9223372036854775808}"#, 1, 7, "the integer 9223372036854775808 is out of range")
        expectError(#"{"a": +1}"#, 1, 7, "expected a value, found '+'")
        expectError(#"{"a": .5}"#, 1, 7, "expected a value, found '.'")
    }

    @Test func badStrings() {
        expectError(#"{"a": "\x"}"#, 1, 8,
                    #"'\' followed by 'x' is not an escape; JSON has \" \\ \/ \b \f \n \r \t and \uXXXX"#)
        expectError(#"{"a": "\u12"}"#, 1, 8, #"\u needs four hexadecimal digits"#)
        expectError(#"{"a": "\ud83d"}"#, 1, 8, #"\uD83D is the first half of a surrogate pair; a \uDC00-\uDFFF must follow"#)
        expectError(#"{"a": "\ud83d\u0041"}"#, 1, 8, #"\uD83D is the first half of a surrogate pair; a \uDC00-\uDFFF must follow"#)
        expectError(#"{"a": "\ude00"}"#, 1, 8, #"\uDE00 is the second half of a surrogate pair, with no first half before it"#)
        expectError("{\"a\": \"one\ntwo\"}", 1, 7,
                    #"unterminated string (a JSON string ends on the line it starts; write \n for a line break)"#)
        expectError("{\"a\": \"tab\there\"}", 1, 11, "tab is not allowed in a string; use an escape")
        expectError("{\"a\": \"\u{1}\"}", 1, 8, "control character U+0001 is not allowed in a string; use an escape")
        expectError(#"{"a": "open"#, 1, 7, "unterminated string")
        expectError(#"{"a": 'single'}"#, 1, 7, "JSON strings take double quotes (\"…\"), not single ones")
    }

    @Test func invalidUTF8IsRefusedWhereverItIs() {
        for (bytes, column, message) in [
            (Array(#"{"a": ""#.utf8) + [0xC3, 0x28] + Array(#""}"#.utf8), 8, "invalid UTF-8 byte 0xC3; JSON must be UTF-8"),
            (Array(#"{"a": ""#.utf8) + [0xED, 0xA0, 0x80] + Array(#""}"#.utf8), 8, "invalid UTF-8 byte 0xED; JSON must be UTF-8"),
            (Array(#"{"a": "#.utf8) + [0xFF] + Array("}".utf8), 7, "expected a value, found invalid UTF-8 byte 0xFF"),
        ] {
            do {
                _ = try JSONReader.parse(bytes)
                Issue.record("parsed \(bytes)")
            } catch {
                #expect(error.location == .init(line: 1, column: column) && error.message == message, "\(error)")
            }
        }
    }

    @Test func structureErrors() {
        expectError("", 1, 1, "the document must be a JSON object ({ … }), found end of file")
        expectError("[1]", 1, 1, "the document must be a JSON object ({ … }), found '['")
        expectError(#"{"a": 1} {"b": 2}"#, 1, 10, "expected the end of the document after the top-level object, found '{'")
        expectError("{\"a\": [1, 2\n", 2, 1, "the '[' at 1:7 is never closed")
        expectError("{\"a\": 1", 1, 8, "the '{' at 1:1 is never closed")
        expectError(#"{"a": 1 "b": 2}"#, 1, 9, "expected ',' or '}' after a value in the object, found '\"'")
        expectError(#"{"a": [1 2]}"#, 1, 10, "expected ',' or ']' after a value in the array, found '2'")
        expectError(#"{a: 1}"#, 1, 2, "expected a key in double quotes, found 'a'")
        expectError(#"{"a" 1}"#, 1, 6, "expected ':' after the key \"a\", found '1'")
        expectError(#"{"a": True}"#, 1, 7, "invalid value \"True\" (strings need double quotes)")
        expectError(#"{"a": }"#, 1, 7, "expected a value, found '}'")
        expectError("{\"a\": 1,\u{A0}\"b\": 2}", 1, 9, "expected a key in double quotes, found U+00A0")
        expectError(#"{"a": é}"#, 1, 7, "expected a value, found 'é' (U+00E9)")
    }

    @Test func tooLargeIsRefusedBeforeParsing() {
        expectError("{\"a\": \"" + String(repeating: "x", count: 100) + "\"}", 1, 1,
                    "the document is 109 bytes, more than the limit of 100", limits: .init(maxBytes: 100))
    }
}
