import Foundation
import Testing
@testable import TrapperCore

@Suite struct QuantitiesTests {
    @Test func durations() {
        #expect(Quantities.seconds("500ms") == 0.5)
        #expect(Quantities.seconds("2s") == 2)
        #expect(Quantities.seconds("1h30m") == 5400)
        #expect(Quantities.seconds("1.5 m") == 90)
        #expect(Quantities.seconds("2") == nil)
        #expect(Quantities.seconds("2 parsecs") == nil)
        #expect(Quantities.seconds("") == nil)
    }

    @Test func sizes() {
        #expect(Quantities.bytes("10MB") == 10_000_000)
        #expect(Quantities.bytes("512 KiB") == 524_288)
        #expect(Quantities.bytes("1.5GB") == 1_500_000_000)
        #expect(Quantities.bytes("42") == 42)
        #expect(Quantities.bytes("10 furlongs") == nil)
        #expect(Quantities.bytes("99999999999GB") == nil)
    }
}

@Suite struct SuggestionTests {
    @Test func closeTyposAreSuggested() {
        #expect(Suggestion.closest(to: "setle", among: ["settle", "watch"]) == "settle")
        #expect(Suggestion.closest(to: "pahts", among: ["path", "paths"]) == "paths")
        #expect(Suggestion.closest(to: "xyz", among: ["settle", "watch"]) == nil)
        #expect(Suggestion.editDistance("ab", "ba") == 1)
        #expect(Suggestion.editDistance("", "abc") == 3)
    }
}

@Suite struct ParsedArgumentsTests {
    let spec = ArgumentSpec(flags: ["--prepend"], options: ["--config", "--to"])

    @Test func splitsFlagsOptionsAndPositionals() throws {
        let parsed = try ParsedArguments(["a.jpg", "--config", "c.toml", "--prepend", "--to=t.pdf", "--", "--odd"], spec: spec)
        #expect(parsed.positionals == ["a.jpg", "--odd"])
        #expect(parsed.options == ["--config": "c.toml", "--to": "t.pdf"])
        #expect(parsed.has("--prepend"))
    }

    @Test func aLoneDashIsAPositional() throws {
        #expect(try ParsedArguments(["-"], spec: spec).positionals == ["-"])
    }

    @Test(arguments: [
        (["--nope"], ArgumentError.unknownOption("--nope")),
        (["--config"], .missingValue(option: "--config")),
        (["--prepend=yes"], .unexpectedValue(flag: "--prepend")),
        (["--to", "a", "--to", "b"], .repeatedOption("--to")),
        (["-x"], .unknownOption("-x")),
    ])
    func refusesBadArguments(arguments: [String], error: ArgumentError) {
        #expect(throws: error) { try ParsedArguments(arguments, spec: spec) }
    }
}

@Suite struct ConfigLocationTests {
    @Test func searchOrder() {
        #expect(ConfigLocation.candidates(environment: ["PDFTRAPPER_CONFIG": "/x.toml", "HOME": "/h"]) == ["/x.toml"])
        #expect(ConfigLocation.candidates(environment: ["XDG_CONFIG_HOME": "/xdg", "HOME": "/h"])
                == ["/xdg/pdftrapper/config.toml", "/etc/pdftrapper/config.toml"])
        #expect(ConfigLocation.candidates(environment: ["HOME": "/h"])
                == ["/h/.config/pdftrapper/config.toml", "/etc/pdftrapper/config.toml"])
        #expect(ConfigLocation.find(environment: ["HOME": "/h"]) { $0.hasPrefix("/etc") } == "/etc/pdftrapper/config.toml")
    }
}

@Suite struct ConfigParserTests {
    func parse(_ text: String, environment: [String: String] = ["HOME": "/home/ann"]) throws -> Config {
        try ConfigParser.parse(Array(text.utf8), file: "/etc/pdftrapper/config.toml", environment: environment)
    }

