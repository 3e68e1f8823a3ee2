import Foundation
import System
import TrapperCore

/// The daemon's loop as a value: it is told what happened (a signal, what the watcher found, a
/// job's outcome, a scanner's word, a round's end), each with the clock's reading, and answers with
/// the actions to take, in order. It touches no file, process, signal or clock: `InboxDaemon` is
/// the runner that reads those ports, tells the events and performs the actions, and
/// `Tests/DaemonTests/DaemonLoopTests.swift` drives it on scripted events in milliseconds.
///
/// A round: signals first (a stop ends the loop, a reload replaces the config); then what the
/// watcher found, edit scripts handed to the workers and inbox inputs taken at most
/// `Inbox.revisionLimit` at a time (a stop waits for the revision in hand, not for the backlog);
/// then the periodic work: inputs not whole yet looked at again, the scanner agent's words, front
/// passes whose window ended, OCR's results, claims retried, the watchdog.
struct DaemonLoop {
    /// What the loop needs to know of the config it runs (replaced by a reload).
    struct Settings: Equatable {
        var inboxPath: String
        /// Where edit scripts arrive; every other folder the watcher hands over is the inbox's.
        var editsRoot: String
        var rescanSeconds: Double
        /// The unit's watchdog interval (nil: none).
        var watchdogMicroseconds: UInt64?
    }

    /// Something the watcher handed over.
    struct Found: Equatable {
        var root: String
        var path: String
        var relativePath: String
        var isRegularFile: Bool
    }

    enum Event: Equatable {
        case started
        case signal(Signals.Request)
        case reloaded(Settings)
        /// The folders watched now, and how (after the watches were set up).
        case watching([String: String])
        /// What the watcher found this round (possibly nothing: the round goes on).
        case found([Found])
        /// A job ended: an inbox input, a scan batch.
        case outcome(JobOutcome)
        /// The chunk given in `take` is done; `stopPending` when a stop came meanwhile.
        case chunkTaken(stopPending: Bool)
        /// Inputs looked at again were not there any more (taken by another daemon, deleted).
        case gone([String])
        /// The scanner agent said something.
        case scanner(ScannerSupervisor.Event)
        /// Something else recorded for `status` (an edit script, an OCR pass); `tell` sends a STATUS= line too.
        case recorded([JobOutcome], tell: Bool)
        case stopped
    }

    enum Action: Equatable {
        case stop
        case reload
        case submitEdit(path: String, relativePath: String)
        /// Edit scripts finished meanwhile: to be logged and recorded (`recorded`).
        case collectEdits
        case take([Inbox.Arrival])
        case lookAgain([Inbox.Arrival])
        case commitScan(folder: String)
        case collectScanner
        case expireHeld
        case collectOCR
        case retryClaims
        case log(LogLevel, String, fields: [String: String])
        /// A message to the service manager (`READY=1`, `STATUS=...`, `WATCHDOG=1`).
        case notify(String)
        case saveStatus
    }

    private(set) var status: DaemonStatus
    private(set) var timers: LoopTimers
    private(set) var settings: Settings
    /// The inputs found this round and not yet taken.
    private var backlog: [Inbox.Arrival] = []
    private var foundThisRound = 0

    init(status: DaemonStatus, settings: Settings, now: Date) {
        self.status = status
        self.settings = settings
        timers = LoopTimers(now: now)
    }

    mutating func handle(_ event: Event, now: Date) -> [Action] {
        switch event {
        case .started:
            status.state = "idle"
            return [.saveStatus, .notify("READY=1\nSTATUS=\(statusLine)")]
        case .signal(.stop):
            return [.stop]
        case .signal(.reload):
            return [.reload]
        case .reloaded(let fresh):
            settings = fresh
            return [.notify("READY=1\nSTATUS=\(statusLine)")]
        case .watching(let folders):
            status.folders = folders
            return []
        case .found(let found):
            return foundRound(found, now: now)
        case .outcome(let outcome):
            return report(outcome, now: now)
        case .chunkTaken(let stopPending):
            return nextChunk(stopPending: stopPending, now: now)
        case .gone(let inputs):
            for input in inputs {
                timers.done(input)
                status.waiting?[input] = nil
            }
            if status.waiting?.isEmpty == true { status.waiting = nil }
            return [.saveStatus]
        case .scanner(.status(let text)):
            status.state = text
            return [.saveStatus, .notify("STATUS=\(text)")]
        case .scanner(.idle):
            status.state = "idle"
            return [.saveStatus, .notify("STATUS=\(statusLine)")]
        case .scanner(.batch(let folder)):
            return [.commitScan(folder: folder)]
        case .recorded(let outcomes, let tell):
            outcomes.forEach { status.record($0) }
            return outcomes.isEmpty ? [] : [.saveStatus] + (tell ? [.notify("STATUS=\(statusLine)")] : [])
        case .stopped:
            status.state = "stopped"
            return [.saveStatus]
        }
    }

    // MARK: a round

