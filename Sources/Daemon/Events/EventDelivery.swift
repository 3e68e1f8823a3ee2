import Foundation
import Glibc
import System
import TrapperCore

/// Sends what the outbox holds: a thread per subscriber, each taking its events oldest first, so
/// a slow or unreachable subscriber delays only its own events and never a capture. An event
/// leaves `pending/` only once it is delivered (to `sent/`; a crash before then sends it again,
/// with the same key) or refused for good (to `failed/`). Retries wait 1 s, 2 s, 4 s, ... up to the
/// subscriber's `backoff_max`; the waits are kept in memory, so a restart tries again at once.
public final class EventDelivery: @unchecked Sendable {
    private let condition = NSCondition()
    private var outbox: EventOutbox
    private var log: any EventLog
    /// Subscribers with a running thread.
    private var running: Set<String> = []
    /// Counts rings, so a ring between a look at the folder and the wait is not slept through.
    private var rung = 0
    /// Set by `stop`: threads send what they can until then, then end.
    private var deadline: Date?
    private let finished = DispatchGroup()
    /// The outbox's delivery lock, once held: two daemons on hosts that share the library would
    /// otherwise both send every event.
    private var lockDescriptor: Int32 = -1
    /// How long an idle thread waits for a ring before it looks again (events queued by another
    /// process, such as an edit worker or a command, ring no bell here).
    static let idleLook = 0.25

    public init(outbox: EventOutbox, log: any EventLog) {
        self.outbox = outbox
        self.log = log
    }

    /// A thread for every subscriber that has none.
    public func start() {
        condition.lock()
        let names = outbox.subscribers.map(\.name).filter { !running.contains($0) }
        running.formUnion(names)
        condition.unlock()
        for name in names {
            finished.enter()
            let thread = Thread { [self] in
                deliver(name)
                finished.leave()
            }
            thread.name = "notify \(name)"
            thread.start()
        }
    }

    /// Something was queued: every thread looks now.
    public func ring() {
        condition.lock()
        rung += 1
        condition.broadcast()
        condition.unlock()
    }

    /// After a reload: new subscribers get a thread; a removed one's thread ends after its current
    /// attempt, its pending events staying where they are (listed by `pdftrapper events`).
    public func update(_ outbox: EventOutbox, log: any EventLog) {
        condition.lock()
        self.outbox = outbox
        self.log = log
        condition.broadcast()
        condition.unlock()
        start()
    }

    /// Sends what is pending for at most `grace` seconds more (the `stopping` event, say), then
    /// ends every thread; returns once they have ended or the grace is over.
    public func stop(grace: Double) {
        condition.lock()
        deadline = Date().addingTimeInterval(grace)
        condition.broadcast()
        condition.unlock()
        _ = finished.wait(timeout: .now() + grace + 0.5)
    }

    /// The subscriber as configured now, or nil once its thread should end.
    private func current(_ name: String) -> (Subscriber, EventOutbox, any EventLog)? {
        condition.lock()
        defer { condition.unlock() }
        if let deadline, Date() >= deadline { return nil }
        guard let subscriber = outbox.subscribers.first(where: { $0.name == name }) else {
            running.remove(name)
            return nil
        }
        return (subscriber, outbox, log)
    }

    /// Whether this daemon delivers the outbox: it holds (or now takes) the lock beside it.
    private func holdsOutbox(_ outbox: EventOutbox) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        if lockDescriptor >= 0 { return true }
        try? outbox.files.makeFolder(outbox.folder)
        guard let descriptor = try? outbox.files.open(outbox.folder + "/deliver.lock", flags: O_RDWR | O_CREAT | O_CLOEXEC,
                                                      mode: 0o600) else { return false }
        guard FileLock.take(descriptor, wait: false) == .taken else {
            close(descriptor)
            return false
        }
        lockDescriptor = descriptor
        return true
    }

    private func wait(seen: Int, until: Date) {
        condition.lock()
        defer { condition.unlock() }
        // Stopping: nothing is waited for, a retry included.
        if rung == seen, deadline == nil { condition.wait(until: until) }
    }

    private func deliver(_ name: String) {
        // A receiver that closes its end early makes a write fail with EPIPE, not end the daemon.
        var pipeSignal = sigset_t()
        sigemptyset(&pipeSignal)
        sigaddset(&pipeSignal, SIGPIPE)
        pthread_sigmask(SIG_BLOCK, &pipeSignal, nil)
        var waits: [String: (tries: Int, next: Date)] = [:]
        // Delivered, but their files could not be removed: not sent again in this run.
        var sent = Set<String>()
        var tidied = false
        while let (subscriber, outbox, log) = current(name) {
            condition.lock()
            let seen = rung
            let draining = deadline != nil
            condition.unlock()
            guard holdsOutbox(outbox) else {
                if draining { return }
                wait(seen: seen, until: Date().addingTimeInterval(1))
                continue
            }
            if !tidied {
                outbox.removeLeftovers(name)
                tidied = true
            }
            let folder = outbox.pendingFolder(name)
            guard let file = outbox.names(folder).first(where: { !sent.contains($0) }) else {
                if draining { return }
                wait(seen: seen, until: Date().addingTimeInterval(Self.idleLook))
                continue
            }
            if let waiting = waits[file], waiting.next > Date() {
                if draining { return }
                wait(seen: seen, until: min(waiting.next, Date().addingTimeInterval(Self.idleLook)))
                continue
            }
            let path = folder + "/" + file
            // The key's start names the event in the log; the whole key is in the file's name and body.
            let key = String((file.dropLast(5).split(separator: "-").last ?? "").prefix(12))
            let attempt: DeliveryAttempt.Result
            if let body = outbox.files.read(path) {
                attempt = DeliveryAttempt.run(Array(body), to: subscriber, log: log)
            } else if outbox.files.exists(path) {
                attempt = .retry("\(path) cannot be read")
            } else {
                continue  // gone meanwhile (pdftrapper events --retry moves files)
            }
            switch attempt {
            case .delivered(let said):
                do { try outbox.sent(path, subscriber: name) } catch {
                    // Sent again after a restart, with its key: the receiver can tell.
                    log.log(.error, "pdftrapper: notify \(name): event \(key) was delivered but stays queued: \(error)")
                    sent.insert(file)
                }
                waits[file] = nil
                log.log(.info, "pdftrapper: notify \(name): delivered event \(key) (\(said))")
            case .refused(let said):
                waits[file] = nil
                do { try outbox.fail(path, subscriber: name, answer: said) } catch {
                    log.log(.error, "pdftrapper: notify \(name): event \(key) cannot be moved to failed/: \(error)")
                    sent.insert(file)
                    continue
                }
                log.log(.warning, "pdftrapper: notify \(name): event \(key) refused (\(said)); kept in \(outbox.failedFolder(name)), "
                        + "sent again by pdftrapper events --retry")
            case .retry(let said):
                let tries = (waits[file]?.tries ?? 0) + 1
                let delay = min(pow(2, Double(tries - 1)), subscriber.backoffMaxSeconds)
                waits[file] = (tries, Date().addingTimeInterval(delay))
                log.log(tries == 1 ? .warning : .notice, "pdftrapper: notify \(name): event \(key) not delivered (\(said)); "
                        + "try \(tries + 1) in \(Quantities.describe(seconds: delay))")
            }
        }
    }
}
