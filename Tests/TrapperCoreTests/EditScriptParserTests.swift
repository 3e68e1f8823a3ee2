import Foundation
import Testing
@testable import TrapperCore

/// Edit scripts as users write them, in TOML and in JSON: what they mean, and every way they can be
/// wrong, each said at its FILE:LINE:COL.
@Suite struct EditScriptParserTests {
    static let root = "/srv/library"

    private func parse(_ text: String, file: String = "s.toml") throws(EditScriptError) -> EditScript {
        try EditScriptParser.parse(Array(text.utf8), file: file, libraryRoot: Self.root)
    }

    /// The diagnostics a script gets, one `FILE:LINE:COL: message` each.
    private func problems(_ text: String, file: String = "s.toml",
                          sourceLocation: Testing.SourceLocation = #_sourceLocation) -> [String] {
        do {
            let script = try parse(text, file: file)
            Issue.record("expected problems, parsed \(script)", sourceLocation: sourceLocation)
            return []
        } catch {
            return error.diagnostics.map(\.description)
        }
    }

    private func operations(_ edits: String, units: String = "pt") throws -> [EditOperation] {
        try parse("target = \"a.pdf\"\nunits = \"\(units)\"\n" + edits).edits.map(\.operation)
    }

    /// The same script without what differs between its TOML and its JSON form: its name and places.
    private func placeless(_ script: EditScript) -> EditScript {
        var script = script
        script.file = ""
        script.edits = script.edits.map { Edit(index: $0.index, location: .start, operation: $0.operation) }
        return script
    }

    // MARK: valid scripts

