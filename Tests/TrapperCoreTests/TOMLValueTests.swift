import Testing
import TrapperCore

private typealias Loc = TrapperCore.SourceLocation

private func loc(_ line: Int, _ column: Int) -> Loc { Loc(line: line, column: column) }

private func table(_ node: TOMLNode?, sourceLocation: Testing.SourceLocation = #_sourceLocation) -> TOMLTable {
    guard case .table(let t)? = node?.value else {
        Issue.record("not a table: \(String(describing: node))", sourceLocation: sourceLocation)
        return TOMLTable()
    }
    return t
}

private func array(_ node: TOMLNode?, sourceLocation: Testing.SourceLocation = #_sourceLocation) -> [TOMLNode] {
    guard case .array(let a)? = node?.value else {
        Issue.record("not an array: \(String(describing: node))", sourceLocation: sourceLocation)
        return []
    }
    return a
}

/// Where keys and values are, in what order, what values come out, and the depth limit.
@Suite struct TOMLValueTests {
    static let document = """
        # PDFTrapper
        title = "Scans"
        [server]
        host = "localhost"
        port = 8080
        tags = [ "a",
          "b" ]
        point = { x = 1, y.z = 2 }

        [[job]]
        name = "first"
        [[job]]
        name = "second"

        [a.b.c]
        d = 1
        [a]
        e = 2
        site."ünï".name = 'x'
        """

    @Test func keysAndValuesCarryTheirLocations() throws {
        let root = try TOML.parse(Self.document)
        #expect(root.location == .start)

        let title = try #require(root.entry("title"))
        #expect(title.keyLocation == loc(2, 1))
        #expect(title.node.location == loc(2, 9))
        #expect(title.node.value == .string("Scans"))

        // A [header] table: the entry's key is the name in the header, the table is at its '['.
        let serverEntry = try #require(root.entry("server"))
        #expect(serverEntry.keyLocation == loc(3, 2))
        #expect(serverEntry.node.location == loc(3, 1))
        let server = table(serverEntry.node)
        #expect(server.location == loc(3, 1))
        #expect(server.entry("port")?.keyLocation == loc(5, 1))
        #expect(server["port"] == TOMLNode(.integer(8080), at: loc(5, 8)))

        // Array elements keep their own locations, across lines.
        let tags = array(server["tags"])
        #expect(server["tags"]?.location == loc(6, 8))
        #expect(tags == [TOMLNode(.string("a"), at: loc(6, 10)), TOMLNode(.string("b"), at: loc(7, 3))])

        // Inline table at its '{'; a dotted key inside makes a table where its first part is written.
        let point = table(server["point"])
        #expect(point.location == loc(8, 9))
        #expect(point.keys == ["x", "y"])
        #expect(point.entry("y")?.keyLocation == loc(8, 18))
        #expect(table(point["y"]).location == loc(8, 18))
        #expect(table(point["y"])["z"] == TOMLNode(.integer(2), at: loc(8, 24)))

        // An array of tables: the array at the first [[, each element at its own [[.
        let jobs = array(root["job"])
        #expect(root["job"]?.location == loc(10, 1))
        #expect(root.entry("job")?.keyLocation == loc(10, 3))
        #expect(jobs.map(\.location) == [loc(10, 1), loc(12, 1)])
        #expect(jobs.map { table($0)["name"]?.value } == [.string("first"), .string("second")])

        // [a.b.c] implies a and a.b where it names them; [a] later defines a at its own header.
        let a = table(root["a"])
        #expect(a.location == loc(17, 1))
        #expect(root.entry("a")?.keyLocation == loc(17, 2))
        #expect(a.keys == ["b", "e", "site"])
        #expect(a.entry("b")?.keyLocation == loc(15, 4))
        #expect(table(a["b"]).location == loc(15, 4))
        #expect(table(table(a["b"])["c"]).location == loc(15, 1))

        // Columns count scalars: "ünï" is 3 scalars though 5 bytes; 'x' is after it.
        let site = table(a["site"])
        let named = table(site["ünï"])
        #expect(site.entry("ünï")?.keyLocation == loc(19, 6))
        #expect(named.entry("name")?.keyLocation == loc(19, 12))
        #expect(named["name"] == TOMLNode(.string("x"), at: loc(19, 19)))
    }

    @Test func entriesKeepSourceOrder() throws {
        let root = try TOML.parse("""
            zeta = 1
            alpha = 2
            mid.z = 3
            mid.a = 4
            [later]
            [early]
            [later.sub]
            """)
        #expect(root.keys == ["zeta", "alpha", "mid", "later", "early"])
        #expect(table(root["mid"]).keys == ["z", "a"])
        #expect(table(root["later"]).keys == ["sub"])
    }

    @Test func stringAndBytesAgree() throws {
        #expect(try TOML.parse(Self.document) == TOML.parse(Array(Self.document.utf8)))
    }

