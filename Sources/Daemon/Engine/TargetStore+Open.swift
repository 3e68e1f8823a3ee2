import PDFAccess
import System
import TrapperCore

extension TargetStore {
    /// The store as the daemon and every command open it: targets decoded with zlib.
    public static func open(state: StateDirectory, folders: ConfinedFolders?) throws(EngineError) -> TargetStore {
        let store = try TargetStore(state: state, decoder: FlateStreamDecoder(), folders: folders)
        try store.refuseIncoherent(state.library ?? state.path)
        return store
    }

    /// Refuses a folder on a shared mount that would let another host's revision be written over
    /// (SharedMount); each folder is looked at once per store.
    func refuseIncoherent(_ folder: String) throws(EngineError) {
        if let reason = mount(of: folder).refusal { throw .incoherent(reason: reason) }
    }

    /// What the mount holding `folder` is, as far as writing goes (looked at once per folder).
    func mount(of folder: String) -> CheckedMount {
        if let known = checkedFolders[folder] { return known }
        let mount = SharedMount.containing(folder)
        let checked = CheckedMount(shared: mount?.isShared ?? false, refusal: mount?.incoherence())
        checkedFolders[folder] = checked
        return checked
    }

    struct CheckedMount {
        /// Other hosts may write through another client (SharedMount.isShared).
        var shared: Bool
        /// Why nothing may be written there, naming what to set; nil when it may.
        var refusal: String?
    }
}
