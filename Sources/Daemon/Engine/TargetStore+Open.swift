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
        let verdict: String?
        if let known = checkedFolders[folder] {
            verdict = known
        } else {
            verdict = SharedMount.containing(folder)?.incoherence()
            checkedFolders[folder] = .some(verdict)
        }
        if let verdict { throw .incoherent(reason: verdict) }
    }
}
