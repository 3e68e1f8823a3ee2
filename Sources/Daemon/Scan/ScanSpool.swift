import Foundation
import Glibc
import System

/// Scanned pages waiting for their revision, in the state folder (`STATE/scans/ID/`): each page is
/// durable as soon as it is encoded, and `batch.json` says what the batch is, whether the scan
/// finished and, once chosen, its target. A batch that finished goes into its target as one
/// revision; one whose scan was cut short never does (it goes to quarantine, whole). Whoever works on a
/// batch holds the flock on its `lock` file, so a daemon and `pdftrapper scan` never both take one.
public struct ScanSpool: Sendable {
    public let folder: String

    public init(stateDir: String) {
        folder = stateDir + "/scans"
    }

    /// What `batch.json` holds.
    public struct Manifest: Codable, Sendable, Equatable {
        public var id: String
        public var profile: String
        public var button: String?
        public var device: String
        public var started: Date
        /// Set once the feeder ran empty (or the flatbed page is in): the batch is whole.
        public var complete = false
        /// Page files in scan order.
        public var pages: [String] = []
        /// Chosen before the revision and kept, so that a retry goes to the same file.
        public var target: String?
        public var prepend = false
        public var rule: String?
        /// `pdftrapper scan --to` chose the target.
        public var targetOverride: String?
        /// With separators: the new file of each document, in order, chosen before the first is written.
        public var targets: [String]?

        /// `scan-20261130-101503-1a2b3c4d`: the batch in logs and quarantine, its pages' prefix in the history.
        public var name: String { "scan-" + id }
    }

    /// A batch being scanned or waiting for its revision, held (locked) by this process.
    public final class Batch {
        public let folder: String
        public private(set) var manifest: Manifest
        private var lockDescriptor: Int32

        init(folder: String, manifest: Manifest, lockDescriptor: Int32) {
            self.folder = folder
            self.manifest = manifest
            self.lockDescriptor = lockDescriptor
        }

        deinit { release() }

        /// Lets go of the batch's lock, for another process to take it (the daemon, after the agent scanned it).
        public func release() {
            if lockDescriptor >= 0 { close(lockDescriptor) }
            lockDescriptor = -1
        }

        /// Writes page `number`'s encoded file durably, then the manifest naming it.
        public func addPage(_ bytes: [UInt8], fileExtension: String) throws(Durable.Failure) {
            let name = "\(manifest.name)-p" + String(format: "%04d", manifest.pages.count + 1) + "." + fileExtension
            try Durable.replace(folder + "/" + name, with: Data(bytes))
            manifest.pages.append(name)
            try save()
        }

        public func markComplete() throws(Durable.Failure) {
            manifest.complete = true
            try save()
        }

        public func pin(target: String, prepend: Bool, rule: String?) throws(Durable.Failure) {
            manifest.target = target
            manifest.prepend = prepend
            manifest.rule = rule
            try save()
        }

        public func pin(targets: [String]) throws(Durable.Failure) {
            manifest.targets = targets
            try save()
        }

        public var pagePaths: [String] { manifest.pages.map { folder + "/" + $0 } }

        /// Gone once its pages are in the target.
        public func remove() throws(Durable.Failure) {
            for page in pagePaths { try Durable.remove(page) }
            try Durable.remove(folder + "/" + ScanSpool.manifestName)
            // The lock file goes last, still held: a process that opens it now finds no batch.
            try? FileManager.default.removeItem(atPath: folder)
            try Durable.syncFolder(Durable.parent(of: folder))
        }

        func save() throws(Durable.Failure) {
            let encoder = JSONEncoder()
            encoder.dateEncodingStrategy = .iso8601
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            // Encoding a plain struct of strings, dates and bools cannot fail.
            let data = try! encoder.encode(manifest)
            try Durable.replace(folder + "/" + ScanSpool.manifestName, with: data)
        }
    }

    static let manifestName = "batch.json"

