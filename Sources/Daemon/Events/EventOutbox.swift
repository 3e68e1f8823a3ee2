import Foundation
import Glibc
import System
import TrapperCore

/// The events outbox, in the state folder: an event is written here, durably, as part of
/// finishing the job that made it, and a delivery worker (`EventDelivery`) sends it later, so
/// that no subscriber can slow a capture down and no crash can lose an event.
///
///     outbox/pending/SUBSCRIBER/SEQ-KEY.json   waiting: the event's bytes, as every retry sends them
///     outbox/failed/SUBSCRIBER/SEQ-KEY.json    refused for good (a 4xx answer), and beside it
///     outbox/failed/SUBSCRIBER/SEQ-KEY.answer  what the subscriber answered
///     outbox/sent/SUBSCRIBER/SEQ-KEY.json      delivered: the last `sentKept` to twice that of them
///
/// SEQ (nanoseconds since 1970) keeps a subscriber's events in the order they happened; KEY is the
/// event's idempotency key, so an event made again after a crash is not queued twice, even once it
/// has been delivered (an input quarantined again, after a kill, by the next start).
public struct EventOutbox: Sendable {
    public let folder: String
    public let subscribers: [Subscriber]
    public let libraryRoot: String
    public let host: String
    /// Rung after an event is queued: the daemon's delivery worker wakes at once rather than at its next look.
    public var bell: (@Sendable () -> Void)?
    /// Every read and write resolved beneath the library's folder, never through a link (as the
    /// journal's are): a link planted in the library cannot send an event's bytes elsewhere.
    let files: ConfinedFolders

    public init(folder: String, subscribers: [Subscriber], libraryRoot: String,
                host: String = ProcessInfo.processInfo.hostName) throws(Durable.Failure) {
        self.folder = folder
        self.subscribers = subscribers
        self.libraryRoot = libraryRoot
        self.host = host
        files = try ConfinedFolders([(path: libraryRoot, label: "the library")])
    }

    /// The config's outbox, or nil when nobody subscribes.
    public static func of(_ config: Config) throws(Durable.Failure) -> EventOutbox? {
        guard !config.notify.isEmpty else { return nil }
        return try EventOutbox(folder: folder(config), subscribers: config.notify, libraryRoot: config.library.root)
    }

    /// Beside the journal, in the library's `.pdftrapper`: every process that writes the library
    /// (the daemon, its workers, a command, whatever state folder each was given) queues into the
    /// one outbox the daemon delivers from.
    public static func folder(_ config: Config) -> String { StateDirectory.forLibrary(config).path + "/outbox" }

    public func pendingFolder(_ subscriber: String) -> String { "\(folder)/pending/\(subscriber)" }
    public func failedFolder(_ subscriber: String) -> String { "\(folder)/failed/\(subscriber)" }
    func sentFolder(_ subscriber: String) -> String { "\(folder)/sent/\(subscriber)" }
    /// How many delivered events a subscriber's `sent/` keeps at least: far more than a start can
    /// make again (the inputs a killed daemon left in their claims).
    static let sentKept = 256

    /// Queues the event for every subscriber that wants it; returns how many. `once`: it may be
    /// queued or delivered already (made again after a crash, or an input taken again): then it is
    /// not queued twice. (Only then are the folders listed, so a long queue never slows a capture
    /// down.)
    @discardableResult
    public func emit(_ event: OutboundEvent, once: Bool = false) throws(Durable.Failure) -> Int {
        let body = Data(event.body)
        var queued = 0
        for subscriber in subscribers where subscriber.wants(event) {
            let pending = pendingFolder(subscriber.name)
            try files.makeFolder(pending)
            let suffix = "-\(event.key).json"
            if once, [pending, failedFolder(subscriber.name), sentFolder(subscriber.name)].contains(where: { folder in
                names(folder).contains { $0.hasSuffix(suffix) }
            }) { continue }
            try files.replace("\(pending)/\(Self.sequence())\(suffix)", with: body)
            queued += 1
        }
        if queued > 0 { bell?() }
        return queued
    }

    /// Emits, and on failure says why in one line instead of throwing: for events whose job cannot
    /// be held back by a full disk (a quarantine, a failed scan, a start).
    public func emitOrSay(_ event: OutboundEvent, once: Bool = false) -> String? {
        do { try emit(event, once: once); return nil } catch { return "the \(event.event.rawValue) event could not be queued: \(error)" }
    }

