import CSane
import System
import TrapperCore

/// SANE's library version, from `sane_init`, which loads the backends named in dll.conf
/// (`SANE_CONFIG_DIR` chooses which dll.conf).
public enum SaneLibrary {
    /// Opens and closes a session, so it throws `.sessionAlreadyOpen` while another session lives;
    /// ask that session's `version` instead.
    public static func version() throws(ScanError) -> String {
        try SaneSession().version
    }
}

/// SANE's functions (`sane.sane_init(...)`), opened when the first session starts.
enum Sane {
    static let library = SharedLibrary.open("libsane.so.1", for: "scanning") { trapper_sane_load($0, $1) }

    static func functions() throws(SharedLibrary.Failure) -> trapper_sane { try library.get() }
}
