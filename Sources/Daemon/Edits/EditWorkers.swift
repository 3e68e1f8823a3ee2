import Foundation
import TrapperCore

/// Runs edit scripts off the daemon's loop, each in a process of its own (EditProcess) under
/// `limits.edit_seconds`: one serial queue per target, so the scripts for one target are applied in
/// the order they arrived and scripts for different targets side by side, `width` at most at once.
/// Inbox jobs and scans on the same target wait on the target's lock, as they do for each other.
/// The loop hands scripts in with `submit` and reports what `finished` gives back; a stop kills the
/// workers at once (`stop`): a script cut short stays claimed and is applied at the next start.
public final class EditWorkers: @unchecked Sendable {
    public struct Finished: Sendable, Codable {
        public var relativePath: String
        public var outcome: EditJob.Outcome
        /// The store's log lines (repairs, roll-backs) while it ran.
        public var storeLog: [String]
    }

    private let lock = NSLock()
    /// The serial queue of each target with scripts queued or running, and how many: dropped when
    /// its last script is done, so a daemon that runs for months keeps none for every target it
    /// ever edited, nor for every unreadable script (queued under its own path).
    private var queues: [String: (queue: DispatchQueue, pending: Int)] = [:]
    private var queuesMade = 0
    /// Scripts submitted and not yet claimed, each with its submission's number: a rescan that sees
    /// one again before its claim must not queue it twice. Once claimed the script is no longer at
    /// its path, so a file saved there afterwards (the same name again while the first still waits
    /// for its target) is a script of its own, queued behind the first.
    private var inFlight: [String: Int] = [:]
    private var submissions = 0
    private var done: [Finished] = []
    private var stopping = false
    private let running = DispatchGroup()
    private let slots: DispatchSemaphore
    private let process: EditProcess
    private let openStore: @Sendable (Config) throws -> TargetStore

    init(width: Int = max(2, ProcessInfo.processInfo.activeProcessorCount), process: EditProcess,
         openStore: @escaping @Sendable (Config) throws -> TargetStore) {
        slots = DispatchSemaphore(value: width)
        self.process = process
        self.openStore = openStore
    }

    /// The workers of a process that is not the daemon (`pdftrapper serve`): the same worker
    /// program and limits, each script run with the config it is submitted with.
    public convenience init(environment: [String: String]) {
        self.init(process: EditProcess(executable: InboxDaemon.executable, environment: environment),
                  openStore: { try DaemonParts.openStore($0) })
    }

    /// Queues the script at `path` (below the edits folder) with the config in force now.
    func submit(path: String, relativePath: String, config: Config) {
        enqueue(path: path, relativePath: relativePath, config: config) { _ in }
    }

    /// Applies the script at `path` (a claim already: the workspace writes its scripts there) on
    /// the same queue, in the same worker, as a script dropped into the edits folder, and waits
    /// for what became of it. The daemon's loop reports it too, as it reports every script. Nil
    /// when the daemon is stopping (the script stays claimed, and is applied at the next start).
    /// `target`: the file the script names, when the caller knows it (the workspace does), so that
    /// a script of a million ink points is not parsed once more only to find its queue.
    public func applyAndWait(path: String, relativePath: String, config: Config, target: String? = nil) -> Finished? {
        final class Answer: @unchecked Sendable {
            let ready = DispatchSemaphore(value: 0)
            var finished: Finished?
        }
        let answer = Answer()
        guard enqueue(path: path, relativePath: relativePath, config: config, target: target,
                      then: { answer.finished = $0; answer.ready.signal() }) else {
            return nil
        }
        answer.ready.wait()
        return answer.finished
    }