    /// Edit scripts go to the workers at once (each is one revision of its target: in arrival order
    /// per target, targets side by side; links, FIFOs and sockets too, each refused and filed in
    /// failed/ with the reason); inbox inputs are taken a chunk at a time.
    private mutating func foundRound(_ found: [Found], now: Date) -> [Action] {
        var actions: [Action] = found.filter { $0.root == settings.editsRoot }.map {
            .submitEdit(path: $0.path, relativePath: $0.relativePath)
        }
        actions.append(.collectEdits)
        backlog = found.filter { $0.root != settings.editsRoot }.map {
            Inbox.Arrival(path: $0.path, relativePath: $0.relativePath, isRegularFile: $0.isRegularFile)
        }
        foundThisRound = backlog.count
        return actions + nextChunk(stopPending: false, now: now)
    }

    private mutating func nextChunk(stopPending: Bool, now: Date) -> [Action] {
        if stopPending { backlog.removeAll() }
        status.queue = backlog.count
        if !backlog.isEmpty {
            let chunk = Array(backlog.prefix(Inbox.revisionLimit))
            backlog.removeFirst(chunk.count)
            return [.take(chunk)]
        }
        var actions: [Action] = []
        if foundThisRound > 0 { actions += [.saveStatus, .notify("STATUS=\(statusLine)")] }
        foundThisRound = 0
        return actions + periodic(now: now)
    }

    /// The round's end: what is due by the clock, and what the other workers have to say.
    private mutating func periodic(now: Date) -> [Action] {
        var actions: [Action] = []
        let due = timers.dueInputs(now: now)
        if !due.isEmpty {
            actions.append(.lookAgain(due.map { Inbox.Arrival(path: settings.inboxPath + "/" + $0, relativePath: $0, isRegularFile: true) }))
        }
        actions += [.collectScanner, .expireHeld, .collectOCR]
        if timers.claimRetryDue(now: now, rescanSeconds: settings.rescanSeconds) { actions.append(.retryClaims) }
        if timers.watchdogDue(now: now, microseconds: settings.watchdogMicroseconds) { actions.append(.notify("WATCHDOG=1")) }
        return actions
    }

    // MARK: outcomes

    /// A job's outcome: logged once per episode (a retry failing for the same reason again, or a
    /// file still not whole, is said once, then at debug level), recorded for `status`, and a
    /// STATUS= line at most once a second.
    private mutating func report(_ outcome: JobOutcome, now: Date) -> [Action] {
        var fields = [EventField.input: outcome.input]
        if let target = outcome.target { fields[EventField.target] = target }
        if let rule = outcome.rule { fields[EventField.rule] = rule }
        if let end = outcome.end { fields[EventField.end] = String(end) }
        let level: LogLevel = switch outcome.result {
        case .ingested, .duplicate, .held, .waiting, .edit, .ocr: .info
        case .noRule, .takenElsewhere: .notice
        case .quarantined, .retryLater: .warning
        }
        var retrying = status.retrying ?? [:]
        var again = outcome.result == .retryLater && retrying[outcome.input] == outcome.reason
        if outcome.result == .retryLater { retrying[outcome.input] = outcome.reason ?? "" } else { retrying[outcome.input] = nil }
        status.retrying = retrying.isEmpty ? nil : retrying
        // A file not whole yet is looked at again, less and less often.
        var waits = status.waiting ?? [:]
        if outcome.result == .waiting {
            again = timers.notWhole(outcome.input, now: now)
            waits[outcome.input] = outcome.reason ?? ""
        } else {
            timers.done(outcome.input)
            waits[outcome.input] = nil
        }
        status.waiting = waits.isEmpty ? nil : waits
        let said = outcome.summary + (outcome.result == .ingested ? outcome.reason.map { " (\($0))" } ?? "" : "")
        var actions: [Action] = [.log(again ? .debug : level, said, fields: fields)]
        if !again { status.record(outcome) }
        // systemd wants a status line, not a stream of them.
        if timers.statusDue(now: now) { actions.append(.notify("STATUS=\(statusLine)")) }
        return actions
    }

    /// What systemd's STATUS= says: the folders, the queue, what waits and why, the last job.
    var statusLine: String {
        let last = status.recent.last.map { "; last: \($0.summary)" } ?? ""
        let retrying = status.retrying.map { "; retrying \($0.count): \($0.values.sorted().first ?? "")" } ?? ""
        let waiting = status.waiting.map { waits in waits.sorted { $0.key < $1.key }.map { "; waiting: \($0.key) \($0.value)" }.joined() } ?? ""
        let folders = "\(status.folders.count) folder\(status.folders.count == 1 ? "" : "s")"
        return "watching \(folders); queue \(status.queue)\(retrying)\(waiting)\(last)".replacingOccurrences(of: "\n", with: " ")
    }

    // MARK: reload

    /// Whether a new config watches other folders, or watches them otherwise: the watcher is made anew.
    static func watchesChanged(from old: Config, to fresh: Config) -> Bool {
        fresh.inbox.path != old.inbox.path || fresh.inbox.watch != old.inbox.watch || fresh.edits.path != old.edits.path
            || fresh.inbox.settleSeconds != old.inbox.settleSeconds || fresh.inbox.ignore != old.inbox.ignore
    }

    /// Whether a new config changes what the workspace serves (its folders, its `[web]`): it is started anew.
    static func servedChanged(from old: Config, to fresh: Config) -> Bool {
        let served: (Config) -> [String] = {
            [$0.library.root, $0.edits.path, $0.signatures.path, $0.daemon.stateDir, $0.inbox.quarantine, "\($0.web.map { "\($0)" } ?? "")"]
        }
        return served(old) != served(fresh)
    }
}