    /// A scan that failed part-way (its pages go to quarantine), from the daemon's agent or `pdftrapper scan`.
    public func scanFailed(profile: String, device: String, batch: String, reason: String) -> String? {
        var event = OutboundEvent(event: .scanFailed, time: Date(), host: host)
        event.profile = profile
        event.device = device
        event.reason = reason.oneLine
        event.file = batch
        event.summary = "profile \(profile) on \(device): \(reason.oneLine)"
        event.key = OutboundEvent.key(.scanFailed, [host, batch])
        return emitOrSay(event)
    }

    /// The entry names of a folder that are events, oldest first; none for a missing folder.
    func names(_ folder: String) -> [String] {
        (files.names(in: folder) ?? [])
            .filter { $0.hasSuffix(".json") && !$0.hasPrefix(".") && !$0.contains(".tmp-") }.sorted()
    }

    /// What a process killed while queueing left in a subscriber's folder: its hidden temporary
    /// files (`.NAME.tmp-PID-N`) whose process is gone.
    func removeLeftovers(_ subscriber: String) {
        let folder = pendingFolder(subscriber)
        for name in files.names(in: folder) ?? [] where name.hasPrefix(".") {
            guard let tag = name.range(of: ".tmp-", options: .backwards),
                  let pid = Int32(name[tag.upperBound...].prefix { $0.isNumber }),
                  kill(pid, 0) != 0, errno == ESRCH else { continue }
            try? files.remove(folder + "/" + name)
        }
    }

    /// Nanoseconds since 1970, twenty digits, so names sort by time.
    static func sequence() -> String {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        let text = String(Int64(now.tv_sec) * 1_000_000_000 + Int64(now.tv_nsec))
        return String(repeating: "0", count: max(0, 20 - text.count)) + text
    }
}

/// What `pdftrapper events` lists and `--retry` moves back.
extension EventOutbox {
    public struct Entry: Sendable {
        public var subscriber: String
        public var path: String
        public var event: OutboundEvent?
        /// For a failed one: the subscriber's answer.
        public var answer: String?
    }

    /// Every subscriber folder under `pending/` or `failed/`, configured or not.
    private func subscriberFolders(_ state: String) -> [String] {
        (files.names(in: "\(folder)/\(state)") ?? []).sorted()
    }

    public func pending() -> [Entry] {
        subscriberFolders("pending").flatMap { name in
            names(pendingFolder(name)).map { file in
                let path = "\(pendingFolder(name))/\(file)"
                return Entry(subscriber: name, path: path, event: read(path))
            }
        }
    }

    public func failed() -> [Entry] {
        subscriberFolders("failed").flatMap { name in
            names(failedFolder(name)).map { file in
                let path = "\(failedFolder(name))/\(file)"
                let answer = files.read(String(path.dropLast(5)) + ".answer").map { String(decoding: $0, as: UTF8.self) }
                return Entry(subscriber: name, path: path, event: read(path), answer: answer)
            }
        }
    }

    func read(_ path: String) -> OutboundEvent? {
        files.read(path).flatMap { try? OutboundEvent(body: Array($0)) }
    }

    /// A delivery refused for good: the event into `failed/` with the answer beside it.
    func fail(_ path: String, subscriber: String, answer: String) throws(Durable.Failure) {
        let failed = failedFolder(subscriber)
        try files.makeFolder(failed)
        let name = (path as NSString).lastPathComponent
        try files.replace("\(failed)/\(name.dropLast(5)).answer", with: Data(answer.utf8))
        _ = try files.move(path, to: "\(failed)/\(name)")
    }

    /// A delivered event out of `pending/` into `sent/`, where `emit(once:)` finds its key; once
    /// `sent/` holds twice `sentKept`, the oldest beyond `sentKept` go.
    func sent(_ path: String, subscriber: String) throws(Durable.Failure) {
        let sent = sentFolder(subscriber)
        try files.makeFolder(sent)
        _ = try files.move(path, to: "\(sent)/\((path as NSString).lastPathComponent)")
        let kept = names(sent)
        guard kept.count >= 2 * Self.sentKept else { return }
        for name in kept.dropLast(Self.sentKept) { try? files.remove("\(sent)/\(name)", durable: false) }
    }

    /// Every failed event back to pending (same name, same bytes, same key); returns how many.
    public func retryFailed() throws(Durable.Failure) -> Int {
        var moved = 0
        for entry in failed() {
            let pending = pendingFolder(entry.subscriber)
            try files.makeFolder(pending)
            let name = (entry.path as NSString).lastPathComponent
            _ = try files.move(entry.path, to: "\(pending)/\(name)")
            try files.remove(String(entry.path.dropLast(5)) + ".answer")
            moved += 1
        }
        return moved
    }
}