    /// A byte offset is named as one: base_end; base_revision, its old name, is still read, not both.
    @Test func baseEndIsReadAndItsOldNameToo() throws {
        let script = { (text: String) in
            try EditScriptParser.parse(Array(text.utf8), file: "e.toml", libraryRoot: "/srv/library")
        }
        let edit = "[[edit]]\nop = \"rotate\"\npages = \"1\"\ndegrees = 90\n"
        #expect(try script("target = \"a.pdf\"\nbase_end = 512\n" + edit).baseEnd == 512)
        #expect(try script("target = \"a.pdf\"\nbase_revision = 512\n" + edit).baseEnd == 512)
        #expect(problems("target = \"a.pdf\"\nbase_end = 512\nbase_revision = 512\n" + edit, file: "e.toml")
                == ["e.toml:3:17: base_revision is the old name of base_end; write base_end only"])
    }

    /// base_revision as a string names the revision itself (END-HASH, as history shows it);
    /// anything else in a string is refused with what is expected.
    @Test func baseRevisionNamesTheRevisionItself() throws {
        let edit = "[[edit]]\nop = \"rotate\"\npages = \"1\"\ndegrees = 90\n"
        let script = try EditScriptParser.parse(Array("target = \"a.pdf\"\nbase_revision = \"512-0123456789abcdef\"\n\(edit)".utf8),
                                                file: "e.toml", libraryRoot: "/srv/library")
        #expect(script.baseRevision == "512-0123456789abcdef")
        #expect(script.baseEnd == nil)
        #expect(RevisionID("512-0123456789abcdef") == RevisionID(end: 512, sha256Hex: "0123456789abcdef0011"))
        #expect(problems("target = \"a.pdf\"\nbase_revision = \"512\"\n" + edit, file: "e.toml")
                == ["e.toml:2:17: base_revision must be a revision as pdftrapper history shows it (END-HASH), not the string \"512\""])
        for bad in ["", "512", "-0123456789abcdef", "512-0123456789ABCDEF", "512-0123", "x-0123456789abcdef", "1-2-3"] {
            #expect(RevisionID(bad) == nil, "\(bad)")
        }
    }

    @Test func tomlAndJSONMeanTheSame() throws {
        let toml = """
        target = "Letters/2026/bank.pdf"
        units = "mm"
        origin = "top-left"
        base_end = 18234
        on_conflict = "apply"
        purge = true

        [[edit]]
        op = "rotate"
        pages = "1-3, 5, last"
        degrees = -90

        [[edit]]
        op = "move"
        pages = [4, 2]
        to = "end"

        [[edit]]
        op = "insert-blank"
        after = 0
        size = [210, 297.5]

        [[edit]]
        op = "extract"
        pages = "odd"
        into = "Extracts/{date}-{seq}.pdf"

        [[edit]]
        op = "crop"
        box = [10, 10.5, 200, 287]

        [[edit]]
        op = "metadata"
        title = "Bank, März"
        keywords = ""

        [[edit]]
        op = "bookmark"
        title = "Statement"
        page = 2
        """
        let json = """
        {
          "target": "Letters/2026/bank.pdf", "units": "mm", "origin": "top-left",
          "base_end": 18234, "on_conflict": "apply", "purge": true,
          "edit": [
            {"op": "rotate", "pages": "1-3, 5, last", "degrees": -90},
            {"op": "move", "pages": [4, 2], "to": "end"},
            {"op": "insert-blank", "after": 0, "size": [210, 297.5]},
            {"op": "extract", "pages": "odd", "into": "Extracts/{date}-{seq}.pdf"},
            {"op": "crop", "box": [10, 10.5, 200, 287]},
            {"op": "metadata", "title": "Bank, M\\u00e4rz", "keywords": ""},
            {"op": "bookmark", "title": "Statement", "page": 2}
          ]
        }
        """
        let fromTOML = try parse(toml, file: "edits/bank.toml")
        let fromJSON = try parse(json, file: "edits/bank.JSON")
        #expect(placeless(fromTOML) == placeless(fromJSON))

        #expect(fromTOML.file == "edits/bank.toml")
        #expect(fromTOML.target == "/srv/library/Letters/2026/bank.pdf")
        #expect(fromTOML.units == .mm && fromTOML.origin == .topLeft)
        #expect(fromTOML.baseEnd == 18234 && fromTOML.onConflict == .apply && fromTOML.purge == true)
        #expect(fromTOML.edits.map(\.index) == Array(1...7))
        #expect(fromTOML.edits.map(\.location.line) == [8, 13, 18, 23, 28, 32, 37])
        #expect(fromJSON.edits.map(\.location) == (5...11).map { SourceLocation(line: $0, column: 5) })
        #expect(fromTOML.edits.map(\.operation) == [
            .rotate(pages: PageSelection(parts: [.range(.page(1), .page(3)), .single(.page(5)), .single(.last)],
                                         text: "1-3, 5, last"), degrees: -90),
            .move(pages: PageSelection(pages: [4, 2]), to: .end),
            .insertBlank(after: 0, size: .custom(width: 210, height: 297.5)),
            .extract(pages: PageSelection(parts: [.odd], text: "odd"), into: try PathTemplate("Extracts/{date}-{seq}.pdf")),
            .crop(pages: .all, box: ScriptBox(10, 10.5, 200, 287)),
            .metadata(title: "Bank, März", author: nil, subject: nil, keywords: ""),
            .bookmark(title: "Statement", page: 2),
        ])
    }

    @Test func topLevelDefaults() throws {
        let script = try parse("target = \"a.pdf\"\n[[edit]]\nop = \"delete\"\npages = 3\n", file: "/in/edits/x.toml")
        #expect(script == EditScript(file: "/in/edits/x.toml", target: "/srv/library/a.pdf", units: .pt, origin: .bottomLeft,
                                     baseEnd: nil, onConflict: .fail, purge: nil,
                                     edits: [Edit(index: 1, location: .init(line: 2, column: 1),
                                                  operation: .delete(pages: PageSelection(pages: [3])))]))
    }

    @Test func eachOpWithItsDefaults() throws {
        #expect(try operations("[[edit]]\nop = \"rotate\"\ndegrees = 90\n") == [.rotate(pages: .all, degrees: 90)])
        #expect(try operations("[[edit]]\nop = \"rotate\"\ndegrees = 270\npages = \"even\"\n")
                == [.rotate(pages: PageSelection(parts: [.even], text: "even"), degrees: 270)])
        #expect(try operations("[[edit]]\nop = \"delete\"\npages = \"2-last\"\n")
                == [.delete(pages: PageSelection(parts: [.range(.page(2), .last)], text: "2-last"))])
        #expect(try operations("[[edit]]\nop = \"move\"\npages = 3\nto = 1\n")
                == [.move(pages: PageSelection(pages: [3]), to: .before(1))])
        #expect(try operations("[[edit]]\nop = \"insert-blank\"\nafter = 4\n") == [.insertBlank(after: 4, size: nil)])
        #expect(try operations("[[edit]]\nop = \"duplicate\"\npages = \"all\"\n") == [.duplicate(pages: .all)])
        #expect(try operations("[[edit]]\nop = \"crop\"\nbox = [0, 0, 500, 700]\npages = 1\n")
                == [.crop(pages: PageSelection(pages: [1]), box: ScriptBox(0, 0, 500, 700))])
        #expect(try operations("[[edit]]\nop = \"metadata\"\nauthor = \"Ann\"\nsubject = \"Tax\"\n")
                == [.metadata(title: nil, author: "Ann", subject: "Tax", keywords: nil)])
        #expect(try operations("[[edit]]\nop = \"undo\"\n") == [.undo(steps: 1)])
        #expect(try operations("[[edit]]\nop = \"redo\"\nsteps = 3\n") == [.redo(steps: 3)])
    }

    @Test func paperSizesAreInPointsAndCustomSizesInTheScriptsUnits() throws {
        func size(_ written: String, units: String = "pt") throws -> PageSize? {
            guard case .insertBlank(_, let size) = try operations("[[edit]]\nop = \"insert-blank\"\nafter = 1\nsize = \(written)\n",
                                                                  units: units)[0] else { return nil }
            return size
        }
        #expect(try size("\"A4\"") == .named("A4", width: 210 * LengthUnit.mm.points, height: 297 * LengthUnit.mm.points))
        #expect(try size("\"a5\"") == .named("A5", width: 148 * LengthUnit.mm.points, height: 210 * LengthUnit.mm.points))
        #expect(try size("\"A3\"") == .named("A3", width: 297 * LengthUnit.mm.points, height: 420 * LengthUnit.mm.points))
        #expect(try size("\"letter\"") == .named("Letter", width: 612, height: 792))
        #expect(try size("\"Legal\"", units: "in") == .named("Legal", width: 612, height: 1008))
        #expect(try size("[8.5, 11]", units: "in") == .custom(width: 8.5, height: 11))
    }

    @Test func unitsAndOriginAreReadAsWritten() throws {
        for unit in LengthUnit.allCases {
            #expect(try parse("target = \"a.pdf\"\nunits = \"\(unit.rawValue)\"\n[[edit]]\nop = \"undo\"\n").units == unit)
        }
        for origin in Origin.allCases {
            #expect(try parse("target = \"a.pdf\"\norigin = \"\(origin.rawValue)\"\n[[edit]]\nop = \"undo\"\n").origin == origin)
        }
    }

    @Test(arguments: [
        ("Letters/a.pdf", "/srv/library/Letters/a.pdf"),
        ("a.PDF", "/srv/library/a.PDF"),
        ("./Letters//2026/../a.pdf", "/srv/library/Letters/a.pdf"),
        ("Letters/a.pdf/", "/srv/library/Letters/a.pdf"),
    ])
    func targetsAreBelowTheLibraryRoot(written: String, resolved: String) throws {
        #expect(try parse("target = \"\(written)\"\n[[edit]]\nop = \"undo\"\n").target == resolved)
    }

    @Test(arguments: [
        ("../x.pdf", #"target "../x.pdf" climbs out of the library root with '..'"#),
        ("a/../../x.pdf", #"target "a/../../x.pdf" climbs out of the library root with '..'"#),
        ("/etc/x.pdf", #"target must be relative to the library root, not an absolute path ("/etc/x.pdf")"#),
        ("~/x.pdf", #"target must be relative to the library root, not start with '~' ("~/x.pdf")"#),
        ("a.txt", #"target must name a .pdf file, not "a.txt""#),
        ("Letters", #"target must name a .pdf file, not "Letters""#),
        ("a/..", #"target must name a .pdf file, not "a/..""#),
        ("", "target must not be empty"),
        (".pdftrapper/a.pdf",
         #"target ".pdftrapper/a.pdf" names a hidden file or folder (".pdftrapper"), where the library keeps its own state"#),
    ])
    func targetsOutsideOrNotPDFAreRefused(written: String, message: String) {
        #expect(problems("target = \"\(written)\"\n[[edit]]\nop = \"undo\"\n") == ["s.toml:1:10: \(message)"])
    }

    // MARK: page lists

    @Test(arguments: [
        ("5", [PageSelection.Part.single(.page(5))]),
        ("last", [.single(.last)]),
        ("all", [.range(.page(1), .last)]),
        ("odd", [.odd]),
        ("even", [.even]),
        ("2-last", [.range(.page(2), .last)]),
        ("1-3,5,last", [.range(.page(1), .page(3)), .single(.page(5)), .single(.last)]),
        (" 1 - 3 ,\t5 , odd ", [.range(.page(1), .page(3)), .single(.page(5)), .odd]),
        ("4-4,1,1", [.range(.page(4), .page(4)), .single(.page(1)), .single(.page(1))]),
    ])
    func pageListsAreRead(text: String, parts: [PageSelection.Part]) throws {
        let selection = try PageSelection(parsing: text)
        #expect(selection.parts == parts)
        #expect(selection.text == text && selection.description == text)
    }

    @Test(arguments: [
        ("", 0, "the page list is empty"),
        ("  ", 0, "the page list is empty"),
        ("0", 0, "pages are numbered from 1, so there is no page 0"),
        ("2,0-3", 2, "pages are numbered from 1, so there is no page 0"),
        ("3-1", 0, "the range 3-1 runs backwards (write 1-3)"),
        ("1-", 1, "the range \"1-\" has no end (write \"1-last\" for every page from 1 on)"),
        ("-2", 0, "a range needs a first page before its '-', as in \"1-3\""),
        ("last-3", 0, "a range cannot start at \"last\"; ranges run forwards, as in \"3-last\""),
        ("1,,2", 2, "nothing stands between two commas"),
        ("1,", 1, "nothing follows the last ','"),
        (",1", 0, "nothing comes before the first ','"),
        ("1, lst", 3, "\"lst\" is not a page number, a range such as \"2-5\" or one of all, odd, even, last (did you mean \"last\"?)"),
        ("All", 0, "\"All\" is not a page number, a range such as \"2-5\" or one of all, odd, even, last (did you mean \"all\"?)"),
        ("pages 1 to 3", 0, "\"pages 1 to 3\" is not a page number, a range such as \"2-5\" or one of all, odd, even, last"),
        ("1-odd", 2, "\"odd\" cannot be one end of a range"),
        ("1-2-3", 2, "\"2-3\" is not a page number, a range such as \"2-5\" or one of all, odd, even, last"),
        ("99999999999999999999", 0, "page 99999999999999999999 is beyond the limit of 1000000 pages"),
    ])
    func badPageListsPointIntoTheString(text: String, offset: Int, message: String) {
        #expect(throws: PageSelection.Problem(offset: offset, message: message)) { try PageSelection(parsing: text) }
    }

    @Test(arguments: [
        ("all", 3, [0, 1, 2]),
        ("all", 0, []),
        ("odd", 5, [0, 2, 4]),
        ("even", 5, [1, 3]),
        ("odd", 0, []),
        ("even", 1, []),
        ("last", 7, [6]),
        ("2-last", 4, [1, 2, 3]),
        ("2-last", 1, []),
        ("5,1-3,2,last", 6, [0, 1, 2, 4, 5]),
        ("odd,even", 3, [0, 1, 2]),
    ])
    func selectionsResolveToIndexesInDocumentOrder(text: String, pageCount: Int, indexes: [Int]) throws {
        #expect(try PageSelection(parsing: text).resolve(pageCount: pageCount) == indexes)
    }

    @Test(arguments: [
        ("1-12", 10, "page 12 of a 10-page document"),
        ("12", 10, "page 12 of a 10-page document"),
        ("3-last", 1, "page 3 of a 1-page document"),
        ("1", 0, "page 1 of an empty document"),
        ("last", 0, "there is no last page in an empty document"),
    ])
    func selectionsBeyondTheDocumentAreErrors(text: String, pageCount: Int, message: String) {
        #expect(throws: PageSelection.ResolveError(message)) { try PageSelection(parsing: text).resolve(pageCount: pageCount) }
    }

    @Test func selectionsBuiltInCodeAreCheckedToo() throws {
        let backwards = PageSelection(parts: [.range(.last, .page(3))], text: "last-3")
        #expect(throws: PageSelection.ResolveError("the range last-3 runs backwards in a 5-page document")) {
            try backwards.resolve(pageCount: 5)
        }
        #expect(try backwards.resolve(pageCount: 3) == [2])
        #expect(throws: PageSelection.ResolveError("pages are numbered from 1, so there is no page 0")) {
            try PageSelection(pages: [0]).resolve(pageCount: 5)
        }
    }

    @Test func pagesMayBeIntegers() throws {
        #expect(try operations("[[edit]]\nop = \"delete\"\npages = [1, 4]\n") == [.delete(pages: PageSelection(pages: [1, 4]))])
        #expect(PageSelection(pages: [1, 4]).text == "1,4")
        #expect(problems("target = \"a.pdf\"\n[[edit]]\nop = \"delete\"\npages = [1, 0, \"x\"]\n") == [
            "s.toml:4:13: edit[1].pages: pages are numbered from 1, so there is no page 0",
            "s.toml:4:16: edit[1].pages must be a page number, not the string \"x\"",
        ])
        #expect(problems("target = \"a.pdf\"\n[[edit]]\nop = \"delete\"\npages = []\n")
                == ["s.toml:4:9: edit[1].pages: the page list is empty"])
        #expect(problems("target = \"a.pdf\"\n[[edit]]\nop = \"delete\"\npages = 2000000\n")
                == ["s.toml:4:9: edit[1].pages: page 2000000 is beyond the limit of 1000000 pages"])
        #expect(problems("target = \"a.pdf\"\n[[edit]]\nop = \"delete\"\npages = 1.5\n")
                == [#"s.toml:4:9: edit[1].pages must be a page list such as "1-3,5,last", a page number or an array of page numbers, not the float 1.5"#])
    }

    // MARK: errors

    @Test func everyProblemIsReportedTogetherInSourceOrder() {
        let toml = """
        target = "../a.pdf"
        unit = "mm"
        origin = "middle"
        base_revision = -1

        [[edit]]
        op = "rotate"
        pages = "3-1"
        degrees = 45
        angle = 2

        [[edit]]
        op = "rotat"

        [[edit]]
        op = "ink"

        [[edit]]
        pages = 1
        """
        #expect(problems(toml, file: "edits/x.toml") == [
            #"edits/x.toml:1:10: target "../a.pdf" climbs out of the library root with '..'"#,
            #"edits/x.toml:2:1: unknown key "unit" at the top level (did you mean "units"?)"#,
            #"edits/x.toml:3:10: origin must be one of "bottom-left", "top-left", not "middle""#,
            #"edits/x.toml:4:17: base_revision must be a byte offset (where pdftrapper history says the revision ends) from 0 to 9223372036854775807, not the integer -1"#,
            #"edits/x.toml:8:10: edit[1].pages: the range 3-1 runs backwards (write 1-3)"#,
            #"edits/x.toml:9:11: edit[1].degrees must be a non-zero multiple of 90 from -270 to 270, not the integer 45"#,
            #"edits/x.toml:10:1: unknown key "angle" in [edit[1]] (rotate takes pages, degrees)"#,
            #"edits/x.toml:13:6: edit[2].op: unknown op "rotat" (did you mean "rotate"?); the ops are rotate, delete, move, insert-blank, duplicate, extract, crop, metadata, bookmark, reframe, undo, redo, highlight, underline, strikeout, squiggly, ink, rect, oval, line, arrow, textbox, note, polygon, signature, erase, loupe, change"#,
            #"edits/x.toml:15:1: edit[3] (ink) is missing the required key "page""#,
            #"edits/x.toml:15:1: edit[3] (ink) is missing the required key "strokes""#,
            #"edits/x.toml:18:1: edit[4] is missing the required key "op" (one of rotate, delete, move, insert-blank, duplicate, extract, crop, metadata, bookmark, reframe, undo, redo, highlight, underline, strikeout, squiggly, ink, rect, oval, line, arrow, textbox, note, polygon, signature, erase, loupe, change)"#,
        ])
    }

    @Test func jsonErrorsCarryLineAndColumnToo() {
        let json = """
        {
          "target": "a.txt",
          "units": "cm",
          "edit": [
            {"op": "delete"},
            {"op": "crop", "box": [0, 0, 100], "pages": "1-"},
            {"op": "bookmark", "title": "", "page": 0, "titel": "x"}
          ]
        }
        """
        #expect(problems(json, file: "x.json") == [
            #"x.json:2:13: target must name a .pdf file, not "a.txt""#,
            #"x.json:3:12: units must be one of "pt", "mm", "in", not "cm" (did you mean "mm"?)"#,
            #"x.json:5:5: edit[1] (delete) is missing the required key "pages""#,
            #"x.json:6:27: edit[2].box must be [x0, y0, x1, y1], 4 numbers in pt, not an array"#,
            #"x.json:6:51: edit[2].pages: the range "1-" has no end (write "1-last" for every page from 1 on)"#,
            #"x.json:7:33: edit[3].title must not be empty"#,
            #"x.json:7:45: edit[3].page must be a page number from 1 to 1000000, not the integer 0"#,
            #"x.json:7:48: unknown key "titel" in [edit[3]] (did you mean "title"?)"#,
        ])
        #expect(problems("{\"target\": \"a.pdf\",\n \"edit\": [{\"op\": null}]}", file: "x.json")
                == ["x.json:2:18: null is not allowed; leave the key out instead"])
    }

    @Test func requiredKeysOfEachOp() {
        let cases: [(String, String)] = [
            ("rotate", "degrees"), ("delete", "pages"), ("move", "pages"), ("insert-blank", "after"), ("duplicate", "pages"),
            ("extract", "pages"), ("crop", "box"), ("bookmark", "title"),
        ]
        for (op, key) in cases {
            #expect(problems("target = \"a.pdf\"\n[[edit]]\nop = \"\(op)\"\n").first
                    == "s.toml:2:1: edit[1] (\(op)) is missing the required key \"\(key)\"")
        }
        #expect(problems("target = \"a.pdf\"\n[[edit]]\nop = \"move\"\npages = 1\n")
                == [#"s.toml:2:1: edit[1] (move) is missing the required key "to""#])
        #expect(problems("target = \"a.pdf\"\n[[edit]]\nop = \"extract\"\npages = 1\n")
                == [#"s.toml:2:1: edit[1] (extract) is missing the required key "into""#])
        #expect(problems("target = \"a.pdf\"\n[[edit]]\nop = \"bookmark\"\ntitle = \"T\"\n")
                == [#"s.toml:2:1: edit[1] (bookmark) is missing the required key "page""#])
        #expect(problems("target = \"a.pdf\"\n[[edit]]\nop = \"metadata\"\n")
                == ["s.toml:2:1: edit[1] (metadata) sets nothing: give at least one of title, author, subject, keywords"])
        #expect(problems("[[edit]]\nop = \"undo\"\n") == [#"s.toml:1:1: the script is missing the required key "target""#])
    }

    @Test func valuesOfEachOpAreChecked() {
        let base = "target = \"a.pdf\"\n[[edit]]\n"
        let cases: [(String, String)] = [
            ("op = \"rotate\"\ndegrees = 0", #"4:11: edit[1].degrees must be a non-zero multiple of 90 from -270 to 270, not the integer 0"#),
            ("op = \"rotate\"\ndegrees = 360", #"4:11: edit[1].degrees must be a non-zero multiple of 90 from -270 to 270, not the integer 360"#),
            ("op = \"rotate\"\ndegrees = 90.0", #"4:11: edit[1].degrees must be a non-zero multiple of 90 from -270 to 270, not the float 90.0"#),
            ("op = \"move\"\npages = 1\nto = 0", #"5:6: edit[1].to must be a page number from 1 to 1000000 or "end", not the integer 0"#),
            ("op = \"move\"\npages = 1\nto = \"start\"", #"5:6: edit[1].to must be a page number from 1 to 1000000 or "end", not the string "start""#),
            ("op = \"insert-blank\"\nafter = -1", #"4:9: edit[1].after must be a page number from 0 to 1000000, not the integer -1"#),
            ("op = \"insert-blank\"\nafter = 1\nsize = \"A6\"",
             #"5:8: edit[1].size must be one of "A3", "A4", "A5", "Letter", "Legal" or [width, height], not "A6" (did you mean "A3"?)"#),
            ("op = \"insert-blank\"\nafter = 1\nsize = [0, 100]", #"5:9: edit[1].size[1] (width) must be more than 0, not 0"#),
            ("op = \"insert-blank\"\nafter = 1\nsize = 5", #"5:8: edit[1].size must be [width, height], 2 numbers in pt, not the integer 5"#),
            ("op = \"extract\"\npages = 1\ninto = \"out.txt\"", #"5:8: edit[1].into must name a .pdf file, as in "out.txt.pdf""#),
            ("op = \"extract\"\npages = 1\ninto = \"Out/{yeer}.pdf\"", #"5:13: edit[1].into: unknown placeholder {yeer} (did you mean {year}?)"#),
            ("op = \"extract\"\npages = 1\ninto = \"../x.pdf\"", #"5:9: edit[1].into: must not climb out with '..'"#),
            ("op = \"crop\"\nbox = [100, 0, 50, 10]", #"4:7: edit[1].box: x0 (100) must be less than x1 (50)"#),
            ("op = \"crop\"\nbox = [0, 10, 50, 10]", #"4:7: edit[1].box: y0 (10) must be less than y1 (10)"#),
            ("op = \"crop\"\nbox = [0, 0, \"50\", 10]", #"4:14: edit[1].box[3] (x1) must be a number, not the string "50""#),
            ("op = \"crop\"\nbox = [0, 0, inf, 10]", #"4:14: edit[1].box[3] (x1) must be a finite number, not inf"#),
            ("op = \"crop\"\nbox = [0, nan, 10, 10]", #"4:11: edit[1].box[2] (y0) must be a finite number, not nan"#),
            ("op = \"crop\"\nbox = [0, 0, 20000, 10]", #"4:14: edit[1].box[3] (x1) is 20000 pt, beyond the 14400 pt (200 in) a PDF page can span"#),
            ("op = \"crop\"\nbox = [-14401, 0, 10, 10]", #"4:8: edit[1].box[1] (x0) is -14401 pt, beyond the 14400 pt (200 in) a PDF page can span"#),
            ("op = \"metadata\"\ntitle = 5", #"4:9: edit[1].title must be a string, not the integer 5"#),
            ("op = \"bookmark\"\ntitle = \"T\"\npage = \"2\"", #"5:8: edit[1].page must be a page number from 1 to 1000000, not the string "2""#),
            ("op = \"undo\"\nsteps = 0", #"4:9: edit[1].steps must be a number of steps from 1 to 10000, not the integer 0"#),
            ("op = \"undo\"\npages = 1", #"4:1: unknown key "pages" in [edit[1]] (undo takes steps)"#),
            ("op = \"insert-blank\"\nafter = 1\npage = 1", #"5:1: unknown key "page" in [edit[1]] (insert-blank takes after, size)"#),
            ("op = 5", #"3:6: edit[1].op must be a string, not the integer 5"#),
        ]
        for (edit, problem) in cases {
            #expect(problems(base + edit + "\n") == ["s.toml:\(problem)"], "\(edit)")
        }
    }

    @Test func lengthsAreLimitedAfterConversion() throws {
        #expect(try operations("[[edit]]\nop = \"crop\"\nbox = [0, 0, 200, 200]\n", units: "in")
                == [.crop(pages: .all, box: ScriptBox(0, 0, 200, 200))])
        #expect(problems("target = \"a.pdf\"\nunits = \"in\"\n[[edit]]\nop = \"crop\"\nbox = [0, 0, 201, 10]\n")
                == ["s.toml:5:14: edit[1].box[3] (x1) is 14472 pt (201 in), beyond the 14400 pt (200 in) a PDF page can span"])
        #expect(problems("target = \"a.pdf\"\nunits = \"mm\"\n[[edit]]\nop = \"insert-blank\"\nafter = 0\nsize = [210, 5100]\n")
                == ["s.toml:6:14: edit[1].size[2] (height) is 14456.69 pt (5100 mm), beyond the 14400 pt (200 in) a PDF page can span"])
    }

    @Test func otherTopLevelValuesAreChecked() {
        let edit = "[[edit]]\nop = \"undo\"\n"
        #expect(problems("target = \"a.pdf\"\non_conflict = \"merge\"\n" + edit)
                == [#"s.toml:2:15: on_conflict must be one of "fail", "apply", not "merge""#])
        #expect(problems("target = \"a.pdf\"\npurge = \"yes\"\n" + edit)
                == [#"s.toml:2:9: purge must be true or false, not the string "yes""#])
        #expect(problems("target = 5\n" + edit) == [#"s.toml:1:10: target must be a string, not the integer 5"#])
        #expect(problems("target = \"a.pdf\"\nunits = \"mmm\"\n" + edit)
                == [#"s.toml:2:9: units must be one of "pt", "mm", "in", not "mmm" (did you mean "mm"?)"#])
    }

    @Test func aScriptNeedsEdits() {
        #expect(problems("target = \"a.pdf\"\n") == ["s.toml:1:1: the script has no edits: add an [[edit]] table with an op"])
        #expect(problems("target = \"a.pdf\"\nedit = []\n") == ["s.toml:2:8: the script has no edits: add an [[edit]] table with an op"])
        #expect(problems(#"{"target": "a.pdf", "edit": []}"#, file: "s.json")
                == [#"s.json:1:29: the script has no edits: add "edit": [{"op": …}]"#])
        #expect(problems(#"{"target": "a.pdf", "edit": {"op": "undo"}}"#, file: "s.json")
                == [#"s.json:1:29: edit must be a list of edits (an array of objects), not a table"#])
        #expect(problems(#"{"target": "a.pdf", "edit": ["undo"]}"#, file: "s.json")
                == [#"s.json:1:30: edit must be an object, not the string "undo""#])
        #expect(problems(#"{"target": "a.pdf", "edits": [{"op": "undo"}]}"#, file: "s.json") == [
            #"s.json:1:1: the script has no edits: add "edit": [{"op": …}]"#,
            #"s.json:1:21: unknown key "edits" at the top level (did you mean "edit"?)"#,
        ])
    }

    @Test func markupOpsNameWhatTheyMiss() {
        #expect(problems("target = \"a.pdf\"\n[[edit]]\nop = \"highlight\"\npage = 1\n")
                == [#"s.toml:2:1: edit[1] (highlight) needs "rects" (boxes to mark) or "text" (words to find on the page)"#])
        #expect(problems("target = \"a.pdf\"\n[[edit]]\nop = \"note\"\npage = 1\nat = [1, 2]\n")
                == [#"s.toml:2:1: edit[1] (note) is missing the required key "contents""#])
        #expect(problems("target = \"a.pdf\"\n[[edit]]\nop = \"rect\"\npage = 1\nbox = [0, 0, 9, 9]\ncolor = \"none\"\n")
                == [#"s.toml:2:1: edit[1] (rect) draws nothing: color = "none" and no fill"#])
        #expect(problems("target = \"a.pdf\"\n[[edit]]\nop = \"line\"\npage = 1\nfrom = [1, 1]\nto = [1, 1]\n")
                == [#"s.toml:2:1: edit[1] (line): from and to are the same point, so there is no line to draw"#])
        #expect(problems("target = \"a.pdf\"\n[[edit]]\nop = \"erase\"\nkind = \"higlight\"\n")
                .first?.contains(#"unknown kind "higlight" (did you mean "highlight"?)"#) == true)
        #expect(problems("target = \"a.pdf\"\n[[edit]]\nop = \"ink\"\npage = 1\npreset = \"crayon\"\nstrokes = [[[0, 0]]]\n")
                == [#"s.toml:5:10: edit[1].preset must be one of pen, marker, pencil, not "crayon""#])
        #expect(problems("target = \"a.pdf\"\n[[edit]]\nop = \"textbox\"\npage = 1\nbox = [0, 0, 9, 9]\ntext = \"a\"\nsize = 900\n")
                == ["s.toml:7:8: edit[1].size must be a font size in points from 1 to 200, not 900"])
    }

    @Test func markupValuesAreReadInTheScriptsUnits() throws {
        let script = try parse("""
            target = "a.pdf"
            units = "mm"
            [[edit]]
            op = "ink"
            page = 2
            preset = "marker"
            strokes = [[[10, 20], [30, 40.5]]]
            [[edit]]
            op = "oval"
            page = 1
            box = [0, 0, 25.4, 10]
            color = "#0F0"
            fill = [0, 0, 1]
            opacity = 0.5
            author = "Ann"
            """)
        #expect(script.edits[0].operation == .markup(Markup(
            page: 2, shape: .ink(strokes: [[ScriptPoint(10, 20), ScriptPoint(30, 40.5)]], width: 12),
            color: RGBColor(1, 0.9, 0.1), opacity: 0.4)))
        #expect(script.edits[1].operation == .markup(Markup(
            page: 1, shape: .oval(box: ScriptBox(0, 0, 25.4, 10), fill: RGBColor(0, 0, 1), width: 2),
            color: RGBColor(0, 1, 0), opacity: 0.5, author: "Ann")))
    }

    @Test func undoAndRedoStandAlone() {
        let undo = "[[edit]]\nop = \"undo\"\n"
        let rotate = "[[edit]]\nop = \"rotate\"\ndegrees = 90\n"
        #expect(problems("target = \"a.pdf\"\n" + undo + rotate)
                == ["s.toml:4:1: edit[2]: undo and redo stand alone in a script: they are not a revision of their own"])
        #expect(problems("target = \"a.pdf\"\n" + rotate + rotate + "[[edit]]\nop = \"redo\"\n")
                == ["s.toml:8:1: edit[3]: undo and redo stand alone in a script: they are not a revision of their own"])
        #expect(problems("target = \"a.pdf\"\n" + undo + undo)
                == ["s.toml:4:1: edit[2]: undo and redo stand alone in a script: they are not a revision of their own"])
    }

    @Test func theFormatFollowsTheName() {
        #expect(problems("target = \"a.pdf\"\n", file: "edits/a.yaml")
                == ["edits/a.yaml:1:1: an edit script's name must end in .toml or .json"])
        #expect(problems("target = \"a.pdf\"\n", file: "edits/toml")
                == ["edits/toml:1:1: an edit script's name must end in .toml or .json"])
        #expect(problems("target = \"a.pdf\"\n", file: "edits/.toml")
                == ["edits/.toml:1:1: an edit script's name must end in .toml or .json"])
        // TOML given to the JSON reader, and the other way round: the reader's own error.
        #expect(problems("target = \"a.pdf\"\n", file: "a.json")
                == ["a.json:1:1: the document must be a JSON object ({ … }), found 't'"])
        #expect(problems(#"{"target": "a.pdf"}"#, file: "a.Toml") == ["a.Toml:1:1: expected a key, found '{'"])
    }

    // MARK: limits

    @Test func aScriptOver64MiBIsRefusedBeforeParsing() {
        let script = "target = \"a.pdf\"\n# " + String(repeating: "x", count: 64 << 20) + "\n[[edit]]\nop = \"undo\"\n"
        #expect(script.utf8.count == 67_108_905)
        #expect(problems(script) == ["s.toml:1:1: the script is 67108905 bytes, more than the limit of 67108864 (64 MiB)"])
    }

    /// Refused by its size alone, before a byte of it is parsed (the one problem is the size's; a
    /// parse would have reported the edits' count). No clock: timings are bench/'s, not the tests'.
    @Test func twoMillionEditsAreRefusedBeforeParsing() {
        let edit = "[[edit]]\nop = \"rotate\"\npages = \"1-3\"\ndegrees = 90\n\n"
        let script = "target = \"a.pdf\"\n" + String(repeating: edit, count: 2_000_000)
        #expect(problems(script) == ["s.toml:1:1: the script is \(script.utf8.count) bytes, more than the limit of 67108864 (64 MiB)"])
    }

    @Test(arguments: ["toml", "json"])
    func moreThanOneHundredThousandEditsAreRefusedWithOneMessage(format: String) {
        // Empty edits, so that even 200,000 of them fit: refused by their count, none read.
        let (script, count) = format == "toml"
            ? ("target = \"a.pdf\"\nedit = [" + String(repeating: "{},", count: 200_000) + "]\n", "200000")
            : ("{\"target\": \"a.pdf\",\n\"edit\": [" + Array(repeating: "{}", count: 200_000).joined(separator: ",") + "]}", "200000")
        #expect(problems(script, file: "s.\(format)")
                == ["s.\(format):2:1: the script has \(count) edits, more than the limit of 100000; split it into several scripts"])
    }

    @Test func oneHundredThousandEditsAreAccepted() throws {
        let edits = String(repeating: "[[edit]]\nop = \"rotate\"\ndegrees = 90\n", count: 100_000)
        #expect(try parse("target = \"a.pdf\"\n" + edits).edits.count == 100_000)
        #expect(problems("target = \"a.pdf\"\n" + edits + "[[edit]]\nop = \"rotate\"\ndegrees = 90\n")
                == ["s.toml:2:3: the script has 100001 edits, more than the limit of 100000; split it into several scripts"])
    }

    // MARK: reframe

    /// Corners in any order are taken clockwise from the top left, as the photo shows them.
    @Test func reframeTakesFourCornersOfThePhotoInAnyOrder() throws {
        let edits = try operations("[[edit]]\nop = \"reframe\"\npage = 2\ncorners = [[0.9, 0.95], [0.1, 0.1], [0.05, 0.9], [0.8, 0]]\n")
        let expected = [SheetGeometry.Point(0.1, 0.1), SheetGeometry.Point(0.8, 0), SheetGeometry.Point(0.9, 0.95), SheetGeometry.Point(0.05, 0.9)]
        #expect(edits == [.reframe(page: 2, corners: expected)])
        let json = try parse(#"{"target": "a.pdf", "edit": [{"op": "reframe", "page": 1, "corners": [[0, 0], [1, 0], [1, 1], [0, 1]]}]}"#,
                             file: "s.json")
        #expect(json.edits.map(\.operation) == [.reframe(page: 1, corners: KeptPhoto.wholePhoto)])
    }

    @Test func reframeCornersThatMakeNoPageAreRefusedWhereTheyStand() {
        let head = "target = \"a.pdf\"\n[[edit]]\nop = \"reframe\"\npage = 1\n"
        #expect(problems(head + "corners = [[0, 0], [1, 0], [1, 1]]\n")
                == ["s.toml:5:11: edit[1].corners must be four corners [[x, y], [x, y], [x, y], [x, y]], fractions of the photo "
                    + "from 0 to 1, not an array"])
        #expect(problems(head + "corners = [[0, 0], [1.5, 0], [1, 1], [0, 1]]\n")
                == ["s.toml:5:20: edit[1].corners[2] = [1.5, 0] lies outside the photo: x and y are fractions of its width and height, "
                    + "from 0 to 1"])
        #expect(problems(head + "corners = [[0, 0], [1, 0], [0.5, 0.1], [0.5, 0.05]]\n")
                == ["s.toml:5:11: edit[1].corners: the four corners do not make a convex shape"])
        #expect(problems(head + "corners = [[0.5, 0.5], [0.55, 0.5], [0.55, 0.55], [0.5, 0.55]]\n")
                == ["s.toml:5:11: edit[1].corners: the four corners enclose less than a hundredth of the photo"])
        #expect(problems("target = \"a.pdf\"\n[[edit]]\nop = \"reframe\"\npage = 1\n")
                .first?.contains("missing the required key \"corners\"") == true)
    }
}
