import Foundation
import System

/// What the running daemon is doing, written to `status.json` in its state folder after each job
/// (atomically for readers, not durably), for `pdftrapper status`.
public struct DaemonStatus: Codable, Sendable, Equatable {
    public var pid: Int32
    public var started: Date
    public var updated: Date
    /// Folder → how it is watched ("inotify", "poll (nfs)").
    public var folders: [String: String]
    /// Inputs seen and not yet finished.
    public var queue: Int
    /// The most recent jobs, newest last.
    public var recent: [JobOutcome]
    public var state: String
    /// Inputs waiting among the claims for a retry, each with why (a full disk, say): what the
    /// operator must fix. Absent in a status written before there was such a thing.
    public var retrying: [String: String]?
    /// Inputs not whole yet (an upload that paused), each with how long and what is missing.
    public var waiting: [String: String]?
    /// Front passes held for their back pass, each with until when.
    public var held: [String: Date]?

    public static let keep = 20

    public init(pid: Int32, started: Date, folders: [String: String]) {
        self.pid = pid
        self.started = started
        self.updated = started
        self.folders = folders
        self.queue = 0
        self.recent = []
        self.state = "starting"
    }

    public mutating func record(_ outcome: JobOutcome) {
        recent.append(outcome)
        if recent.count > Self.keep { recent.removeFirst(recent.count - Self.keep) }
    }

    public static func path(stateDir: String) -> String { stateDir + "/status.json" }

    public func save(stateDir: String) throws(Durable.Failure) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        encoder.dateEncodingStrategy = .iso8601
        // Encoding plain Codable values cannot fail. Not synced: a status lost to a power cut is
        // written anew when the daemon starts, and until then `status` reads a broken one as none.
        try Durable.replaceUnsynced(Self.path(stateDir: stateDir), with: try! encoder.encode(self))
    }

    public static func load(stateDir: String) -> DaemonStatus? {
        guard let data = FileManager.default.contents(atPath: path(stateDir: stateDir)) else { return nil }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return try? decoder.decode(DaemonStatus.self, from: data)
    }
}
