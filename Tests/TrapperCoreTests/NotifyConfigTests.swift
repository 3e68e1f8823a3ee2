import Foundation
import Testing
@testable import TrapperCore

/// `[[notify]]`: what a subscriber asks for and how it is reached, with every mistake a delivery
/// would only find out later refused at once, where it is written.
@Suite struct NotifyConfigTests {
    let base = "[library]\nroot = \"/l\"\n[inbox]\npath = \"/i/in\"\n[[rule]]\nname = \"letters\"\ntarget = \"L.pdf\"\n"

    func parse(_ text: String) throws -> Config {
        try ConfigParser.parse(Array(text.utf8), file: "/c.toml", environment: ["HOME": "/root"])
    }

    func problems(_ text: String) -> [String] {
        do { _ = try parse(base + text); return [] } catch { return (error as? ConfigError)?.diagnostics.map(\.description) ?? ["\(error)"] }
    }

    @Test func aWebhookAndACommand() throws {
        let config = try parse(base + """
            [[notify]]
            name = "paperless"
            events = ["revision", "quarantined"]
            rules = ["letters"]
            targets = ["Mail/*.pdf"]
            url = "https://paperless.example/hook"
            secret = "s3"
            timeout = "5s"
            backoff_max = "1m"
            headers = { Authorization = "Token abc" }
            [[notify]]
            events = ["scan-failed", "started", "stopping", "incomplete"]
            command = ["/usr/local/bin/file-it", "{target_path}"]

            """)
        let hook = config.notify[0], script = config.notify[1]
        #expect(hook.name == "paperless" && hook.delivery == .url("https://paperless.example/hook"))
        #expect(hook.events == [.revision, .quarantined] && hook.rules == ["letters"] && hook.targets == [Glob("Mail/*.pdf")])
        #expect(hook.secret == "s3" && hook.timeoutSeconds == 5 && hook.backoffMaxSeconds == 60 && hook.verifyTLS)
        #expect(hook.headers.map { "\($0.0): \($0.1)" } == ["Authorization: Token abc"])
        #expect(script.name.hasPrefix("notify-") && script.name.count == 15, "an unnamed subscriber is named by where it sends")
        let moved = try parse(base + "[[notify]]\nevents = [\"started\"]\nurl = \"http://x/\"\n[[notify]]\nevents = [\"started\"]\n"
                              + "command = [\"/usr/local/bin/file-it\", \"{target_path}\"]\n")
        #expect(moved.notify[1].name == script.name, "the same name wherever it stands")
        #expect(script.delivery == .command(["/usr/local/bin/file-it", "{target_path}"]))
        #expect(script.events == [.scanFailed, .started, .stopping, .incomplete])
    }

    @Test func badURLsUnknownEventsAndRelativeCommandsAreRefusedWhereTheyAreWritten() {
        #expect(problems("[[notify]]\nevents = [\"revison\"]\nurl = \"ftp://x/y\"\n") == [
            "/c.toml:9:11: notify[1].events: unknown event \"revison\" (known: revision, quarantined, incomplete, scan-failed, "
                + "started, stopping) (did you mean \"revision\"?)",
            "/c.toml:10:7: notify[1].url \"ftp://x/y\" must be an http:// or https:// URL",
        ])
        #expect(problems("[[notify]]\nevents = [\"revision\"]\nurl = \"https://\"\n")
                == ["/c.toml:10:7: notify[1].url \"https://\" names no host"])
        #expect(problems("[[notify]]\nevents = [\"revision\"]\nurl = \"not a url\"\n").first?.hasPrefix("/c.toml:10:7: notify[1].url") == true)
        #expect(problems("[[notify]]\nevents = [\"revision\"]\ncommand = [\"file-it\", \"{target}\"]\n") == [
            "/c.toml:10:12: notify[1].command must start with the program's absolute path, such as \"/usr/bin/file-it\" "
                + "(it runs without a shell or PATH)",
        ])
        #expect(problems("[[notify]]\nevents = [\"revision\"]\ncommand = [\"/bin/x\", \"{targt}\"]\n").first?
            .hasPrefix("/c.toml:10:22: notify[1].command: unknown placeholder {targt}") == true)
    }

    @Test func aSubscriberIsAURLOrACommandWithTheKeysThatFit() {
        #expect(problems("[[notify]]\nevents = [\"revision\"]\n") == [
            "/c.toml:8:1: [notify[1]] needs a url = \"https://...\" or a command = [\"/path/to/program\", ...]",
        ])
        #expect(problems("[[notify]]\nurl = \"http://127.0.0.1/\"\n")
                == ["/c.toml:8:1: [notify[1]] is missing the required key \"events\" (such as [\"revision\", \"quarantined\"])"])
        #expect(problems("[[notify]]\nevents = []\nurl = \"http://h/\"\n") == ["/c.toml:9:10: notify[1].events is empty: name at least one event"])
        #expect(problems("[[notify]]\nevents = [\"revision\"]\ncommand = [\"/bin/true\"]\nsecret = \"x\"\n").count == 1)
        #expect(problems("[[notify]]\nevents = [\"revision\"]\nurl = \"http://h/\"\ncommand = [\"/bin/true\"]\n").count == 1)
        #expect(problems("[[notify]]\nevents = [\"revision\"]\nurl = \"http://h/\"\nheaders = { \"X\" = \"a\\nInjected: b\" }\n").count == 1)
        #expect(problems("[[notify]]\nname = \"../up\"\nevents = [\"revision\"]\nurl = \"http://h/\"\n").count == 1)
        #expect(problems("[[notify]]\nname = \"a\"\nevents = [\"revision\"]\nurl = \"http://h/\"\n"
                         + "[[notify]]\nname = \"a\"\nevents = [\"revision\"]\nurl = \"http://h/\"\n").count == 1)
        #expect(problems("[[notify]]\nevents = [\"revision\"]\nurl = \"http://h/\"\nretries = 3\n").first?.contains("unknown key \"retries\"") == true)
        #expect(problems("[[notify]]\nevents = [\"revision\"]\nurl = \"http://h/\"\nrules = [\"leters\"]\n")
                == ["/c.toml:11:10: notify[1].rules: no rule or scan profile is named \"leters\" (did you mean \"letters\"?)"])
        #expect(problems("[[notify]]\nevents = [\"revision\"]\nurl = \"http://h/\"\nheaders = { Idempotency-Key = \"x\" }\n").count == 1)
        #expect(problems("[[notify]]\nevents = [\"revision\"]\ncommand = [\"/opt/{target}\"]\n").first?
            .contains("the program's path takes no placeholders") == true)
    }
}

