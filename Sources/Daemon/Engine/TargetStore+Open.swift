import PDFAccess
import TrapperCore

extension TargetStore {
    /// The store as the daemon and every command open it: targets decoded with zlib.
    public static func open(state: StateDirectory, folders: ConfinedFolders?) throws(EngineError) -> TargetStore {
        try TargetStore(state: state, decoder: FlateStreamDecoder(), folders: folders)
    }
}