    @Test func scalarValues() throws {
        let root = try TOML.parse("""
            hex = 0xDEAD_beef
            oct = 0o755
            bin = 0b1101
            min = -9223372036854775808
            max = 9_223_372_036_854_775_807
            float = -6.626e-34
            pinf = +inf
            ninf = -inf
            nan = nan
            yes = true
            odt = 1979-05-27 07:32:00.123456789999-07:00
            zulu = 1979-05-27t07:32:00z
            ldt = 1979-05-27T07:32:00
            date = 1979-05-27
            time = 00:32:00.5
            """)
        #expect(root["hex"]?.value == .integer(0xDEAD_BEEF))
        #expect(root["oct"]?.value == .integer(0o755))
        #expect(root["bin"]?.value == .integer(13))
        #expect(root["min"]?.value == .integer(Int64.min))
        #expect(root["max"]?.value == .integer(Int64.max))
        #expect(root["float"]?.value == .float(-6.626e-34))
        #expect(root["pinf"]?.value == .float(.infinity))
        #expect(root["ninf"]?.value == .float(-.infinity))
        guard case .float(let nan)? = root["nan"]?.value else { Issue.record("nan"); return }
        #expect(nan.isNaN)
        #expect(root["yes"]?.value == .boolean(true))
        let date = TOMLDate(year: 1979, month: 5, day: 27)
        #expect(root["odt"]?.value == .offsetDateTime(date, TOMLTime(hour: 7, minute: 32, second: 0, nanosecond: 123_456_789),
                                                      offsetMinutes: -420))
        #expect(root["zulu"]?.value == .offsetDateTime(date, TOMLTime(hour: 7, minute: 32, second: 0), offsetMinutes: 0))
        #expect(root["ldt"]?.value == .localDateTime(date, TOMLTime(hour: 7, minute: 32, second: 0)))
        #expect(root["date"]?.value == .localDate(date))
        #expect(root["time"]?.value == .localTime(TOMLTime(hour: 0, minute: 32, second: 0, nanosecond: 500_000_000)))
    }

    @Test func strings() throws {
        let root = try TOML.parse(
            "basic = \"tab\\t quote\\\" u\\u00E9 U\\U0001F600\"\r\n"
            + "literal = 'C:\\path\\n'\r\n"
            + "multi = \"\"\"\r\none\r\ntwo \\\r\n     three\"\"\"\r\n"
            + "quotes = \"\"\"\"\"a\"\"\"\"\"\r\n"
            + "raw = '''\nkeep \\n ''as is'''''\n")
        #expect(root["basic"]?.value == .string("tab\t quote\" u\u{E9} U\u{1F600}"))
        #expect(root["literal"]?.value == .string("C:\\path\\n"))
        // The newline after the opening quotes is dropped, CRLF becomes LF, and a line-ending
        // backslash swallows the break and the indentation.
        #expect(root["multi"]?.value == .string("one\ntwo three"))
        #expect(root["quotes"]?.value == .string("\"\"a\"\""))
        #expect(root["raw"]?.value == .string("keep \\n ''as is''"))
    }

    @Test func byteOrderMarkAtTheStart() throws {
        let root = try TOML.parse([0xEF, 0xBB, 0xBF] + Array("a = 1\n".utf8))
        #expect(root.entry("a")?.keyLocation == loc(1, 1))
    }

    // MARK: Depth

    @Test func tenThousandOpenBracketsIsAnErrorNotACrash() {
        let text = "a = " + String(repeating: "[", count: 10_000)
        do {
            _ = try TOML.parse(text)
            Issue.record("accepted 10,000 nested arrays")
        } catch {
            // The 65th '[' is the one too deep: column 5 + 64.
            #expect(error.location == loc(1, 69))
            #expect(error.message == "nesting is deeper than the limit of 64 tables and arrays")
        }
    }

    @Test func deepInlineTablesHeadersAndDottedKeysAreLimitedToo() {
        let inline = "a = " + String(repeating: "{b = ", count: 10_000)
        let header = "[" + Array(repeating: "t", count: 10_000).joined(separator: ".") + "]"
        let dotted = Array(repeating: "k", count: 10_000).joined(separator: ".") + " = 1"
        for text in [inline, header, dotted] {
            #expect(throws: TOMLError.self) { try TOML.parse(text) }
        }
    }

    @Test func depthCountsEveryLevel() throws {
        let limits = TOML.Limits(maxDepth: 3)
        _ = try TOML.parse("[x]\na = [[1]]\n", limits: limits)      // table, array, array: 3
        #expect(throws: TOMLError.self) { try TOML.parse("[x]\na = [[[1]]]\n", limits: limits) }
        #expect(throws: TOMLError.self) { try TOML.parse("[x.y]\na = { b = [1] }\n", limits: limits) }
        // The default allows 64 levels.
        let ok = "a = " + String(repeating: "[", count: 64) + String(repeating: "]", count: 64)
        _ = try TOML.parse(ok)
    }
}
