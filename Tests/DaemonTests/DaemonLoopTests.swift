@testable import Daemon
import Foundation
import Testing
import TestSupport
import System
import TrapperCore

/// The daemon's loop as a value, driven on scripted events and clock readings: the order of a
/// round, chunks and a stop between them, what is said once per episode, looks again at files not
/// whole yet, claim retries, the watchdog, STATUS= lines, the scanner's words and a reload's
/// decisions. What took a whole daemon and real sleeps is checked here in milliseconds.
@Suite struct DaemonLoopTests {
    let start = Date(timeIntervalSince1970: 1_800_000_000)
    let settings = DaemonLoop.Settings(inboxPath: "/srv/inbox", editsRoot: "/srv/edits", rescanSeconds: 1, watchdogMicroseconds: nil)

    func at(_ seconds: Double) -> Date { start.addingTimeInterval(seconds) }

    func machine(_ settings: DaemonLoop.Settings? = nil) -> DaemonLoop {
        var status = DaemonStatus(pid: 1, started: start, folders: [:])
        status.folders = ["/srv/inbox": "inotify", "/srv/edits": "inotify"]
        return DaemonLoop(status: status, settings: settings ?? self.settings, now: start)
    }

    func inputs(_ count: Int) -> [DaemonLoop.Found] {
        (1...count).map { DaemonLoop.Found(root: "/srv/inbox", path: "/srv/inbox/\($0).jpg", relativePath: "\($0).jpg", isRegularFile: true) }
    }

    func taken(_ actions: [DaemonLoop.Action]) -> [Int] {
        actions.compactMap { if case .take(let chunk) = $0 { chunk.count } else { nil } }
    }

    /// The periodic part every round ends with when nothing is due by the clock.
    let quietEnd: [DaemonLoop.Action] = [.collectScanner, .expireHeld, .collectOCR]

    func logs(_ actions: [DaemonLoop.Action]) -> [(LogLevel, String)] {
        actions.compactMap { if case .log(let level, let text, _) = $0 { (level, text) } else { nil } }
    }

