import Foundation
import Glibc
import TestSupport
import Testing

/// The daemon is killed with SIGKILL at random moments under a mixed load, and restarted: images
/// and PDFs in two folders of the inbox, an edit script each round, and scanner batches from the
/// tiny test scanner (a button held, two sheets in its feeder). At the end:
///
/// - every target passes every independent reader;
/// - every input is in its target exactly once and archived (nothing in the quarantine);
/// - every edit script is in done/ or failed/, and its note is in the target once if it is in done/,
///   never if in failed/;
/// - no scan batch is in the scans' target twice, and no more pages are in it (and in the
///   quarantine, for batches a kill cut short) than the scanner delivered;
/// - a webhook receiver got an event for every revision in the targets, and never one key with two bodies.
///
/// `PDFTRAPPER_KILLS` sets how many kills (CI runs 100, about two minutes; `make soak N=1000` a long one).
@Suite struct KillSoakTests {
    @Test func survivesKillsAtRandomMomentsUnderAMixedLoad() throws {
        let kills = Int(ProcessInfo.processInfo.environment["PDFTRAPPER_KILLS"] ?? "") ?? 100
        let filesPerRound = 10
        let scratch = try Scratch()
        let tiny = try TinySane.make()
        let receiver = try WebhookReceiver()
        try scratch.write("config.toml", """
            [daemon]
            state_dir = "state"
            [library]
            root = "library"
            [inbox]
            path = "inbox"
            settle = "100ms"
            rescan_interval = "1s"
            [edits]
            purge = false
            [limits]
            max_pages_after_edit = 500
            [[rule]]
            name = "a"
            target = "A.pdf"
            archive_as = "{name}"
            match = { folder = "a" }
            [[rule]]
            name = "b"
            target = "B.pdf"
            archive_as = "{name}"
            match = { folder = "b" }

            [[scanner]]
            device = "tiny:0"
            poll_ms = 100
            busy_backoff = "500ms"
            [scanner.buttons]
            scan = "adf"

            [profile.adf]
            source = "adf"
            mode = "gray"
            resolution = 50
            page_size = "Letter"
            target = "S.pdf"

            [[notify]]
            name = "hook"
            events = ["revision"]
            url = "\(receiver.url("/ok"))"

            """)
        var generator = SystemRandomNumberGenerator()
        var dropped: [String: String] = [:]  // input name -> target
        var scripts: [String] = []
        // Every fifth round a script that doubles B.pdf 20 times (refused by the page limit), and
        // every round a link into the inbox that leads to a decoy outside every configured folder.
        var doublings: [String] = []
        _ = try scratch.write("decoy/keep.png", "the decoy's own file")
        let decoyBefore = ContainmentTests.snapshot(scratch.path + "/decoy")
        // Every round a paused upload: its first half before the kill, the rest after the restart.
        var pendingHalf: (path: String, rest: Data)?
        for round in 0...kills {
            let daemon = try DaemonProcess(config: scratch.path + "/config.toml", in: scratch.url, environment: tiny.environment)
            #expect(daemon.notify.wait(for: "READY=1", timeout: 30), "round \(round): \(daemon.log)")
            if let (path, rest) = pendingHalf {
                let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
                try handle.seekToEnd()
                try handle.write(contentsOf: rest)
                try handle.close()
                pendingHalf = nil
            }
            guard round < kills else {
                // The last run: let it finish everything, then stop cleanly.
                try? tiny.release("scan")
                #expect(eventually(timeout: 180) { settled(scratch) }, "left: \(daemon.log.suffix(1500))")
                let pending = scratch.path + "/library/.pdftrapper/outbox/pending/hook"
                // Nothing left to send, and nothing a killed writer left behind (the daemon tidies that).
                #expect(eventually(timeout: 60) { ((try? FileManager.default.contentsOfDirectory(atPath: pending)) ?? []).isEmpty },
                        "events left: \((try? FileManager.default.contentsOfDirectory(atPath: pending)) ?? []), \(daemon.log.suffix(1500))")
                #expect(daemon.stop() == 0)
                break
            }
            let names = (0..<filesPerRound).map { "r\(round)-\($0)." + ($0 % 3 == 2 ? "pdf" : "png") }
            _ = try Python.run("""
                import sys, os
                from PIL import Image
                root, round_ = sys.argv[1], int(sys.argv[2])
                for i, name in enumerate(sys.argv[3:]):
                    folder = "a" if i % 2 == 0 else "b"
                    os.makedirs(os.path.join(root, "inbox", folder), exist_ok=True)
                    staging = os.path.join(root, "staging-" + name)
                    Image.new("L", (16 + i, 16 + round_), (i * 20 + round_) % 256).save(staging)
                    os.rename(staging, os.path.join(root, "inbox", folder, name))
                """, [scratch.path, "\(round)"] + names)
            for (index, name) in names.enumerated() { dropped[name] = index % 2 == 0 ? "A.pdf" : "B.pdf" }
            let half = "r\(round)-\(filesPerRound).png"  // the name after the round's own ten
            try TestImages.make(scratch.path + "/staging-" + half, width: 30 + round, height: 20)
            let whole = try Data(contentsOf: URL(fileURLWithPath: scratch.path + "/staging-" + half))
            try whole.prefix(whole.count / 2).write(to: URL(fileURLWithPath: scratch.path + "/inbox/a/" + half))
            pendingHalf = (scratch.path + "/inbox/a/" + half, whole.suffix(from: whole.count / 2))
            dropped[half] = "A.pdf"
            let script = "e\(round).toml"
            try scratch.write("staging-" + script, """
                target = "A.pdf"
                [[edit]]
                op = "note"
                page = 1
                at = [10, 10]
                contents = "soak-\(script)"

                """)
            try FileManager.default.createDirectory(atPath: scratch.path + "/edits", withIntermediateDirectories: true)
            try FileManager.default.moveItem(atPath: scratch.path + "/staging-" + script, toPath: scratch.path + "/edits/" + script)
            scripts.append(script)
            if round % 5 == 1 {
                let doubling = "d\(round).toml"
                try scratch.write("edits/" + doubling, "target = \"B.pdf\"\n"
                                  + String(repeating: "[[edit]]\nop = \"duplicate\"\npages = \"all\"\n", count: 20))
                doublings.append(doubling)
            }
            try FileManager.default.createSymbolicLink(atPath: scratch.path + "/inbox/a/link-\(round).png",
                                                       withDestinationPath: scratch.path + "/decoy")
            if round % 2 == 0 {
                try tiny.loadFeeder(2)
                try tiny.press("scan")
            }
            usleep(UInt32.random(in: 0...1_200_000, using: &generator))
            daemon.signal(SIGKILL)
            daemon.process.waitUntilExit()
            try? tiny.release("scan")
        }
        var violations: [String] = []

