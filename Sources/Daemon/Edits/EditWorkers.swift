import Foundation
import TrapperCore

/// Runs edit scripts off the daemon's loop: one serial queue per target, so the scripts for one
/// target are applied in the order they arrived and scripts for different targets side by side,
/// `width` at most at once. Inbox jobs and scans on the same target wait on the target's lock, as
/// they do for each other. The loop hands scripts in with `submit` and reports what `finished`
/// gives back; a stop waits for the scripts in hand (`wait`), each of which is one revision.
final class EditWorkers: @unchecked Sendable {
    struct Finished: Sendable {
        var relativePath: String
        var outcome: EditJob.Outcome
        /// The store's log lines (repairs, roll-backs) while it ran.
        var storeLog: [String]
    }

    private let lock = NSLock()
    private var queues: [String: DispatchQueue] = [:]
    /// Scripts submitted and not yet reported: a rescan that sees one again must not apply it twice.
    private var inFlight: Set<String> = []
    private var done: [Finished] = []
    private let running = DispatchGroup()
    private let slots: DispatchSemaphore
    private let openStore: @Sendable (Config) throws -> TargetStore

    init(width: Int = max(2, ProcessInfo.processInfo.activeProcessorCount),
         openStore: @escaping @Sendable (Config) throws -> TargetStore) {
        slots = DispatchSemaphore(value: width)
        self.openStore = openStore
    }

    /// Queues the script at `path` (below the edits folder) with the config in force now.
    func submit(path: String, relativePath: String, config: Config) {
        let queue: DispatchQueue
        lock.lock()
        guard inFlight.insert(path).inserted else {
            lock.unlock()
            return
        }
        let key = Self.target(of: path, config: config) ?? path
        if let existing = queues[key] {
            queue = existing
        } else {
            queue = DispatchQueue(label: "pdftrapper.edits.\(queues.count)")
            queues[key] = queue
        }
        lock.unlock()
        running.enter()
        queue.async { [self] in
            slots.wait()
            defer { slots.signal() }
            var finished = Finished(relativePath: relativePath,
                                    outcome: EditJob.Outcome(script: relativePath, applied: nil, problems: [], filed: nil),
                                    storeLog: [])
            do {
                let store = try openStore(config)
                finished.outcome = EditJob(config: config, store: store).take(path, relativePath: relativePath)
                finished.storeLog = store.log
            } catch {
                finished.outcome.problems = ["\(path): \(error)"]
            }
            lock.lock()
            done.append(finished)
            inFlight.remove(path)
            lock.unlock()
            running.leave()
        }
    }

    /// What has finished since the last call, in the order it finished.
    func finished() -> [Finished] {
        lock.lock()
        defer { lock.unlock() }
        let taken = done
        done = []
        return taken
    }

    var pending: Int {
        lock.lock()
        defer { lock.unlock() }
        return inFlight.count
    }

    /// Blocks until every submitted script is done.
    func wait() { running.wait() }

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