    @Test func defaultsSitBesideTheInbox() throws {
        let config = try parse("[library]\nroot = \"~/Documents\"\n[inbox]\npath = \"/srv/scans/inbox\"\n")
        #expect(config.library.root == "/home/ann/Documents")
        #expect(config.inbox.archive == "/srv/scans/archive")
        #expect(config.inbox.quarantine == "/srv/scans/quarantine")
        #expect(config.edits.path == "/srv/scans/edits")
        #expect(config.signatures.path == "/srv/scans/signatures")
        #expect(config.daemon.stateDir == "/home/ann/.local/state/pdftrapper")
        #expect(config.inbox.settleSeconds == 2)
        #expect(config.inbox.rescanSeconds == 300)
        #expect(config.inbox.ignore.map(\.pattern) == InboxSettings.defaultIgnore)
    }

    @Test func stateDirFollowsSystemd() throws {
        let config = try parse("[library]\nroot = \"/l\"\n[inbox]\npath = \"/i/in\"\n",
                               environment: ["STATE_DIRECTORY": "/var/lib/pdftrapper", "HOME": "/root"])
        #expect(config.daemon.stateDir == "/var/lib/pdftrapper")
    }

    @Test func relativePathsAreBelowTheConfigFolder() throws {
        let config = try parse("[library]\nroot = \"docs/../library\"\n[inbox]\npath = \"./in\"\n")
        #expect(config.library.root == "/etc/pdftrapper/library")
        #expect(config.inbox.path == "/etc/pdftrapper/in")
    }

    @Test func profilesAndScannersAreRead() throws {
        let config = try parse("""
        [library]
        root = "/l"
        [inbox]
        path = "/i/in"
        [[scanner]]
        device = "test:*"
        buttons = { scan = "doc" }
        [profile.doc]
        source = "ADF Front"
        mode = "gray"
        page_size = [100, 150.5]
        options = { brightness = 10, "tl-x" = 0.5 }
        target = "Scans/{date}.pdf"

        """)
        #expect(config.scanners.first?.buttons == ["scan": "doc"])
        #expect(config.scanners.first?.pollSeconds == 0.5)
        let profile = try #require(config.profiles.first)
        #expect(profile.source == .named("ADF Front"))
        #expect(profile.colorMode == .gray)
        #expect(profile.pageSize.width == 100 && profile.pageSize.height == 150.5)
        #expect(profile.options.map(\.name) == ["brightness", "tl-x"])
        #expect(profile.target?.text == "Scans/{date}.pdf")
    }

    @Test func pollMillisecondsOrAnInterval() throws {
        let base = "[library]\nroot = \"/l\"\n[inbox]\npath = \"/i/in\"\n[[scanner]]\ndevice = \"test:0\"\n"
        #expect(try parse(base + "poll_ms = 250\n").scanners.first?.pollSeconds == 0.25)
        #expect(try parse(base + "poll_interval = \"2s\"\n").scanners.first?.pollSeconds == 2)
        let both = try #require(throws: ConfigError.self) {
            try parse(base + "poll_ms = 250\npoll_interval = \"2s\"\n")
        }
        #expect("\(both)".contains("give poll_ms or poll_interval, not both"), "\(both)")
        let tooFast = try #require(throws: ConfigError.self) { try parse(base + "poll_ms = 5\n") }
        #expect("\(tooFast)".contains("poll_ms"), "\(tooFast)")
    }

    @Test func aProfileNamesARuleOrATarget() throws {
        let base = """
        [library]
        root = "/l"
        [inbox]
        path = "/i/in"
        [[rule]]
        name = "letters"
        target = "Letters.pdf"
        match = { source = "scanner" }

        """
        let named = try parse(base + "[profile.doc]\nrule = \"letters\"\n")
        #expect(named.profiles.first?.rule == "letters")
        let unknown = try #require(throws: ConfigError.self) { try parse(base + "[profile.doc]\nrule = \"leters\"\n") }
        #expect("\(unknown)".contains(#"profile.doc.rule: no rule named "leters" (did you mean "letters"?)"#), "\(unknown)")
        let both = try #require(throws: ConfigError.self) {
            try parse(base + "[profile.doc]\nrule = \"letters\"\ntarget = \"X.pdf\"\n")
        }
        #expect("\(both)".contains("give a profile a target or a rule, not both"), "\(both)")
        let byProfile = try parse(base.replacingOccurrences(of: #"source = "scanner""#, with: #"profile = "doc""#))
        #expect(byProfile.rules.first?.match.profile == "doc")
    }
}