    /// A new, empty batch, locked by this process.
    public func start(profile: String, button: String?, device: String, targetOverride: String?,
                      date: Date = Date()) throws(Durable.Failure) -> Batch {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.dateFormat = "yyyyMMdd-HHmmss"
        let id = formatter.string(from: date) + "-" + UUID().uuidString.prefix(8).lowercased()
        // Made and locked under a hidden name, which recovery passes over, then renamed (the lock
        // goes along): recovery never sees a batch folder that nobody holds and that has no manifest.
        let path = folder + "/" + id, making = folder + "/." + id
        try Durable.makeFolder(making)
        guard let lock = Self.lock(making) else { throw Durable.Failure(step: "lock", path: making, code: errno) }
        guard rename(making, path) == 0 else {
            close(lock)
            throw Durable.Failure(step: "rename", path: making, code: errno)
        }
        var manifest = Manifest(id: id, profile: profile, button: button, device: device, started: date)
        manifest.targetOverride = targetOverride
        let batch = Batch(folder: path, manifest: manifest, lockDescriptor: lock)
        try batch.save()
        return batch
    }

    /// Batches left by earlier runs that nobody holds now, oldest first. A folder whose manifest
    /// cannot be read comes back with `nil` (it goes to quarantine as it is).
    public func leftOver() -> [(folder: String, batch: Batch?)] {
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).sorted().filter { !$0.hasPrefix(".") }
        return names.compactMap { name in
            let path = folder + "/" + name
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder), isFolder.boolValue,
                  let lock = Self.lock(path) else { return nil }
            let decoder = JSONDecoder()
            decoder.dateDecodingStrategy = .iso8601
            guard let data = FileManager.default.contents(atPath: path + "/" + Self.manifestName),
                  let manifest = try? decoder.decode(Manifest.self, from: data) else {
                close(lock)
                return (path, nil)
            }
            return (path, Batch(folder: path, manifest: manifest, lockDescriptor: lock))
        }
    }

    /// The batch folder's lock without waiting; nil when another process holds it.
    private static func lock(_ folder: String) -> Int32? {
        let descriptor = open(folder + "/lock", O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { return nil }
        guard FileLock.take(descriptor, wait: false) == .taken else {
            close(descriptor)
            return nil
        }
        return descriptor
    }

    /// Every page of a batch into `QUARANTINE/scan-ID/`, each with its note; the spool folder goes.
    /// A scan that failed part-way, handled one way for the daemon's scanner agent and for
    /// `pdftrapper scan`: `scan-failed` goes to the subscribers, and the pages scanned go to
    /// quarantine whole with the reason, never half into a target. Returns a line for the log when
    /// the event could not be queued.
    public static func failed(_ batch: Batch, profile: String, device: String, reason: String, quarantine quarantineFolder: String,
                              folders: ConfinedFolders?, outbox: EventOutbox?) -> String? {
        let pages = batch.manifest.pages.count
        let problem = outbox?.scanFailed(profile: profile, device: device, batch: batch.manifest.name,
                                         reason: "the scan failed after \(pages) page\(pages == 1 ? "" : "s"): \(reason)")
        if let folders {
            quarantine(batch.folder, name: batch.manifest.name, into: quarantineFolder, rule: nil, reason: "the scan failed: \(reason)",
                       folders: folders, outbox: outbox)
        }
        return problem
    }

    public static func quarantine(_ folder: String, name: String, into quarantineFolder: String, rule: String?,
                                  reason: String, folders: ConfinedFolders, outbox: EventOutbox? = nil) {
        let files = (folders.names(in: folder) ?? []).sorted()
        let quarantine = Quarantine(folder: quarantineFolder, folders: folders, outbox: outbox)
        // Pages only: not the lock, the manifest, or what a write cut short left (hidden or `.tmp-` names).
        for file in files where file != "lock" && file != manifestName && !file.hasPrefix(".") && !file.contains(".tmp-") {
            _ = try? quarantine.put(folder + "/" + file, relativePath: name + "/" + file, reason: reason, rule: rule)
        }
        try? FileManager.default.removeItem(atPath: folder)
    }

    /// A batch another process finished scanning and handed over by its folder; nil when someone holds it.
    public func take(_ path: String) -> Batch? {
        leftOver().first { $0.folder == path }?.batch
    }
}
