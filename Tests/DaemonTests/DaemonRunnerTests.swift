@testable import Daemon
import Foundation
import System
import Testing
import TestSupport

/// The daemon loop's runner in this process, on real folders, inotify and files, with its other
/// ports scripted: signals that ask for a reload and then a stop once a page has landed, and a
/// service manager that records what systemd would hear. No notify socket, no signal sent.
@Suite struct DaemonRunnerTests {
    /// Signals by script: each poll asks `next` what has arrived.
    final class ScriptedSignals: SignalSource, @unchecked Sendable {
        let next: (Int) -> [Signals.Request]
        var polls = 0
        init(_ next: @escaping (Int) -> [Signals.Request]) { self.next = next }
        func pending() -> [Signals.Request] {
            polls += 1
            return next(polls)
        }
        func peekStop() -> Bool { false }
    }

    /// What the runner tells systemd, kept in order.
    final class RecordingManager: ServiceManager, @unchecked Sendable {
        private let lock = NSLock()
        private var said: [String] = []
        let watchdogMicroseconds: UInt64? = 2_000_000
        func notify(_ state: String) -> Bool {
            lock.withLock { said.append(state) }
            return true
        }
        var messages: [String] { lock.withLock { said } }
    }

    @Test func aDroppedPageLandsAReloadAndAStopAreHeardAndSystemdIsToldEachStep() throws {
        let scratch = try Scratch()
        try scratch.write("config.toml", TestConfig.folders(settle: "100ms") + "[[rule]]\nname = \"all\"\ntarget = \"A.pdf\"\n")
        try FileManager.default.createDirectory(atPath: scratch.path + "/inbox", withIntermediateDirectories: true)
        try TestImages.make(scratch.path + "/inbox/a.png", width: 120)
        let manager = RecordingManager()
        let target = scratch.path + "/library/A.pdf"
        var reloadedAt: Int?
        let signals = ScriptedSignals { poll in
            // Once the page is in and said, a reload; a few rounds later, a stop (or after about a
            // minute whatever happened, so that a broken runner fails rather than hangs).
            if poll > 120 { return [.stop] }
            guard FileManager.default.fileExists(atPath: target), manager.messages.contains(where: { $0.contains("a.png: 1 page into") })
            else { return [] }
            guard let reloaded = reloadedAt else {
                reloadedAt = poll
                return [.reload]
            }
            return poll >= reloaded + 2 ? [.stop] : []
        }
        let code = InboxDaemon.run(configPath: scratch.path + "/config.toml", environment: [:],
                                   ports: DaemonPorts(signals: signals, notifier: manager, clock: SystemClock()))
        #expect(code == .ok)
        #expect(reloadedAt != nil, "the page landed and was said: \(manager.messages)")
        try PDFReaders.requireAllAgree(target, pages: 1)

        let said = manager.messages
        #expect(said.first == "READY=1\nSTATUS=watching 2 folders; queue 0", "\(said)")
        #expect(said.contains("WATCHDOG=1"))
        let reloading = try #require(said.firstIndex { $0.hasPrefix("RELOADING=1\nMONOTONIC_USEC=") })
        #expect(said[reloading...].dropFirst().contains { $0.hasPrefix("READY=1\nSTATUS=watching 2 folders") })
        #expect(said.last == "STOPPING=1")
        let status = try #require(DaemonStatus.load(stateDir: scratch.path + "/state"))
        #expect(status.state == "stopped")
        #expect(status.recent.map(\.input) == ["a.png"])
    }

    /// A config that binds a scanner button: the runner starts the agent through its port (here a
    /// scripted one, no SANE), passes on what it says to systemd, and tells it of a reload.
    @Test func theScannerAgentIsStartedThroughItsPortAndWhatItSaysReachesSystemd() throws {
        let scratch = try Scratch()
        try scratch.write("config.toml", TestConfig.folders(settle: "100ms") + """
            [[rule]]
            name = "all"
            target = "A.pdf"

            [[scanner]]
            device = "tiny:0"
            [scanner.buttons]
            scan = "adf"

            [profile.adf]
            source = "adf"

            """)
        let manager = RecordingManager()
        var launched: [[String]] = []
        var agent: ScannerSupervisorTests.ScriptedAgent?
        var step = 0
        let signals = ScriptedSignals { poll in
            if poll > 120 { return [.stop] }
            guard let agent else { return [] }
            step += 1
            switch step {
            case 1: agent.queued = [.alive, .status("scanning: profile adf on tiny:0 (button scan)")]
            case 3: agent.queued = [.idle]
            case 5: return [.reload]
            case 8: return [.stop]
            default: break
            }
            return []
        }
        let ports = DaemonPorts(signals: signals, notifier: manager, clock: SystemClock(), launchScannerAgent: { arguments in
            launched.append(arguments)
            let started = ScannerSupervisorTests.ScriptedAgent(Date())
            agent = started
            return started
        })
        #expect(InboxDaemon.run(configPath: scratch.path + "/config.toml", environment: [:], ports: ports) == .ok)

        // It reads the config the daemon runs, never the file, which may hold an edit not yet reloaded.
        let running = scratch.path + "/state/running-config.toml"
        #expect(launched == [["--config", scratch.path + "/config.toml", "--running-config", running]])
        #expect(try String(contentsOfFile: running, encoding: .utf8) == String(contentsOfFile: scratch.path + "/config.toml", encoding: .utf8))
        let statuses = manager.messages.filter { $0.contains("STATUS=") }
        let scanning = try #require(statuses.firstIndex(of: "STATUS=scanning: profile adf on tiny:0 (button scan)"), "\(statuses)")
        #expect(statuses[scanning...].dropFirst().first?.hasPrefix("STATUS=watching 2 folders") == true, "\(statuses)")
        #expect(agent?.reloads == 1)
        #expect(agent?.askedToStop == true)
    }
}