@Suite struct PageStepsConfigTests {
    let base = "[library]\nroot = \"/l\"\n[inbox]\npath = \"/i/in\"\n[[rule]]\nname = \"r\"\ntarget = \"T.pdf\"\n"

    func parse(_ text: String) throws -> Config {
        try ConfigParser.parse(Array(text.utf8), file: "/c.toml", environment: ["HOME": "/root"])
    }

    @Test func aRuleNamesItsSteps() throws {
        let steps = try parse(base + "deskew = true\norient = true\nblank = \"drop\"\ncompress = \"auto\"\njpeg_quality = 70\n")
            .rules[0].steps
        #expect(steps == PageSteps(deskewAbove: 0.3, orient: true, blank: .drop, compress: .auto, jpegQuality: 70))
        #expect(try parse(base + "deskew = 1.5\nblank_threshold = 0.01\n").rules[0].steps
                == PageSteps(deskewAbove: 1.5, blankThreshold: 0.01))
        #expect(try parse(base).rules[0].steps.isEmpty, "nothing is done that is not asked for")
    }

    @Test func photoStepsAreNamedAndComeOff() throws {
        let steps = try parse(base + "find_page = true\nclean = \"auto\"\n").rules[0].steps
        #expect(steps.findPage && steps.clean == .auto && !steps.isEmpty)
        #expect(try parse(base + "find_page = false\nclean = \"off\"\n").rules[0].steps.isEmpty)
        #expect(throws: ConfigError.self) { try parse(base + "clean = \"yes\"\n") }
        let profile = try parse(base + "[profile.phone]\nfind_page = true\n").profiles[0].steps
        #expect(profile?.findPage == true && profile?.clean == .off)
    }

    @Test func aProfileHasStepsOfItsOwnOrNone() throws {
        let config = try parse(base + "[profile.doc]\ndeskew = true\njpeg_quality = 60\n[profile.plain]\nresolution = 200\n")
        #expect(config.profiles.first { $0.name == "doc" }?.steps == PageSteps(deskewAbove: 0.3, jpegQuality: 60))
        #expect(config.profiles.first { $0.name == "plain" }?.steps == nil, "the rule's steps apply")
    }

    @Test func separatorsSplitIntoNewFilesOnly() throws {
        let newFiles = base.replacingOccurrences(of: "target = \"T.pdf\"\n", with: "target = \"{barcode}/T.pdf\"\nmode = \"new\"\n")
        let steps = try parse(newFiles + "separator = \"barcode\"\nseparator_prefix = \"DOC:\"\n").rules[0].steps
        #expect(steps.separator == Separator(.barcode, prefix: "DOC:"))
        #expect(try parse(newFiles + "separator = \"patch-t\"\n").rules[0].steps.separator == Separator(.patchT))
        let error = try #require(throws: ConfigError.self) {
            try parse(base + "separator = \"blank\"\nseparator_prefix = \"X\"\n")
        }
        #expect(error.diagnostics.map(\.description) == [
            "/c.toml:8:13: rule[1].separator splits an input into new files: it needs mode = \"new\"",
            "/c.toml:9:20: rule[1].separator_prefix applies only when separator = \"barcode\"",
        ])
        let profile = try #require(throws: ConfigError.self) {
            try parse(base + "[profile.doc]\ntarget = \"S.pdf\"\nseparator = \"blank\"\n")
        }
        #expect("\(profile)".contains("profile.doc.separator splits a batch into new files: it needs ingest = \"new\""), "\(profile)")
    }

    @Test func badStepsAreReportedWhereTheyAreWritten() throws {
        let error = try #require(throws: ConfigError.self) {
            try parse(base + "deskew = \"yes\"\nblank = \"remove\"\ncompress = \"g4\"\n")
        }
        #expect(error.diagnostics.map(\.description) == [
            "/c.toml:8:10: rule[1].deskew must be true, false or a threshold in degrees (0.3), not the string \"yes\"",
            "/c.toml:9:9: rule[1].blank must be one of \"keep\", \"drop\", not \"remove\"",
            "/c.toml:10:12: rule[1].compress must be one of \"keep\", \"bilevel\", \"auto\", \"lossless\", not \"g4\"",
        ])
    }
}