        // Inputs: in their target exactly once, archived, and nowhere else.
        var ingested: [String: [String]] = [:]
        for target in ["A.pdf", "B.pdf"] {
            let path = scratch.path + "/library/" + target
            let expected = dropped.values.filter { $0 == target }.count
            try PDFReaders.requireAllAgree(path, pages: expected)
            for name in try history(path).flatMap(inputNames) { ingested[name, default: []].append(target) }
        }
        for (name, target) in dropped.sorted(by: { $0.key < $1.key }) {
            if ingested[name] != [target] { violations.append("\(name): in \(ingested[name] ?? []) instead of once in \(target)") }
            if !FileManager.default.fileExists(atPath: scratch.path + "/archive/" + name) { violations.append("\(name): not archived") }
        }
        let quarantined = (try? FileManager.default.contentsOfDirectory(atPath: scratch.path + "/quarantine")) ?? []
        // Only scan batches cut short, and the notes of the links (removed, never kept); a note
        // whose write a kill cut short leaves at most a hidden temporary file, never a half note.
        for entry in quarantined where !entry.hasPrefix("scan-") && !entry.hasPrefix("a%2Flink-") && !entry.hasPrefix(".") {
            violations.append("quarantined: \(entry)")
        }
        for folder in ["inbox/a", "quarantine"] {
            let links = ((try? FileManager.default.contentsOfDirectory(atPath: scratch.path + "/" + folder)) ?? [])
                .filter { $0.hasPrefix("link-") || ($0.hasPrefix("a%2Flink-") && !$0.hasSuffix(".why.txt")) }
            if !links.isEmpty { violations.append("links left in \(folder): \(links)") }
        }
        if ContainmentTests.snapshot(scratch.path + "/decoy") != decoyBefore { violations.append("the decoy outside was written") }
        for doubling in doublings {
            if !FileManager.default.fileExists(atPath: scratch.path + "/edits/failed/" + doubling) {
                violations.append("\(doubling): not in failed/")
            }
        }

        // Edit scripts: filed once, applied at most once (exactly once when done).
        let notes = try annotationContents(scratch.path + "/library/A.pdf")
        for script in scripts {
            let done = FileManager.default.fileExists(atPath: scratch.path + "/edits/done/" + script)
            let failed = FileManager.default.fileExists(atPath: scratch.path + "/edits/failed/" + script)
            let applied = notes.filter { $0 == "soak-" + script }.count
            if done == failed { violations.append("\(script): done \(done), failed \(failed)") }
            if applied != (done ? 1 : 0) { violations.append("\(script): its note is in A.pdf \(applied) times (done: \(done))") }
        }

