@testable import Daemon
import Foundation
import System
import Testing
import TrapperCore

/// The scanner agent's supervision over its two ports: a clock moved by hand and agents that
/// talk, die, hang or fail to start on cue. The back-off, the stall limit and the stop's grace are
/// checked in the minutes they take, in milliseconds.
@Suite struct ScannerSupervisorTests {
    final class HandClock: Clock, @unchecked Sendable {
        private let lock = NSLock()
        private var reading = Date(timeIntervalSince1970: 1_800_000_000)
        func now() -> Date { lock.withLock { reading } }
        func advance(_ seconds: TimeInterval) { lock.withLock { reading += seconds } }
    }

    /// One started agent: says what the test queues, ends when the test ends it.
    final class ScriptedAgent: ScannerAgentHandle {
        var queued: [AgentMessage] = []
        var ended: ChildProcess.Ending?
        var lastHeard: Date
        var reloads = 0
        var askedToStop = false
        /// Whether it ends when asked to stop (a backend stuck in a read does not).
        var obeysStop = true
        init(_ now: Date) { lastHeard = now }
        func messages(now: Date) -> [AgentMessage] {
            defer { queued = [] }
            if !queued.isEmpty { lastHeard = now }
            return queued
        }
        func ending() -> ChildProcess.Ending? { ended }
        func reload() { reloads += 1 }
        func askToStop() {
            askedToStop = true
            if obeysStop { ended = .exited(0) }
        }
        func kill() -> ChildProcess.Ending {
            ended = ended ?? .killed(signal: SIGKILL)
            return ended!
        }
    }

    struct CannotStart: Error, CustomStringConvertible {
        var description: String { "cannot start pdftrapper: No such file or directory" }
    }

    /// A supervisor whose launches are recorded; `failing` launches throw.
    final class Rig {
        let clock = HandClock()
        var agents: [ScriptedAgent] = []
        var launches: [(at: Date, arguments: [String])] = []
        var failing = 0
        /// Whether every agent it starts has ended by the first poll.
        var diesAtOnce = false
        var logged: [String] = []
        lazy var supervisor = ScannerSupervisor(configPath: "/etc/pdftrapper.toml", clock: clock, launch: { [unowned self] arguments in
            launches.append((clock.now(), arguments))
            if failing > 0 {
                failing -= 1
                throw CannotStart()
            }
            let agent = ScriptedAgent(clock.now())
            if diesAtOnce { agent.ended = .exited(70) }
            agents.append(agent)
            return agent
        }, log: { [unowned self] level, text in logged.append("\(level): \(text)") })

        /// Polls once a second for `seconds`, as the daemon's loop does (more often, in fact).
        @discardableResult
        func run(_ seconds: Int) -> [ScannerSupervisor.Event] {
            var events: [ScannerSupervisor.Event] = []
            for _ in 0..<seconds {
                clock.advance(1)
                events += supervisor.events()
            }
            return events
        }

        /// Seconds between one launch and the next.
        var gaps: [Int] { zip(launches, launches.dropFirst()).map { Int($1.at.timeIntervalSince($0.at).rounded()) } }
    }

    @Test func whatTheAgentSaysReachesTheLoopAndItsRunningConfigIsPassed() {
        let rig = Rig()
        rig.supervisor.runningConfig = "/var/lib/pdftrapper/running-config.toml"
        rig.supervisor.start()
        #expect(rig.launches.map(\.arguments) == [["--config", "/etc/pdftrapper.toml",
                                                   "--running-config", "/var/lib/pdftrapper/running-config.toml"]])
        rig.agents[0].queued = [.alive, .status("scanning: profile adf"), .device("tiny:0"), .batch("/spool/b1"), .idle]
        #expect(rig.run(1) == [.status("scanning: profile adf"), .batch("/spool/b1"), .idle])
        rig.supervisor.reload()
        #expect(rig.agents[0].reloads == 1)
        #expect(rig.logged.isEmpty)
    }

    @Test func anAgentThatKeepsDyingIsStartedAgain1_2_4SecondsApartUpToAMinute() {
        let rig = Rig()
        rig.diesAtOnce = true
        rig.supervisor.start()
        rig.run(400)
        // Each death is seen at the next poll, a second after the start; then the wait, doubling
        // up to a minute.
        let waits = [1, 2, 4, 8, 16, 32, 60, 60, 60]
        #expect(Array(rig.gaps.prefix(waits.count)) == waits.map { $0 + 1 }, "\(rig.gaps)")
        #expect(rig.logged.first == "warning: pdftrapper: scanner agent exited with 70; restarting it in 1 s")
        #expect(rig.logged.last == "warning: pdftrapper: scanner agent exited with 70; restarting it in 60 s")
    }

    @Test func anAgentThatRanAMinuteWasHealthyAndTheWaitStartsAgainAtOneSecond() {
        let rig = Rig()
        rig.supervisor.start()
        for _ in 0..<3 {
            rig.agents.last!.ended = .killed(signal: 9)
            rig.run(10)
        }
        #expect(rig.logged.last == "warning: pdftrapper: scanner agent killed by signal 9; restarting it in 4 s")
        // This one keeps talking for two minutes, then dies.
        for _ in 0..<120 {
            rig.agents.last!.queued = [.alive]
            rig.run(1)
        }
        rig.agents.last!.ended = .killed(signal: 9)
        rig.run(1)
        #expect(rig.logged.last == "warning: pdftrapper: scanner agent killed by signal 9; restarting it in 1 s")
    }

    @Test func anAgentSilentForFiveMinutesIsKilledAndReplaced() {
        let rig = Rig()
        rig.supervisor.start()
        rig.run(Int(ScannerSupervisor.stallSeconds))
        #expect(rig.agents.count == 1 && rig.agents[0].ended == nil, "silent for exactly the limit is still alive")
        rig.run(1)
        #expect(rig.agents[0].ended == .killed(signal: SIGKILL))
        #expect(rig.logged == ["error: pdftrapper: scanner agent silent for 300 s (a scanner backend hung?); killing it"])
        rig.run(2)
        #expect(rig.agents.count == 2 && rig.agents[1].ended == nil)
    }

    @Test func anAgentThatCannotStartIsTriedAgainWithTheSameBackOff() {
        let rig = Rig()
        rig.failing = 3
        rig.supervisor.start()
        rig.run(20)
        #expect(rig.gaps == [1, 2, 4], "\(rig.gaps)")
        #expect(rig.agents.count == 1 && rig.supervisor.isRunning)
        #expect(rig.logged == Array(repeating: "error: pdftrapper: scanner agent: cannot start pdftrapper: No such file or directory", count: 3))
    }

    @Test func stoppingAsksFirstAndKillsOnlyAnAgentThatDoesNotListen() {
        let rig = Rig()
        rig.supervisor.start()
        rig.supervisor.stop()
        #expect(rig.agents[0].askedToStop && rig.agents[0].ended == .exited(0))
        #expect(!rig.supervisor.isRunning)

        rig.supervisor.start()
        let stuck = rig.agents[1]
        stuck.obeysStop = false
        // The stop waits on the clock; it moves past the grace from another thread.
        let mover = Thread { [clock = rig.clock] in
            usleep(50_000)
            clock.advance(ScannerSupervisor.stopSeconds + 1)
        }
        mover.start()
        rig.supervisor.stop()
        #expect(stuck.askedToStop && stuck.ended == .killed(signal: SIGKILL))
    }
}
