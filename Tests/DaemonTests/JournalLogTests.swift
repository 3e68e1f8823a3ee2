import Daemon
import Foundation
import Glibc
import Testing
import System
import TrapperCore

@Suite struct JournalLogTests {
    static let socket = "/run/systemd/journal/socket"
    static var journaldRuns: Bool {
        var status = stat()
        return stat(socket, &status) == 0 && (status.st_mode & S_IFMT) == S_IFSOCK
    }
    static var canUnshare: Bool {
        getuid() == 0 && ToolRun.tool("unshare") != nil && ToolRun.tool("systemd-journald") != nil
    }

    /// The seam under `sd_journal_sendv`: exactly these "KEY=value" byte strings go out.
    @Test func entryBytes() {
        let entry = JournalLog.entry(.warning, "/srv/scans/inbox/x.jpg: truncated JPEG", fields: [
            EventField.input: "/srv/scans/inbox/x.jpg",
            EventField.target: "two\nlines\u{0}and a NUL",
            EventField.end: "3",
            "MESSAGE": "would repeat MESSAGE",
        ])
        #expect(entry.map { String(decoding: $0, as: UTF8.self) } == [
            "MESSAGE=/srv/scans/inbox/x.jpg: truncated JPEG",
            "PRIORITY=4",
            "SYSLOG_IDENTIFIER=pdftrapper",
            "PDFTRAPPER_END=3",
            "PDFTRAPPER_INPUT=/srv/scans/inbox/x.jpg",
            "PDFTRAPPER_TARGET=two\nlines\u{0}and a NUL",
        ])
    }

    @Test func prioritiesAreSyslogNumbers() {
        #expect(LogLevel.allCases.map(\.syslogPriority) == [7, 6, 5, 4, 3])
        for level in LogLevel.allCases {
            #expect(JournalLog.entry(level, "m")[1] == Array("PRIORITY=\(level.syslogPriority)".utf8))
        }
    }

    @Test func fieldNamesJournaldAccepts() {
        #expect(JournalLog.fieldName("pdftrapper_rule") == "PDFTRAPPER_RULE")
        #expect(JournalLog.fieldName("scan-profile.name") == "SCAN_PROFILE_NAME")
        #expect(JournalLog.fieldName("_PID") == "PDFTRAPPER__PID")
        #expect(JournalLog.fieldName("3d") == "PDFTRAPPER_3D")
        #expect(JournalLog.fieldName("") == "PDFTRAPPER_")
        #expect(JournalLog.fieldName(String(repeating: "A", count: 100)).count == 64)
    }

    /// Without journald, libsystemd drops the entry and reports success (journal-send.c: "Fail
    /// silently if the journal is not available"). Kept as a test because JournalLog's design rests
    /// on it: the journal is chosen only when stderr is connected to journald (EventLogs.automatic).
    @Test(.enabled(if: !journaldRuns, "journald runs here; see reachesTheJournal"))
    func withoutJournaldAnEntryIsDroppedSilently() {
        #expect(Journal.send(JournalLog.entry(.info, "nobody listens")) == 0)
    }

    /// The machine's own journald: send, then read back through journalctl.
    @Test(.enabled(if: journaldRuns && ToolRun.tool("journalctl") != nil,
                   "no journald runs on this machine (no /run/systemd/journal/socket): the entry bytes are checked by entryBytes, delivery by reachesAPrivateJournald"))
    func reachesTheJournal() throws {
        let unique = "journal-test-\(UUID().uuidString)"
        JournalLog(minimum: .debug).log(.warning, "\(unique): test event", fields: [
            EventField.input: unique, EventField.target: "line one\nline two", EventField.rule: "receipts", EventField.end: "7",
        ])
        let record = try readBack(unique, journalctl: [ToolRun.tool("journalctl")!])
        try checkRecord(record, unique: unique)
    }

    /// A journald of the test's own, in a private mount namespace (tmpfs over /run and
    /// /var/log/journal, nothing on the machine touched): a child runs JournalLog against it, then
    /// journalctl in the same namespace reads the entry back. Proves delivery in containers too.
    @Test(.enabled(if: canUnshare, "needs root, unshare(1) and systemd-journald"))
    func reachesAPrivateJournald() throws {
        let unique = "journal-test-\(UUID().uuidString)"
        let script = """
            set -e
            mount -t tmpfs tmpfs /run
            mkdir -p /run/systemd/journal
            if [ -d /var/log/journal ]; then mount -t tmpfs tmpfs /var/log/journal; fi
            "$JOURNALD" & journald=$!
            trap 'kill $journald' EXIT
            i=0
            until [ -S /run/systemd/journal/socket ]; do
              i=$((i + 1)); [ $i -lt 200 ] || { echo "journald made no socket" >&2; exit 1; }; sleep 0.05
            done
            "$@" >/dev/null
            i=0
            until out=$(journalctl --no-pager -o json "PDFTRAPPER_INPUT=$UNIQUE") && [ -n "$out" ]; do
              i=$((i + 1)); [ $i -lt 100 ] || { echo "entry never appeared" >&2; exit 1; }; sleep 0.05
            done
            printf '%s\\n' "$out"
            """
        var env = ProcessInfo.processInfo.environment
        env["JOURNALD"] = ToolRun.tool("systemd-journald")!
        env["UNIQUE"] = unique
        env["PDFTRAPPER_TEST_HELPER"] = "journalSend"
        env["HELPER_INPUT"] = unique
        env["HELPER_MESSAGE"] = "\(unique): test event"
        let run = try ToolRun.run(
            ToolRun.tool("unshare")!, ["--mount", "--propagation", "private", "sh", "-c", script, "sh"] + Helper.commandLine("journalSend"),
            environment: env)
        #expect(run.status == 0, "\(run.stderr)")
        let line = try #require(run.stdout.split(separator: "\n").first, "no entry: \(run.stderr)")
        let record = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        try checkRecord(record, unique: unique)
    }

    private func readBack(_ unique: String, journalctl: [String]) throws -> [String: Any] {
        for _ in 0..<50 {
            let run = try ToolRun.run(journalctl[0], Array(journalctl.dropFirst()) + ["--no-pager", "-o", "json", "PDFTRAPPER_INPUT=\(unique)"])
            if let line = run.stdout.split(separator: "\n").first,
               let record = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] {
                return record
            }
            usleep(100_000)
        }
        throw JournalTestError.notFound(unique)
    }

    private func checkRecord(_ record: [String: Any], unique: String) throws {
        #expect(record["MESSAGE"] as? String == "\(unique): test event")
        #expect(record["PRIORITY"] as? String == "4")
        #expect(record["SYSLOG_IDENTIFIER"] as? String == "pdftrapper")
        #expect(record["PDFTRAPPER_INPUT"] as? String == unique)
        #expect(record["PDFTRAPPER_TARGET"] as? String == "line one\nline two")
        #expect(record["PDFTRAPPER_RULE"] as? String == "receipts")
        #expect(record["PDFTRAPPER_END"] as? String == "7")
        #expect(record["_TRANSPORT"] as? String == "journal")
    }
}

enum JournalTestError: Error { case notFound(String) }
