import Foundation
import System
import TrapperCore

/// What a config makes of the daemon: its folders, the store that writes beneath them, and the inbox
/// that routes into that store. Built whole from the config before it replaces anything, at start and
/// at each reload, so a reload whose config cannot be built leaves the running parts as they were.
/// The runner (`InboxDaemon`) holds one and swaps it; it never assembles the pieces itself.
public struct DaemonParts {
    public let config: Config
    public let store: TargetStore
    public var inbox: Inbox

    /// The folders made when missing, the store opened on `revisions`, and the inbox on the store.
    /// `recoveringTargets`: at start, the journals a killed run left are settled before the inbox
    /// reads its open batches (`TargetStore.recoverAll`).
    public static func open(_ config: Config, revisions: RevisionFeed, recoveringTargets: Bool = false) throws -> DaemonParts {
        try makeFolders(config)
        let store = try openStore(config, revisions: revisions)
        if recoveringTargets { try store.recoverAll() }
        return DaemonParts(config: config, store: store, inbox: Inbox(config: config, store: store, instance: instance(config)))
    }

    /// The daemon's store writes only beneath the configured folders (ConfinedFolders).
    /// `revisions`: the feed it tells its revisions to (the daemon's); else its own.
    public static func openStore(_ config: Config, revisions: RevisionFeed? = nil) throws -> TargetStore {
        let store = try TargetStore.open(state: StateDirectory.forLibrary(config), folders: try ConfinedFolders.daemon(config))
        store.outbox = try EventOutbox.of(config)
        if let revisions { store.revisions = revisions }
        return store
    }

    /// The folders the config names, made when missing (a fresh install starts with none).
    public static func makeFolders(_ config: Config) throws {
        for folder in [config.inbox.path, config.inbox.archive, config.inbox.quarantine, config.library.root,
                       config.daemon.stateDir, config.edits.path] {
            try Durable.makeFolder(folder)
        }
    }

    /// Names this daemon's claims: stable across restarts on one host with one state folder, distinct
    /// for a second daemon on a shared inbox.
    public static func instance(_ config: Config) -> String {
        let host = ProcessInfo.processInfo.hostName.split(separator: ".").first.map(String.init) ?? "host"
        return host + "-" + String(StateDirectory.key(for: config.daemon.stateDir).prefix(8))
    }
}