@Suite struct OutboundEventTests {
    func record(number: Int = 4) -> RevisionRecord {
        var record = RevisionRecord(operation: .ingest, date: Date(timeIntervalSince1970: 1_800_000_000.7), base: 1000, pagesAdded: 2,
                                    inputs: [.init(name: "a.jpg", sha256: Array(repeating: 0xab, count: 32), pages: 2)], note: "deskewed")
        record.number = number
        return record
    }

    @Test func aRevisionsEventIsMadeFromWhatTheTrailerAndJournalHold() throws {
        let origin = RevisionOrigin(madeBy: "scan", rule: "letters", profile: "adf")
        let started = Date(timeIntervalSince1970: 1_800_000_000.25)
        let event = OutboundEvent.revision(target: "/lib/Mail/2026.pdf", libraryRoot: "/lib", record: record(), end: 5000,
                                           origin: origin, time: started, host: "scanbox")
        #expect(event.target == "Mail/2026.pdf" && event.targetPath == "/lib/Mail/2026.pdf")
        #expect(event.revision == 4 && event.base == 1000 && event.end == 5000 && event.pagesAdded == 2)
        #expect(event.time == "2027-01-15T08:00:00Z" && event.summary == "2 pages scanned into Mail/2026.pdf")
        #expect(event.inputs == [.init(name: "a.jpg", sha256: String(repeating: "ab", count: 32), pages: 2)])
        // The same revision, its event made again (after a crash, from the journal's start time):
        // the same bytes, the same key; the same revision undone half a second later is another event.
        let again = OutboundEvent.revision(target: "/lib/Mail/2026.pdf", libraryRoot: "/lib", record: record(), end: 5000,
                                           origin: origin, time: started, host: "scanbox")
        #expect(again.body == event.body && again.key == event.key && event.key.count == 64)
        let later = OutboundEvent.revision(target: "/lib/Mail/2026.pdf", libraryRoot: "/lib", record: record(), end: 5000,
                                           origin: origin, time: started.addingTimeInterval(0.5), host: "scanbox")
        #expect(later.time == event.time && later.key != event.key)
        let elsewhere = OutboundEvent.revision(target: "/lib/Mail/2026.pdf", libraryRoot: "/lib", record: record(), end: 6000,
                                               origin: origin, time: started, host: "scanbox")
        #expect(elsewhere.key != event.key)
        let text = String(decoding: event.body, as: UTF8.self)
        #expect(text.hasPrefix("{\"base\":1000,\"end\":5000,\"event\":\"revision\",\"host\":\"scanbox\",\"inputs\":[{"), "\(text)")
        #expect(text.contains("\"made_by\":\"scan\"") && text.contains("\"target_path\":\"/lib/Mail/2026.pdf\"")
                && text.contains("\"version\":1"))
        #expect(try OutboundEvent(body: event.body) == event)
    }

    @Test func subscribersFilterByEventRuleOrProfileAndTarget() {
        let event = OutboundEvent.revision(target: "/lib/Mail/2026.pdf", libraryRoot: "/lib", record: record(), end: 5000,
                                           origin: RevisionOrigin(madeBy: "scan", rule: "letters", profile: "adf"),
                                           time: Date(), host: "h")
        var subscriber = Subscriber(name: "s", events: [.revision], delivery: .url("http://h/"))
        #expect(subscriber.wants(event))
        subscriber.rules = ["adf"]
        #expect(subscriber.wants(event), "a profile's name counts as a rule's")
        subscriber.rules = ["receipts"]
        #expect(!subscriber.wants(event))
        subscriber.rules = []
        subscriber.targets = [Glob("Mail/*.pdf")]
        #expect(subscriber.wants(event))
        subscriber.targets = [Glob("Receipts/*.pdf")]
        #expect(!subscriber.wants(event))
        #expect(!Subscriber(name: "q", events: [.quarantined], delivery: .url("http://h/")).wants(event))
    }

    @Test func aCommandsPlaceholdersAreTheEventsFields() {
        let event = OutboundEvent.revision(target: "/lib/Mail/2026.pdf", libraryRoot: "/lib", record: record(), end: 5000,
                                           origin: RevisionOrigin(madeBy: "ingest"), time: Date(), host: "h")
        #expect(Subscriber.arguments(["/bin/x", "{target_path}", "--rev={revision}", "{rule}", "{{}"], for: event)
                == ["/bin/x", "/lib/Mail/2026.pdf", "--rev=4", "", "{{}"])
        #expect(event.environment["PDFTRAPPER_TARGET"] == "Mail/2026.pdf" && event.environment["PDFTRAPPER_INPUTS"] == "1")
        #expect(event.environment["PDFTRAPPER_KEY"] == event.key)
    }
}