@Suite struct WebConfigTests {
    let base = "[library]\nroot = \"/l\"\n[inbox]\npath = \"/i/in\"\n"

    func parse(_ text: String) throws -> Config {
        try ConfigParser.parse(Array(text.utf8), file: "/etc/pdftrapper/config.toml", environment: ["HOME": "/root"])
    }

    @Test func noTableServesNothingAndAnEmptyOneServesLoopback() throws {
        #expect(try parse(base).web == nil)
        let web = try parse(base + "[web]\n").web
        #expect(web?.listen == .tcp(host: "127.0.0.1", port: 8470))
        #expect(web?.maxBodyBytes == 32 << 20)
        #expect(web?.allowRemote == false)
    }

    @Test func listenTakesAnAddressOrASocket() throws {
        #expect(try parse(base + "[web]\nlisten = \"[::1]:9000\"\n").web?.listen == .tcp(host: "::1", port: 9000))
        #expect(try parse(base + "[web]\nlisten = \"/run/pdftrapper/web.sock\"\n").web?.listen == .socket("/run/pdftrapper/web.sock"))
        #expect(try parse(base + "[web]\nlisten = \"./web.sock\"\nhosts = [\"scans.example.org\"]\nmax_body = \"1MiB\"\n").web
                == { var web = WebSettings(); web.listen = .socket("/etc/pdftrapper/web.sock"); web.hosts = ["scans.example.org"]
                     web.maxBodyBytes = 1 << 20; return web }())
        for bad in ["8470", "127.0.0.1", "127.0.0.1:0", "127.0.0.1:99999", "::1:80", "host:port"] {
            #expect(throws: ConfigError.self, "\(bad)") { try parse(base + "[web]\nlisten = \"\(bad)\"\n") }
        }
    }

    @Test func beyondLoopbackNeedsAllowRemote() throws {
        #expect {
            try parse(base + "[web]\nlisten = \"0.0.0.0:8470\"\n")
        } throws: { "\($0)".contains("set web.allow_remote = true") && "\($0)".contains("TLS reverse proxy") }
        #expect(try parse(base + "[web]\nlisten = \"0.0.0.0:8470\"\nallow_remote = true\n").web?.listen.isLocal == false)
        #expect(throws: ConfigError.self) { try parse(base + "[web]\nmax_body = \"10B\"\n") }
        #expect(throws: ConfigError.self) { try parse(base + "[web]\nlisten_on = \"127.0.0.1:1\"\n") }
    }

    @Test func sessionDaysIsAPositiveNumberOfDays() throws {
        #expect(try parse(base + "[web]\n").web?.sessionDays == 30)
        #expect(try parse(base + "[web]\nsession_days = 7\n").web?.sessionDays == 7)
        #expect(try parse(base + "[web]\nsession_days = 0.25\n").web?.sessionDays == 0.25)
        #expect(try parse(base + "[web]\nsession_days = 3650\n").web?.sessionDays == 3650)
        for bad in ["0", "-1", "0.0", "3651", "1e9", "nan", "inf", "\"30d\"", "true"] {
            #expect("\(bad)") { try parse(base + "[web]\nsession_days = \(bad)\n") } throws: {
                "\($0)".contains("web.session_days must be a number of days, more than 0 and at most 3650")
            }
        }
    }
}
