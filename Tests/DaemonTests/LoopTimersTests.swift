@testable import Daemon
import Foundation
import Testing

/// The daemon loop's periodic decisions, on scripted clock readings: what took a whole daemon
/// and real sleeps (the 30 s claim retry) to see is checked here in milliseconds.
@Suite struct LoopTimersTests {
    let start = Date(timeIntervalSince1970: 1_800_000_000)

    func at(_ seconds: Double) -> Date { start.addingTimeInterval(seconds) }

    @Test func anInputNotWholeIsLookedAtAgainLessAndLessOftenUpTo30s() {
        var timers = LoopTimers(now: start)
        var now = 0.0
        var looks: [Double] = []
        let first = timers.notWhole("scan.pdf", now: at(now))
        #expect(first == false, "the first wait is news")
        while looks.count < 8 {
            now += 0.25
            guard timers.dueInputs(now: at(now)) == ["scan.pdf"] else { continue }
            looks.append(now)
            let again = timers.notWhole("scan.pdf", now: at(now))
            #expect(again == true, "the same wait goes on")
        }
        let gaps = zip(looks, [0] + looks).map { $0 - $1 }
        #expect(gaps == [1, 2, 4, 8, 16, 30, 30, 30], "\(gaps)")
        timers.done("scan.pdf")
        #expect(timers.dueInputs(now: at(now + 60)).isEmpty)
        let renewed = timers.notWhole("scan.pdf", now: at(now + 60))
        #expect(renewed == false, "a new wait starts at 1 s again")
        #expect(timers.dueInputs(now: at(now + 61)) == ["scan.pdf"])
    }

    @Test func inputsDueTogetherComeInNameOrder() {
        var timers = LoopTimers(now: start)
        _ = timers.notWhole("b.pdf", now: at(0))
        _ = timers.notWhole("a.pdf", now: at(0.5))
        _ = timers.notWhole("c.pdf", now: at(5))
        #expect(timers.dueInputs(now: at(0.9)).isEmpty)
        #expect(timers.dueInputs(now: at(2)) == ["a.pdf", "b.pdf"])
    }

    @Test func claimsAreRetriedEveryRescanIntervalButNotMoreOftenThan30s() {
        for (rescan, interval) in [(1.0, 30.0), (30, 30), (300, 300)] {
            var timers = LoopTimers(now: start)
            var retries: [Double] = []
            for tenth in 1...(Int(interval) * 25) {
                let now = Double(tenth) / 10
                if timers.claimRetryDue(now: at(now), rescanSeconds: rescan) { retries.append(now) }
            }
            #expect(retries == [interval, 2 * interval], "rescan \(rescan): \(retries)")
        }
    }

    @Test func theWatchdogIsPingedAtHalfItsInterval() {
        var timers = LoopTimers(now: start)
        let pinged = timers.watchdogDue(now: at(0), microseconds: nil)
        #expect(!pinged, "no watchdog, no ping")
        var pings: [Double] = []
        for tenth in 0...100 {
            let now = Double(tenth) / 10
            if timers.watchdogDue(now: at(now), microseconds: 4_000_000) { pings.append(now) }
        }
        #expect(pings == [0, 2, 4, 6, 8, 10], "\(pings)")
    }

    @Test func aStatusLineGoesOutAtMostOnceASecond() {
        var timers = LoopTimers(now: start)
        let sent = [0, 0.2, 0.9, 1.0, 1.5, 2.1, 2.2].filter { timers.statusDue(now: at($0)) }
        #expect(sent == [0, 1.0, 2.1], "\(sent)")
    }
}
