/// The folders most end-to-end configs share: state, library and inbox beside the config (the
/// archive, quarantine, edits and signatures folders then default to siblings of the inbox).
public enum TestConfig {
    /// `inbox` holds more `[inbox]` keys, one a line.
    public static func folders(settle: String = "200ms", inbox extra: String = "") -> String {
        var text = """
            [daemon]
            state_dir = "state"
            [library]
            root = "library"
            [inbox]
            path = "inbox"
            settle = "\(settle)"

            """
        if !extra.isEmpty { text += extra + "\n" }
        return text
    }
}