        // Scan batches: none twice, no page from nowhere.
        let scans = scratch.path + "/library/S.pdf"
        var scanPages = 0
        if FileManager.default.fileExists(atPath: scans) {
            scanPages = try PDFReaders.pdfinfoPages(scans)
            try PDFReaders.requireAllAgree(scans, pages: scanPages)
            let batches = try history(scans).compactMap { $0.firstMatch(of: /scan-[0-9a-f-]+/).map { String($0.0) } }
            if Set(batches).count != batches.count { violations.append("a scan batch went into S.pdf twice: \(batches)") }
        }
        let quarantinedPages = quarantined.filter { $0.hasPrefix("scan-") }.reduce(0) { count, folder in
            count + ((try? FileManager.default.contentsOfDirectory(atPath: scratch.path + "/quarantine/" + folder)) ?? [])
                .filter { !$0.hasSuffix(".why.txt") }.count
        }
        if scanPages + quarantinedPages > tiny.pagesDelivered {
            violations.append("\(scanPages) scanned pages in S.pdf and \(quarantinedPages) in quarantine, but the scanner "
                              + "delivered \(tiny.pagesDelivered)")
        }
        violations += eventViolations(receiver.requests, scratch)
        #expect(violations == [], "\(violations.joined(separator: "\n"))")
        print("kill soak: \(kills) kills survived; \(dropped.count) inputs, \(scripts.count) edit scripts, \(scanPages) scanned "
              + "pages (\(quarantinedPages) of cut-short batches in quarantine); \(violations.count) violations")
    }

    /// Every revision in the targets has its event (by target and end), and a key that came more
    /// than once (a retry, or an event made again after a kill) came with the same body each time.
    func eventViolations(_ requests: [WebhookReceiver.Request], _ scratch: Scratch) -> [String] {
        var violations: [String] = []
        var bodies: [String: String] = [:]
        for request in requests {
            if let earlier = bodies[request.key], earlier != request.body {
                violations.append("key \(request.key) came with two bodies:\n\(earlier)\n\(request.body)")
            }
            bodies[request.key] = request.body
        }
        for event in requests.map(\.event) where event["target"] as? String == "S.pdf" {
            if event["made_by"] as? String != "scan" || event["profile"] as? String != "adf" {
                violations.append("a scan's event says made_by \(event["made_by"] ?? "-"), profile \(event["profile"] ?? "-")")
            }
        }
        let announced = Set(requests.map(\.event).compactMap { event -> String? in
            guard let target = event["target"] as? String, let end = event["end"] as? Int else { return nil }
            return "\(target)@\(end)"
        })
        for target in ["A.pdf", "B.pdf", "S.pdf"] where FileManager.default.fileExists(atPath: scratch.path + "/library/" + target) {
            let ends = ((try? history(scratch.path + "/library/" + target)) ?? []).compactMap { line in
                line.firstMatch(of: /bytes \d+-(\d+)/).flatMap { Int($0.1) }
            }
            for end in ends where !announced.contains("\(target)@\(end)") {
                violations.append("\(target): the revision ending at \(end) was never announced")
            }
        }
        return violations
    }

    func history(_ path: String) throws -> [String] {
        try Binary.run(["history", path]).stdout.split(separator: "\n").map(String.init)
    }

    /// The inputs a history line names: `r3-7.png`, `r4-2.pdf`.
    func inputNames(_ line: String) -> [String] {
        line.matches(of: /\br\d+-\d+\.(png|pdf)\b/).map { String($0.0) }.reduce(into: []) { if !$0.contains($1) { $0.append($1) } }
    }

    func annotationContents(_ path: String) throws -> [String] {
        let run = try Binary.run(["annotations", path, "--json"])
        let list = try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [[String: Any]] ?? []
        return list.compactMap { $0["contents"] as? String }
    }

    /// Nothing left to do: the inbox and the edits folder hold no input, and no scan is spooled.
    func settled(_ scratch: Scratch) -> Bool {
        let inbox = (FileManager.default.enumerator(atPath: scratch.path + "/inbox")?.allObjects as? [String]) ?? []
        let edits = (try? FileManager.default.contentsOfDirectory(atPath: scratch.path + "/edits")) ?? []
        let spool = (try? FileManager.default.contentsOfDirectory(atPath: scratch.path + "/state/scans")) ?? []
        let claimedScripts = (FileManager.default.enumerator(atPath: scratch.path + "/edits/.pdftrapper-claims")?.allObjects as? [String])?
            .filter { $0.hasSuffix(".toml") } ?? []
        return !inbox.contains { $0.hasSuffix(".png") || $0.hasSuffix(".pdf") } && !edits.contains { $0.hasSuffix(".toml") }
            && spool.isEmpty && claimedScripts.isEmpty
    }
}
