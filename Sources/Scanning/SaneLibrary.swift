import CSane

/// SANE's library version, from `sane_init`, which loads the backends named in dll.conf
/// (`SANE_CONFIG_DIR` chooses which dll.conf).
public enum SaneLibrary {
    public static func version() throws(ScanError) -> String {
        var code: SANE_Int = 0
        let status = sane_init(&code, nil)
        guard status == SANE_STATUS_GOOD else { throw .sane(step: "sane_init", status: status) }
        defer { sane_exit() }
        let major = (code >> 24) & 0xff, minor = (code >> 16) & 0xff, build = code & 0xffff
        return "\(major).\(minor).\(build)"
    }
}
