import Foundation
import TestSupport
import Testing

/// `check-config` as a person uses it: a valid config passes with a summary; every kind of mistake
/// gets `FILE:LINE:COL: message` on stderr and exit 78.
@Suite struct CheckConfigTests {
    static let minimal = """
    [library]
    root = "docs"
    [inbox]
    path = "inbox"

    """

    /// Writes the config as `config.toml` in a scratch folder and checks it from there.
    func check(_ text: String) throws -> (Run, Scratch) {
        let scratch = try Scratch()
        try scratch.write("config.toml", text)
        return (try Binary.run(["check-config", "config.toml"], in: scratch.url), scratch)
    }

    @Test func exampleConfigIsValid() throws {
        let example = Binary.packageRoot.appendingPathComponent("config.example.toml").path
        let run = try Binary.run(["check-config", example])
        #expect(run.status == 0, "stderr: \(run.stderr)")
        #expect(run.stdout == "\(example): valid; library /srv/documents, inbox /srv/scans/inbox, 5 rules, 1 scanner, 2 profiles\n")
        #expect(run.stderr.isEmpty)
    }

    @Test func relativePathsResolveAgainstTheConfigFolder() throws {
        let (run, scratch) = try check(Self.minimal)
        #expect(run.status == 0, "stderr: \(run.stderr)")
        #expect(run.stdout.contains("library \(scratch.path)/docs, inbox \(scratch.path)/inbox, 0 rules"))
    }

    @Test(arguments: [
        // Syntax, reported by the TOML parser with its place.
        ("[library]\nroot = \"docs\"\n[inbox\n", "config.toml:3:7: expected ']' to close the table header \"inbox\", found end of line"),
        // A misspelt key, with the key it was probably meant to be.
        (minimal + "setle = \"2s\"\n", "config.toml:5:1: unknown key \"setle\" in [inbox] (did you mean \"settle\"?)"),
        (minimal + "[daemon]\nlog_levl = \"info\"\n",
         "config.toml:6:1: unknown key \"log_levl\" in [daemon] (did you mean \"log_level\"?)"),
        ("librar = 1\n" + minimal, "config.toml:1:1: unknown key \"librar\" at the top level (did you mean \"library\"?)"),
        // Wrong types and values.
        (minimal + "settle = 2.5\n",
         "config.toml:5:10: inbox.settle must be a duration such as \"500ms\", \"2s\" or \"5m\", not the float 2.5"),
        (minimal + "watch = \"inotfy\"\n",
         "config.toml:5:9: inbox.watch must be one of \"auto\", \"inotify\", \"poll\", not \"inotfy\" (did you mean \"inotify\"?)"),
        ("[library]\nroot = 7\n[inbox]\npath = \"inbox\"\n", "config.toml:2:8: library.root must be a string, not the integer 7"),
        // Missing required keys and tables.
        ("[library]\nroot = \"docs\"\n[inbox]\nsettle = \"1s\"\n", "config.toml:3:1: [inbox] is missing the required key \"path\""),
        ("[inbox]\npath = \"inbox\"\n", "config.toml:1:1: the config is missing the required table [library]"),
        (minimal + "[[rule]]\ntarget = \"a.pdf\"\n", "config.toml:5:1: [rule[1]] is missing the required key \"name\""),
        // Path templates.
        (minimal + "[[rule]]\nname = \"r\"\ntarget = \"Receipts/{yeer}.pdf\"\n",
         "config.toml:7:20: rule[1].target: unknown placeholder {yeer} (did you mean {year}?)"),
        (minimal + "[[rule]]\nname = \"r\"\ntarget = \"../escape.pdf\"\n",
         "config.toml:7:11: rule[1].target: must not climb out with '..'"),
        (minimal + "[[rule]]\nname = \"r\"\ntarget = \"/etc/passwd.pdf\"\n",
         "config.toml:7:11: rule[1].target: must be relative to its folder, not start with '/'"),
        (minimal + "[[rule]]\nname = \"r\"\ntarget = \"Notes/{date}\"\n",
         "config.toml:7:10: rule[1].target must name a .pdf file, as in \"Notes/{date}.pdf\""),
        (minimal + "[[rule]]\nname = \"r\"\ntarget = \"a/{seq:x}.pdf\"\n",
         "config.toml:7:13: rule[1].target: {seq:x}: only {seq} takes a width, from 1 to 9"),
        // Rules.
        (minimal + "[[rule]]\nname = \"r\"\ntarget = \"a.pdf\"\nmode = \"apend\"\n",
         "config.toml:8:8: rule[1].mode must be one of \"append\", \"prepend\", \"new\", \"batch\", not \"apend\" (did you mean \"append\"?)"),
        (minimal + "[[rule]]\nname = \"r\"\ntarget = \"a.pdf\"\n[[rule]]\nname = \"r\"\ntarget = \"b.pdf\"\n",
         "config.toml:9:8: rule[2].name: \"r\" is already the name of rule[1]"),
        (minimal + "[[rule]]\nname = \"r\"\ntarget = \"a.pdf\"\nbatch_window = \"1m\"\n",
         "config.toml:8:16: rule[1].batch_window applies only when mode = \"batch\""),
        (minimal + "[[rule]]\nname = \"r\"\ntarget = \"a.pdf\"\nmatch = { type = \"jpg\" }\n",
         "config.toml:8:18: rule[1].match.type: unknown file type \"jpg\" (known: jpeg, png, tiff, pnm, heic, avif, webp, pdf, image) (did you mean \"jpeg\"?)"),
        (minimal + "[[rule]]\nname = \"r\"\ntarget = \"a.pdf\"\n[rule.match]\nfolder = \"../x\"\n",
         "config.toml:9:10: rule[1].match.folder is a folder inside the inbox, written relative to it, without '..'"),
        // The workspace.
        (minimal + "[web]\nsession_days = 0\n",
         "config.toml:6:16: web.session_days must be a number of days, more than 0 and at most 3650, not the integer 0"),
        // Scanners and profiles.
        (minimal + "[[scanner]]\ndevice = \"test\"\nbuttons = { scan = \"colour\" }\n[profile.color]\n",
         "config.toml:7:20: scanner[1].buttons.scan: no profile named \"colour\" (did you mean \"color\"?)"),
        (minimal + "[profile.a]\nresolution = 20000\n",
         "config.toml:6:14: profile.a.resolution must be an integer from 50 to 4800, not the integer 20000"),
        // Folders that overlap.
        ("[library]\nroot = \"docs\"\n[inbox]\npath = \"docs/inbox\"\n[edits]\npath = \"edits\"\n",
         "config.toml:4:8: inbox.path (/SCRATCH/docs/inbox) is inside library.root (/SCRATCH/docs); inbox.path is watched, so it must not be inside another folder the daemon writes"),
        (minimal + "archive = \"inbox/done\"\n",
         "config.toml:5:11: inbox.archive (/SCRATCH/inbox/done) is inside inbox.path (/SCRATCH/inbox); the daemon would take its own files from inbox.path as input"),
        (minimal + "[edits]\npath = \"docs\"\n",
         "config.toml:6:8: edits.path and library.root are the same folder (/SCRATCH/docs)"),
    ])
    func brokenConfigIsRejectedWithItsPlace(config: String, expected: String) throws {
        let (run, scratch) = try check(config)
        #expect(run.status == 78)
        #expect(run.stdout.isEmpty)
        let wanted = expected.replacingOccurrences(of: "/SCRATCH", with: scratch.path)
        #expect(run.errorLines.count == 1, "stderr: \(run.stderr)")
        if wanted.hasSuffix(": ") {
            #expect(run.errorLines.first?.hasPrefix(wanted) == true, "stderr: \(run.stderr)")
        } else {
            #expect(run.errorLines.first == wanted)
        }
    }

