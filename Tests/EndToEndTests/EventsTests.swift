import Foundation
import Glibc
import TestSupport
import Testing

/// Events out, through the real daemon and a real receiver on loopback (Tests/Fixtures/
/// webhook-receiver): every revision, quarantine, start and stop arrives, signed, with a key that
/// is the same on every retry; a receiver that fails, hangs or is down gets everything once it
/// answers; a hook command gets the event on its input; a refused event waits in failed/.
@Suite struct EventsTests {
    func world(_ notify: String, inbox: String = "") throws -> (Scratch, DaemonProcess) {
        let scratch = try Scratch()
        try scratch.write("config.toml", TestConfig.folders(inbox: inbox) + """
            [[rule]]
            name = "all"
            target = "All.pdf"

            """ + notify)
        try FileManager.default.createDirectory(atPath: scratch.path + "/inbox", withIntermediateDirectories: true)
        let daemon = try DaemonProcess(config: scratch.path + "/config.toml", in: scratch.url)
        #expect(daemon.notify.wait(for: "READY=1"), "log: \(daemon.log)")
        return (scratch, daemon)
    }

    /// A folder with a config whose one rule takes everything and whose one subscriber, `hook`,
    /// hears `events` at `receiver`; no daemon started. Returns it and the config's path.
    func hooked(_ events: [String], _ receiver: WebhookReceiver) throws -> (Scratch, String) {
        let scratch = try Scratch()
        try scratch.write("config.toml", TestConfig.folders() + """
            [[rule]]
            name = "all"
            target = "All.pdf"
            [[notify]]
            name = "hook"
            events = [\(events.map { "\"\($0)\"" }.joined(separator: ", "))]
            url = "\(receiver.url("/ok"))"

            """)
        try FileManager.default.createDirectory(atPath: scratch.path + "/inbox", withIntermediateDirectories: true)
        return (scratch, scratch.path + "/config.toml")
    }

    /// Drops a picture and waits until the target has `pages` pages; returns the picture's SHA-256.
    @discardableResult
    func drop(_ name: String, _ scratch: Scratch, pages: Int, _ daemon: DaemonProcess) throws -> String {
        try TestImages.make(scratch.path + "/staging-" + name, width: 600 + pages, height: 800)
        let digest = try Python.run("import hashlib, sys; print(hashlib.sha256(open(sys.argv[1], 'rb').read()).hexdigest())",
                                    [scratch.path + "/staging-" + name]).trimmingCharacters(in: .whitespacesAndNewlines)
        try FileManager.default.moveItem(atPath: scratch.path + "/staging-" + name, toPath: scratch.path + "/inbox/" + name)
        #expect(eventually { (try? PDFReaders.pdfinfoPages(scratch.path + "/library/All.pdf")) == pages }, "log: \(daemon.log)")
        return digest
    }

    /// `bytes BASE-END` of each revision, as `pdftrapper history` shows them.
    func revisionEnds(_ path: String) throws -> [Int] {
        try Binary.run(["history", path]).stdout.split(separator: "\n").compactMap { line in
            line.firstMatch(of: /bytes \d+-(\d+)/).flatMap { Int($0.1) }
        }
    }

    func events(_ scratch: Scratch, _ more: [String] = []) throws -> String {
        try Binary.run(["events", "--config", scratch.path + "/config.toml"] + more).stdout
    }