    @discardableResult
    private func enqueue(path: String, relativePath: String, config: Config, target: String? = nil,
                         then: @escaping @Sendable (Finished?) -> Void) -> Bool {
        let queue: DispatchQueue
        lock.lock()
        guard !stopping, inFlight[path] == nil else {
            lock.unlock()
            return false
        }
        submissions += 1
        let submission = submissions
        inFlight[path] = submission
        let key = target ?? Self.target(of: path, config: config) ?? path
        if let existing = queues[key] {
            queue = existing.queue
            queues[key]?.pending += 1
        } else {
            queuesMade += 1
            queue = DispatchQueue(label: "pdftrapper.edits.\(queuesMade)")
            queues[key] = (queue, 1)
        }
        lock.unlock()
        running.enter()
        queue.async { [self] in
            slots.wait()
            defer { slots.signal() }
            let finished = apply(path, relativePath, config, claimed: { release(path, submission) })
            lock.lock()
            if let finished { done.append(finished) }
            // Nothing else is queued behind it: the next script for this target makes a new queue.
            queues[key]?.pending -= 1
            if queues[key]?.pending == 0 { queues[key] = nil }
            lock.unlock()
            release(path, submission)
            then(finished)
            running.leave()
        }
        return true
    }

    /// `path` may be submitted again, unless a later submission holds it already.
    private func release(_ path: String, _ submission: Int) {
        lock.lock()
        if inFlight[path] == submission { inFlight[path] = nil }
        lock.unlock()
    }

    /// Claims the script (then `claimed`), runs the worker on it, and files it in failed/ when the
    /// worker overran or failed; nil when the daemon is stopping (the script stays claimed for the
    /// next start).
    private func apply(_ path: String, _ relativePath: String, _ config: Config, claimed: () -> Void) -> Finished? {
        var finished = Finished(relativePath: relativePath,
                                outcome: EditJob.Outcome(script: relativePath, applied: nil, problems: [], filed: nil),
                                storeLog: [])
        let store: TargetStore
        do { store = try openStore(config) } catch {
            finished.outcome.problems = ["\(path): \(error)"]
            return finished
        }
        let job = EditJob(config: config, store: store)
        let claim: String
        do { claim = try job.claim(path, relativePath: relativePath) } catch {
            finished.outcome.takenElsewhere = error.code == ENOENT
            finished.outcome.problems = ["\(config.edits.path)/\(relativePath): \(error)"]
            return finished
        }
        claimed()
        let seconds = config.limits.editSeconds
        var ending = process.run(claimed: claim, relativePath: relativePath, config: config, seconds: seconds,
                                 stopping: { isStopping })
        if case .failed = ending {
            // A worker that died without a word (killed by the system, say) is tried once more: the
            // claim tells the second whether the first had applied the script already.
            ending = process.run(claimed: claim, relativePath: relativePath, config: config, seconds: seconds,
                                 stopping: { isStopping })
        }
        switch ending {
        case .finished(let report):
            return report
        case .stopped:
            return nil
        case .overran:
            // What the worker had half-written is rolled back before the script is filed.
            try? store.recoverAll()
            finished.storeLog = store.log
            finished.outcome = job.abandon(claim, relativePath: relativePath,
                                           reason: "still running after \(Quantities.describe(seconds: seconds)) "
                                               + "(limits.edit_seconds); stopped, and its target left as it was")
        case .failed(let reason):
            try? store.recoverAll()
            finished.storeLog = store.log
            finished.outcome = job.abandon(claim, relativePath: relativePath, reason: reason)
        }
        return finished
    }

    private var isStopping: Bool {
        lock.lock()
        defer { lock.unlock() }
        return stopping
    }

    /// Stops every worker at once and waits for their queues to notice (well within a second).
    public func stop() {
        lock.lock()
        stopping = true
        lock.unlock()
        running.wait()
    }

    /// How many targets (or unreadable scripts) have a queue now: none once every script is done.
    var queuesHeld: Int {
        lock.lock()
        defer { lock.unlock() }
        return queues.count
    }

    /// What has finished since the last call, in the order it finished.
    public func finished() -> [Finished] {
        lock.lock()
        defer { lock.unlock() }
        let taken = done
        done = []
        return taken
    }

    /// The target a script names, to queue it behind the other scripts for that target; nil
    /// when the script cannot be read (it fails on its own queue).
    static func target(of path: String, config: Config) -> String? {
        guard let data = FileManager.default.contents(atPath: path), data.count <= EditJob.maximumBytes,
              let script = try? EditScriptParser.parse(Array(data), file: path, libraryRoot: config.library.root) else {
            return nil
        }
        return script.target
    }
}