    @Test func everyProblemIsReportedInSourceOrder() throws {
        let (run, _) = try check("""
        [library]
        root = 3
        [inbox]
        path = "inbox"
        setle = "2s"
        [[rule]]
        name = "r"
        target = "{nope}.pdf"

        """)
        #expect(run.status == 78)
        #expect(run.errorLines == [
            "config.toml:2:8: library.root must be a string, not the integer 3",
            "config.toml:5:1: unknown key \"setle\" in [inbox] (did you mean \"settle\"?)",
            "config.toml:8:11: rule[1].target: unknown placeholder {nope}",
        ])
    }

    @Test func defaultFoldersAreNamedAsDefaultsWhenTheyOverlap() throws {
        let (run, scratch) = try check("[library]\nroot = \"docs\"\n[inbox]\npath = \"docs/inbox\"\n")
        #expect(run.status == 78)
        #expect(run.errorLines.contains(
            "config.toml:4:8: edits.path (by default \(scratch.path)/docs/edits, beside the inbox) is inside library.root "
            + "(\(scratch.path)/docs); edits.path is watched, so it must not be inside another folder the daemon writes"))
    }

    @Test func missingFileIsNoInput() throws {
        let scratch = try Scratch()
        let run = try Binary.run(["check-config", "absent.toml"], in: scratch.url)
        #expect(run.status == 66)
        #expect(run.errorLines.first == "pdftrapper: config absent.toml: no such file")
    }

    @Test func configIsFoundThroughTheEnvironment() throws {
        let scratch = try Scratch()
        try scratch.write("xdg/pdftrapper/config.toml", Self.minimal)
        let viaXDG = try Binary.run(["check-config"], environment: ["XDG_CONFIG_HOME": scratch.path + "/xdg"])
        #expect(viaXDG.status == 0, "stderr: \(viaXDG.stderr)")
        #expect(viaXDG.stdout.hasPrefix("\(scratch.path)/xdg/pdftrapper/config.toml: valid"))

        try scratch.write("elsewhere.toml", Self.minimal)
        let viaVariable = try Binary.run(["check-config"], environment: [
            "XDG_CONFIG_HOME": scratch.path + "/xdg", "PDFTRAPPER_CONFIG": scratch.path + "/elsewhere.toml",
        ])
        #expect(viaVariable.stdout.hasPrefix("\(scratch.path)/elsewhere.toml: valid"))

        let nowhere = try Binary.run(["check-config"], environment: ["XDG_CONFIG_HOME": scratch.path + "/none"])
        #expect(nowhere.status == 66)
        #expect(nowhere.stderr.contains("looked for a config at: \(scratch.path)/none/pdftrapper/config.toml, /etc/pdftrapper/config.toml"))
    }
}