    @Test func everyEventArrivesSignedWithItsKeyAndWhatMadeIt() throws {
        let receiver = try WebhookReceiver(secret: "s3cret")
        let (scratch, daemon) = try world("""
            [[notify]]
            name = "hook"
            events = ["revision", "quarantined", "started", "stopping"]
            url = "\(receiver.url("/ok"))"
            secret = "s3cret"

            """)
        let target = scratch.path + "/library/All.pdf"
        let digest = try drop("one.png", scratch, pages: 1, daemon)
        try drop("two.png", scratch, pages: 2, daemon)
        _ = try scratch.write("inbox/junk.pdf", "not a PDF at all")
        _ = try scratch.write("edits/note.toml", "target = \"All.pdf\"\n[[edit]]\nop = \"note\"\npage = 1\nat = [10, 100]\ncontents = \"hi\"\n")
        #expect(eventually { FileManager.default.fileExists(atPath: scratch.path + "/edits/done/note.toml") },
                "log: \(daemon.log), edits: \(FileManager.default.subpaths(atPath: scratch.path + "/edits") ?? [])")
        // A command's revisions are announced too, and delivered by the running daemon.
        let config = scratch.path + "/config.toml"
        #expect(try Binary.run(["undo", "--config", config, target]).status == 0)
        #expect(try Binary.run(["redo", "--config", config, target]).status == 0)
        #expect(try Binary.run(["compact", "--config", config, target]).status == 0)
        #expect(eventually { receiver.requests.filter { $0.event["event"] as? String == "revision" }.count == 6 },
                "got: \(receiver.requests.map(\.body)), log: \(daemon.log)")
        #expect(daemon.stop() == 0)

        let requests = receiver.requests
        for request in requests {
            #expect(request.signatureOK, "\(request.body)")
            #expect(request.headers["content-type"] == "application/json")
            #expect(request.key == request.event["key"] as? String && request.key.count == 64)
            #expect(request.headers["x-pdftrapper-event"] == request.event["event"] as? String)
            #expect(request.event["version"] as? Int == 1)
        }
        #expect(requests.first?.event["event"] as? String == "started")
        #expect(requests.last?.event["event"] as? String == "stopping", "\(requests.map(\.body))")
        #expect(Set(requests.map(\.key)).count == requests.count, "each event once, with a key of its own")

        let revisions = requests.map(\.event).filter { $0["event"] as? String == "revision" }
        #expect(revisions.map { $0["made_by"] as? String } == ["ingest", "ingest", "edit", "undo", "redo", "compact"])
        #expect(revisions.map { $0["revision"] as? Int } == [1, 2, 3, 3, 3, 1])
        let compacted = try #require(revisions.last)
        #expect(compacted["end"] as? Int == (try FileManager.default.attributesOfItem(atPath: target)[.size] as? Int))
        #expect(revisions.allSatisfy { $0["target"] as? String == "All.pdf" && $0["target_path"] as? String == target })
        // Their bytes as the history showed them before the compaction, which squashed it into one.
        #expect(revisions[0]["base"] as? Int == 0 && revisions[1]["base"] as? Int == revisions[0]["end"] as? Int)
        #expect(revisions[2]["base"] as? Int == revisions[1]["end"] as? Int)
        #expect(revisions[3]["end"] as? Int == revisions[2]["end"] as? Int && revisions[4]["end"] as? Int == revisions[2]["end"] as? Int)
        let first = revisions[0]
        #expect(first["rule"] as? String == "all" && first["pages_added"] as? Int == 1 && first["base"] as? Int == 0)
        let inputs = first["inputs"] as? [[String: Any]] ?? []
        #expect(inputs.map { $0["name"] as? String } == ["one.png"] && inputs.first?["sha256"] as? String == digest)

        let quarantined = try #require(requests.map(\.event).first { $0["event"] as? String == "quarantined" })
        #expect(quarantined["file"] as? String == "junk.pdf" && quarantined["rule"] as? String == "all")
        #expect(FileManager.default.fileExists(atPath: quarantined["quarantined_as"] as? String ?? ""))
        #expect((quarantined["reason"] as? String ?? "").contains("not a JPEG"))
        #expect(try events(scratch).contains("nothing pending"))
    }

    @Test func failingAndHangingReceiversGetTheSameBodyAndKeyUntilTheyAnswer() throws {
        let receiver = try WebhookReceiver(hang: 4)
        let (scratch, daemon) = try world("""
            [[notify]]
            name = "flaky"
            events = ["revision"]
            url = "\(receiver.url("/flaky"))"
            [[notify]]
            name = "hang"
            events = ["revision"]
            url = "\(receiver.url("/hang"))"
            timeout = "1s"

            """)
        try drop("one.png", scratch, pages: 1, daemon)
        try drop("two.png", scratch, pages: 2, daemon)
        #expect(eventually(timeout: 40) {
            receiver.requests.filter { $0.status == 200 }.count == 4 && (try? events(scratch))?.contains("nothing pending") == true
        }, "got: \(receiver.requests.map { "\($0.path) \($0.status)" }), log: \(daemon.log)")
        #expect(daemon.stop() == 0)
        let requests = receiver.requests
        for path in ["/flaky", "/hang"] {
            let mine = requests.filter { $0.path == path }
            let keys = mine.map(\.key).reduce(into: [String]()) { if !$0.contains($1) { $0.append($1) } }
            #expect(keys.count == 2, "\(path): two events")
            for key in keys {
                let tries = mine.filter { $0.key == key }
                #expect(Set(tries.map(\.body)).count == 1, "\(path): every retry sends the same bytes")
                // A held request is recorded when the receiver lets go of it, after the retry that got through.
                let statuses = path == "/flaky" ? tries.map(\.status) : tries.map(\.status).sorted()
                #expect(statuses == (path == "/flaky" ? [500, 500, 200] : [0, 200]), "\(path): \(tries.map(\.status))")
            }
        }
        // In order: the second revision's event is not sent before the first is delivered.
        let flaky = requests.filter { $0.path == "/flaky" }
        #expect(flaky.map { $0.event["revision"] as? Int } == [1, 1, 1, 2, 2, 2])
        #expect(daemon.log.contains("notify flaky:") && daemon.log.contains("HTTP 500"))
        #expect(daemon.log.contains("notify hang:") && daemon.log.contains("timed out"), "\(daemon.log)")
    }

    @Test func aReceiverDownForAMinuteGetsEverythingOnceItIsBackAndCaptureNeverWaits() throws {
        let port = WebhookReceiver.freePort()
        let (scratch, daemon) = try world("""
            [[notify]]
            name = "later"
            events = ["revision"]
            url = "http://127.0.0.1:\(port)/ok"
            backoff_max = "5s"

            """)
        let down = Date()
        for page in 1...3 { try drop("p\(page).png", scratch, pages: page, daemon) }
        let listed = try events(scratch)
        #expect(listed.components(separatedBy: "pending  later  revision").count - 1 == 3, "\(listed)")
        #expect(daemon.log.contains("Failed to connect"), "\(daemon.log)")
        let rest = 60 - Date().timeIntervalSince(down)
        if rest > 0 { usleep(UInt32(rest * 1_000_000)) }
        let receiver = try WebhookReceiver(port: port)
        #expect(eventually(timeout: 30) { receiver.requests.count == 3 }, "log: \(daemon.log)")
        #expect(receiver.requests.map { $0.event["revision"] as? Int } == [1, 2, 3])
        #expect(eventually { (try? events(scratch))?.contains("nothing pending") == true })
        #expect(daemon.stop() == 0)
    }

    @Test func hookCommandsGetTheEventAndWhatTheyPrintIsLogged() throws {
        let receiver = try WebhookReceiver()
        let scratch0 = try Scratch()
        let seen = scratch0.path
        let (scratch, daemon) = try world("""
            [[notify]]
            name = "file-it"
            events = ["revision"]
            command = ["/bin/sh", "-c", "cat > \(seen)/$PDFTRAPPER_KEY.json; echo \\"$PDFTRAPPER_TARGET $2\\" > \(seen)/$PDFTRAPPER_KEY.env; echo filed $1", "hook", "{target}", "{revision}"]
            [[notify]]
            name = "broken"
            events = ["revision"]
            command = ["/bin/sh", "-c", "echo cannot reach the archive; exit 1"]
            backoff_max = "1s"
            [[notify]]
            name = "picky"
            events = ["revision"]
            command = ["/bin/sh", "-c", "echo this event is not for me; exit 65"]
            [[notify]]
            name = "gone"
            events = ["revision"]
            url = "\(receiver.url("/gone"))"

            """)
        try drop("one.png", scratch, pages: 1, daemon)
        #expect(eventually { (try? events(scratch))?.components(separatedBy: "failed  ").count == 3 }, "log: \(daemon.log)")
        // The files are whole once the hook has exited, which the log says (it may still be writing
        // them when the other hooks' failures are listed).
        #expect(eventually { daemon.log.contains("notify file-it: /bin/sh: filed All.pdf") }, "log: \(daemon.log)")
        let files = try FileManager.default.contentsOfDirectory(atPath: seen)
        let json = try #require(files.first { $0.hasSuffix(".json") })
        let event = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: seen + "/" + json))) as? [String: Any]
        #expect(event?["target"] as? String == "All.pdf" && json == (event?["key"] as? String ?? "") + ".json")
        #expect(try String(contentsOfFile: seen + "/" + json.replacingOccurrences(of: ".json", with: ".env"), encoding: .utf8)
                == "All.pdf 1\n", "the environment and the placeholders")
        #expect(eventually { daemon.log.components(separatedBy: "notify broken: /bin/sh: cannot reach the archive").count > 3 },
                "a failing command is tried again: \(daemon.log)")
        let listed = try events(scratch)
        #expect(listed.contains("pending  broken  revision"), "\(listed)")
        #expect(listed.contains("failed  picky  revision") && listed.contains("exited 65: this event is not for me"), "\(listed)")
        #expect(listed.contains("failed  gone  revision") && listed.contains("HTTP 410"), "\(listed)")
        // Sent again: the receiver gets the same event, with the same key, and refuses it again.
        let firstKey = receiver.requests.first?.key
        #expect(try events(scratch, ["--retry"]).contains("2 refused events back in"))
        #expect(eventually { receiver.requests.count == 2 && (try? events(scratch))?.components(separatedBy: "failed  ").count == 3 },
                "log: \(daemon.log)")
        #expect(receiver.requests.map(\.key) == [firstKey, firstKey])
        #expect(daemon.stop() == 0)
    }

    /// TLS is checked unless a subscriber says otherwise: a self-signed receiver is refused (and
    /// retried) by default, and reached with `verify_tls = false`.
    @Test func aSelfSignedReceiverIsNotTrustedUnlessTheSubscriberSaysSo() throws {
        let keys = try Scratch()
        let made = try PDFReaders.run("openssl", ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=127.0.0.1",
                                                  "-addext", "subjectAltName=IP:127.0.0.1",
                                                  "-keyout", keys.path + "/key.pem", "-out", keys.path + "/cert.pem"])
        try #require(made.status == 0, "\(made.stderr)")
        let receiver = try WebhookReceiver(tls: (keys.path + "/cert.pem", keys.path + "/key.pem"))
        let (scratch, daemon) = try world("""
            [[notify]]
            name = "strict"
            events = ["revision"]
            url = "\(receiver.url("/ok"))"
            [[notify]]
            name = "lax"
            events = ["revision"]
            url = "\(receiver.url("/ok"))"
            verify_tls = false

            """)
        try drop("one.png", scratch, pages: 1, daemon)
        #expect(eventually { daemon.log.contains("notify lax: delivered") && daemon.log.contains("notify strict: event") },
                "log: \(daemon.log)")
        #expect(receiver.requests.count == 1, "only the one that does not check the certificate got through")
        #expect(daemon.log.contains("notify strict: event") && daemon.log.contains("certificate"), "\(daemon.log)")
        #expect(try events(scratch).contains("pending  strict  revision"))
        #expect(daemon.stop() == 0)
    }

    /// The outbox is written beneath the library, never through a link: one planted in its place
    /// leads nowhere, the page still lands, and the event waits with its journal record.
    @Test func aLinkPlantedAsTheOutboxLeadsNowhere() throws {
        let scratch = try Scratch()
        try scratch.write("config.toml", TestConfig.folders() + """
            [[rule]]
            name = "all"
            target = "All.pdf"
            [[notify]]
            name = "hook"
            events = ["revision"]
            url = "http://127.0.0.1:\(WebhookReceiver.freePort())/"

            """)
        try FileManager.default.createDirectory(atPath: scratch.path + "/decoy", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: scratch.path + "/library/.pdftrapper", withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: scratch.path + "/library/.pdftrapper/outbox",
                                                   withDestinationPath: scratch.path + "/decoy")
        try TestImages.make(scratch.path + "/a.png", width: 100, height: 100)
        let run = try Binary.run(["ingest", "--config", scratch.path + "/config.toml", scratch.path + "/a.png"])
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.path + "/decoy") == [], "\(run)")
        #expect(try PDFReaders.pdfinfoPages(scratch.path + "/library/All.pdf") == 1, "\(run)")
        #expect(run.stderr.contains("could not be queued"), "\(run)")
    }

    @Test func anUploadGivenUpOnIsAnnouncedAsIncomplete() throws {
        let receiver = try WebhookReceiver()
        let (scratch, daemon) = try world("""
            [[notify]]
            name = "hook"
            events = ["incomplete", "quarantined"]
            url = "\(receiver.url("/ok"))"

            """, inbox: "incomplete_timeout = \"1s\"")
        try TestImages.make(scratch.path + "/whole.png", width: 400, height: 300)
        let whole = try Data(contentsOf: URL(fileURLWithPath: scratch.path + "/whole.png"))
        try whole.prefix(whole.count / 2).write(to: URL(fileURLWithPath: scratch.path + "/inbox/half.png"))
        #expect(eventually { receiver.requests.count == 1 }, "log: \(daemon.log)")
        #expect(daemon.stop() == 0)
        let event = try #require(receiver.requests.first?.event)
        #expect(event["event"] as? String == "incomplete" && event["file"] as? String == "half.png", "\(event)")
        #expect((event["reason"] as? String ?? "").hasPrefix("incomplete: "), "\(event)")
        #expect(FileManager.default.fileExists(atPath: event["quarantined_as"] as? String ?? ""), "\(event)")
    }

    /// A quarantine's event is queued before the input leaves its claim: a daemon killed in
    /// between has announced it already, and the next start, quarantining the input again, does
    /// not announce it twice.
    @Test func aQuarantineKilledAfterItsEventIsAnnouncedOnce() throws {
        let receiver = try WebhookReceiver()
        let (scratch, config) = try hooked(["quarantined"], receiver)
        let killed = try DaemonProcess(config: config, in: scratch.url, environment: ["PDFTRAPPER_CRASH_AT": "quarantine-announced"])
        #expect(killed.notify.wait(for: "READY=1"), "log: \(killed.log)")
        _ = try scratch.write("inbox/junk.pdf", "not a PDF at all")
        #expect(eventually { !killed.process.isRunning }, "log: \(killed.log)")
        #expect(killed.process.terminationReason == .uncaughtSignal)
        // The event is queued, the input not yet in the quarantine.
        #expect(try events(scratch).contains("quarantined"), "log: \(killed.log)")
        #expect(!FileManager.default.fileExists(atPath: scratch.path + "/quarantine/junk.pdf"))

        let daemon = try DaemonProcess(config: config, in: scratch.url)
        #expect(daemon.notify.wait(for: "READY=1"), "log: \(daemon.log)")
        #expect(eventually { FileManager.default.fileExists(atPath: scratch.path + "/quarantine/junk.pdf") }, "log: \(daemon.log)")
        #expect(eventually { receiver.requests.count >= 1 && (try? events(scratch).contains("nothing pending")) == true },
                "log: \(daemon.log)")
        usleep(500_000)
        #expect(daemon.stop() == 0)
        let quarantined = receiver.requests.map(\.event).filter { $0["event"] as? String == "quarantined" }
        #expect(quarantined.count == 1, "\(receiver.requests.map(\.body))")
        #expect(quarantined.first?["quarantined_as"] as? String == scratch.path + "/quarantine/junk.pdf")
    }

    @Test func aRevisionKilledBeforeItsEventWasQueuedIsAnnouncedByRecovery() throws {
        let receiver = try WebhookReceiver()
        let (scratch, config) = try hooked(["revision"], receiver)
        try TestImages.make(scratch.path + "/a.png", width: 100, height: 100)
        try TestImages.make(scratch.path + "/b.png", width: 110, height: 100)
        // Killed once the revision is durable and the state says so, before the outbox is written.
        let killed = try Binary.run(["ingest", "--config", config, scratch.path + "/a.png"], environment: ["PDFTRAPPER_CRASH_AT": "after-state"])
        #expect(killed.status != 0)
        // A command without the config cannot queue its event: the journal record stays for one that can.
        let state = scratch.path + "/library/.pdftrapper"
        #expect(try Binary.run(["recover", "--state-dir", state]).status == 0)
        #expect(try Binary.run(["events", "--config", config]).stdout.contains("nothing pending"))
        #expect(((try? FileManager.default.contentsOfDirectory(atPath: state + "/journal")) ?? []).contains { $0.hasSuffix(".json") })
        // Killed before the revision counts: it is rolled back, and nobody hears of it.
        _ = try Binary.run(["ingest", "--config", config, scratch.path + "/b.png"], environment: ["PDFTRAPPER_CRASH_AT": "after-sync"])
        #expect(try Binary.run(["recover", "--config", config]).status == 0)
        let listed = try Binary.run(["events", "--config", config]).stdout
        #expect(listed.components(separatedBy: "pending  hook  revision").count - 1 == 1, "\(listed)")
        // What a writer killed while queueing leaves (its process gone) is tidied by the daemon.
        let pending = scratch.path + "/library/.pdftrapper/outbox/pending/hook"
        try scratch.write("library/.pdftrapper/outbox/pending/hook/.00000000000000000001-x.json.tmp-9999999-7", "{\"half")
        let daemon = try DaemonProcess(config: config, in: scratch.url)
        #expect(eventually { receiver.requests.count == 1 }, "log: \(daemon.log)")
        #expect(eventually { ((try? FileManager.default.contentsOfDirectory(atPath: pending)) ?? ["?"]).isEmpty })
        #expect(daemon.stop() == 0)
        let event = try #require(receiver.requests.first?.event)
        #expect(event["made_by"] as? String == "ingest" && event["rule"] as? String == "all")
        #expect(event["end"] as? Int == (try revisionEnds(scratch.path + "/library/All.pdf")).last)
        #expect((event["inputs"] as? [[String: Any]])?.first?["name"] as? String == "a.png")
        #expect(try PDFReaders.pdfinfoPages(scratch.path + "/library/All.pdf") == 1)
    }
}