    @Test func aRoundHandsEditScriptsOverFirstThenTakesInputsAChunkAtATime() {
        var loop = machine()
        let edits = [DaemonLoop.Found(root: "/srv/edits", path: "/srv/edits/a.edit", relativePath: "a.edit", isRegularFile: true),
                     DaemonLoop.Found(root: "/srv/edits", path: "/srv/edits/link.edit", relativePath: "link.edit", isRegularFile: false)]
        let first = loop.handle(.found(edits + inputs(150)), now: at(1))
        #expect(Array(first.prefix(3)) == [.submitEdit(path: "/srv/edits/a.edit", relativePath: "a.edit"),
                                           .submitEdit(path: "/srv/edits/link.edit", relativePath: "link.edit"), .collectEdits])
        #expect(taken(first) == [Inbox.revisionLimit])
        #expect(first.count == 4, "nothing else until the chunk is done: \(first)")
        #expect(loop.status.queue == 150)
        if case .take(let chunk) = first[3] { #expect(chunk.first == Inbox.Arrival(path: "/srv/inbox/1.jpg", relativePath: "1.jpg", isRegularFile: true)) }
        #expect(taken(loop.handle(.chunkTaken(stopPending: false), now: at(2))) == [64])
        #expect(loop.status.queue == 86)
        #expect(taken(loop.handle(.chunkTaken(stopPending: false), now: at(3))) == [22])
        let end = loop.handle(.chunkTaken(stopPending: false), now: at(4))
        #expect(end == [.saveStatus, .notify("STATUS=watching 2 folders; queue 0")] + quietEnd)
        // A round with nothing found still does the periodic work, and says nothing.
        #expect(loop.handle(.found([]), now: at(5)) == [.collectEdits] + quietEnd)
    }

    @Test func aStopWaitsForTheChunkInHandNotForTheBacklog() {
        var loop = machine()
        #expect(taken(loop.handle(.found(inputs(200)), now: at(1))) == [64])
        let after = loop.handle(.chunkTaken(stopPending: true), now: at(2))
        #expect(taken(after).isEmpty)
        #expect(loop.status.queue == 0)
        #expect(loop.handle(.signal(.stop), now: at(2)) == [.stop])
        #expect(loop.handle(.stopped, now: at(2)) == [.saveStatus])
        #expect(loop.status.state == "stopped")
    }

    @Test func aRetryForTheSameReasonIsSaidOnceAnEpisode() {
        var loop = machine()
        let full = JobOutcome(input: "noise.png", result: .retryLater, reason: "write /srv/library/A.pdf: No space left on device")
        #expect(logs(loop.handle(.outcome(full), now: at(1))).map(\.0) == [.warning])
        #expect(loop.status.retrying == ["noise.png": full.reason!])
        // Every claim retry fails the same way while the disk stays full: one warning for the episode.
        for retry in 1...5 {
            #expect(logs(loop.handle(.outcome(full), now: at(Double(30 * retry)))).map(\.0) == [.debug])
        }
        #expect(loop.status.recent.count == 1)
        // Another reason is news.
        var denied = full
        denied.reason = "write /srv/library/A.pdf: Permission denied"
        #expect(logs(loop.handle(.outcome(denied), now: at(200))).map(\.0) == [.warning])
        let landed = JobOutcome(input: "noise.png", result: .ingested, target: "A.pdf", pages: 1)
        #expect(logs(loop.handle(.outcome(landed), now: at(230))).map(\.0) == [.info])
        #expect(loop.status.retrying == nil)
        // After the episode, the same trouble again is a new episode.
        #expect(logs(loop.handle(.outcome(full), now: at(300))).map(\.0) == [.warning])
    }

    @Test func aFileNotWholeIsLookedAtAgainUntilItIsWholeOrGone() {
        var loop = machine()
        let paused = JobOutcome(input: "upload.pdf", result: .waiting, reason: "(no %%EOF yet)")
        #expect(logs(loop.handle(.outcome(paused), now: at(0))).map(\.0) == [.info])
        #expect(loop.status.waiting == ["upload.pdf": "(no %%EOF yet)"])
        #expect(loop.handle(.found([]), now: at(0.5)) == [.collectEdits] + quietEnd)
        let due = loop.handle(.found([]), now: at(1))
        #expect(due == [.collectEdits, .lookAgain([Inbox.Arrival(path: "/srv/inbox/upload.pdf", relativePath: "upload.pdf", isRegularFile: true)])]
            + quietEnd)
        // Still not whole: said at debug level, and looked at again 2 s later.
        #expect(logs(loop.handle(.outcome(paused), now: at(1))).map(\.0) == [.debug])
        #expect(loop.handle(.found([]), now: at(2.5)) == [.collectEdits] + quietEnd)
        #expect(loop.handle(.found([]), now: at(3)).contains { if case .lookAgain = $0 { true } else { false } })
        // Gone meanwhile (deleted, taken by another daemon): no longer waited for.
        #expect(loop.handle(.gone(["upload.pdf"]), now: at(3)) == [.saveStatus])
        #expect(loop.status.waiting == nil)
        #expect(loop.handle(.found([]), now: at(100)).allSatisfy { if case .lookAgain = $0 { false } else { true } })
    }

    @Test func claimsAreRetriedEveryThirtySecondsOrTheRescanIntervalWhenLonger() {
        func retries(_ settings: DaemonLoop.Settings, until: Double) -> [Double] {
            var loop = machine(settings)
            return stride(from: 1.0, through: until, by: 1).filter { loop.handle(.found([]), now: at($0)).contains(.retryClaims) }
        }
        #expect(retries(settings, until: 100) == [30, 60, 90])
        var slow = settings
        slow.rescanSeconds = 45
        #expect(retries(slow, until: 100) == [45, 90])
    }

    @Test func theWatchdogIsPingedAtHalfItsInterval() {
        var watched = settings
        watched.watchdogMicroseconds = 10_000_000
        var loop = machine(watched)
        let pings = stride(from: 0.0, through: 12, by: 1).filter { loop.handle(.found([]), now: at($0)).contains(.notify("WATCHDOG=1")) }
        #expect(pings == [0, 5, 10])
        var unwatched = machine()
        #expect(!unwatched.handle(.found([]), now: at(0)).contains(.notify("WATCHDOG=1")))
    }

    @Test func statusLinesGoOutAtMostOnceASecondAndSayWhatWaits() {
        var loop = machine()
        let one = JobOutcome(input: "a.jpg", result: .ingested, rule: "all", target: "A.pdf", pages: 1)
        let said = loop.handle(.outcome(one), now: at(0))
        #expect(said.last == .notify("STATUS=watching 2 folders; queue 0; last: a.jpg: 1 page into A.pdf (rule all)"))
        #expect(!loop.handle(.outcome(one), now: at(0.5)).contains { if case .notify = $0 { true } else { false } })
        _ = loop.handle(.outcome(JobOutcome(input: "b.pdf", result: .waiting, reason: "(3 of 5 MB)")), now: at(0.6))
        _ = loop.handle(.outcome(JobOutcome(input: "c.png", result: .retryLater, reason: "disk full")), now: at(0.7))
        #expect(loop.handle(.outcome(one), now: at(1.0)).last
            == .notify("STATUS=watching 2 folders; queue 0; retrying 1: disk full; waiting: b.pdf (3 of 5 MB); last: a.jpg: 1 page into A.pdf (rule all)"))
    }

    @Test func theScannerAgentsWordsBecomeStatusAndBatches() {
        var loop = machine()
        #expect(loop.handle(.scanner(.status("scanning page 2 of receipts")), now: at(0))
            == [.saveStatus, .notify("STATUS=scanning page 2 of receipts")])
        #expect(loop.status.state == "scanning page 2 of receipts")
        #expect(loop.handle(.scanner(.batch("/state/scans/7")), now: at(1)) == [.commitScan(folder: "/state/scans/7")])
        #expect(loop.handle(.scanner(.idle), now: at(2)) == [.saveStatus, .notify("STATUS=watching 2 folders; queue 0")])
        #expect(loop.status.state == "idle")
    }

    @Test func startSignalsAndReload() {
        var loop = machine()
        #expect(loop.handle(.started, now: at(0)) == [.saveStatus, .notify("READY=1\nSTATUS=watching 2 folders; queue 0")])
        #expect(loop.handle(.signal(.reload), now: at(1)) == [.reload])
        var fresh = settings
        fresh.rescanSeconds = 90
        fresh.inboxPath = "/srv/other"
        _ = loop.handle(.watching(["/srv/other": "poll (nfs)"]), now: at(1))
        #expect(loop.handle(.reloaded(fresh), now: at(1)) == [.notify("READY=1\nSTATUS=watching 1 folder; queue 0")])
        #expect(loop.settings == fresh)
        #expect(!loop.handle(.found([]), now: at(60)).contains(.retryClaims), "the new interval counts")
        #expect(loop.handle(.found([]), now: at(90)).contains(.retryClaims))
    }

    @Test func aReloadMakesTheWatchAndTheWorkspaceAnewOnlyWhenTheyChange() throws {
        func config(settle: String, _ extra: String = "", web: String = "127.0.0.1:8080") throws -> Config {
            let text = TestConfig.folders(settle: settle, inbox: extra) + "[web]\nlisten = \"\(web)\"\n[[rule]]\nname = \"all\"\ntarget = \"A.pdf\"\n"
            return try ConfigParser.parse(Array(text.utf8), file: "/srv/config.toml", environment: [:])
        }
        let base = try config(settle: "1s")
        #expect(!DaemonLoop.watchesChanged(from: base, to: try config(settle: "1s")))
        #expect(DaemonLoop.watchesChanged(from: base, to: try config(settle: "2s")))
        #expect(DaemonLoop.watchesChanged(from: base, to: try config(settle: "1s", "ignore = [\"*.tmp\"]")))
        #expect(!DaemonLoop.servedChanged(from: base, to: try config(settle: "2s")))
        #expect(DaemonLoop.servedChanged(from: base, to: try config(settle: "1s", web: "127.0.0.1:9090")))
    }
}
