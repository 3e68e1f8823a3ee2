import Foundation
import System
import TrapperCore

/// The batches open now (`ingest = "batch"`), one list for every way in: the inbox and the scanner,
/// in the daemon and in `pdftrapper scan`. `STATE/batches.json` holds, by rule name ("profile NAME"
/// for a scan profile's own target), the file the batch goes into and when its last input came;
/// a scan routed by a rule joins the batch an inbox file opened for it, and the other way round.
/// Each change reads the list, changes it and replaces it under `STATE/batches.lock`, so two
/// processes never drop each other's batch. `explain` reads the same list. Lost, a batch only means
/// the next input opens a new file: never worth failing a capture for.
public struct OpenBatches {
    public let file: String
    /// Where the scanner kept its own list before there was one (read once, then removed).
    let legacyFile: String
    let lockFile: String
    let files: any CaptureFileSystem
    let folders: ConfinedFolders
    let config: Config

    public init(config: Config, files: any CaptureFileSystem, folders: ConfinedFolders) {
        file = Self.file(config)
        legacyFile = Self.legacyFile(config)
        lockFile = config.daemon.stateDir + "/batches.lock"
        self.files = files
        self.folders = folders
        self.config = config
    }

    public static func file(_ config: Config) -> String { config.daemon.stateDir + "/batches.json" }
    static func legacyFile(_ config: Config) -> String { config.daemon.stateDir + "/scan-batches.json" }

    /// The list as written down, with what an older scanner's list held.
    public func read() -> [String: OpenBatch] {
        Self.merged(files.read(file), legacy: files.read(legacyFile))
    }

    /// The list as `config`'s state folder holds it, read without writing anything (`explain`).
    public static func read(_ config: Config) -> [String: OpenBatch] {
        merged(FileManager.default.contents(atPath: file(config)),
               legacy: FileManager.default.contents(atPath: legacyFile(config)))
    }

    private static func merged(_ current: Data?, legacy: Data?) -> [String: OpenBatch] {
        (current.map(OpenBatch.decode) ?? [:]).merging(legacy.map(OpenBatch.decode) ?? [:]) { current, _ in current }
    }

    /// Applies `change` to the list as it is now and writes it, leaving out batches whose window
    /// has closed at `now`; returns the list written, or nil when it could not be.
    @discardableResult
    public func update(now: Date, _ change: (inout [String: OpenBatch]) -> Void) -> [String: OpenBatch]? {
        guard let lock = try? JournalLock(lockFile, in: folders) else { return nil }
        defer { withExtendedLifetime(lock) {} }
        var batches = read()
        change(&batches)
        batches = batches.filter { now.timeIntervalSince($0.value.last) <= window(of: $0.key) }
        guard (try? files.replace(file, with: OpenBatch.encode(batches))) != nil else { return nil }
        if files.exists(legacyFile) { try? files.remove(legacyFile) }
        return batches
    }

    /// How long a batch of `rule` stays open after its last input: the rule's window, or for a
    /// profile's own target the profile's; a rule no longer in the config has none.
    func window(of rule: String) -> Double {
        if let found = config.rules.first(where: { $0.name == rule }) { return found.batchWindowSeconds }
        let prefix = "profile "
        if rule.hasPrefix(prefix), let profile = config.profiles.first(where: { $0.name == rule.dropFirst(prefix.count) }) {
            return profile.batchWindowSeconds
        }
        return -1
    }
}
