/// SANE's library version, from `sane_init`, which loads the backends named in dll.conf
/// (`SANE_CONFIG_DIR` chooses which dll.conf).
public enum SaneLibrary {
    /// Opens and closes a session, so it throws `.sessionAlreadyOpen` while another session lives;
    /// ask that session's `version` instead.
    public static func version() throws(ScanError) -> String {
        try SaneSession().version
    }
}
