/// Which config file to read when none is named: `$PDFTRAPPER_CONFIG`, then
/// `$XDG_CONFIG_HOME/pdftrapper/config.toml` (or `~/.config/pdftrapper/config.toml`), then
/// `/etc/pdftrapper/config.toml`. The first that exists wins; an explicit variable wins even if missing,
/// so a typo in it is reported rather than silently passed over.
public enum ConfigLocation {
    public static let systemPath = "/etc/pdftrapper/config.toml"

    public static func candidates(environment: [String: String]) -> [String] {
        if let explicit = environment["PDFTRAPPER_CONFIG"], !explicit.isEmpty { return [explicit] }
        var paths: [String] = []
        if let xdg = environment["XDG_CONFIG_HOME"], xdg.hasPrefix("/") {
            paths.append(xdg + "/pdftrapper/config.toml")
        } else if let home = environment["HOME"], !home.isEmpty {
            paths.append(home + "/.config/pdftrapper/config.toml")
        }
        paths.append(systemPath)
        return paths
    }

    /// The file to read; when none exists, the first candidate (so the error names a useful place).
    public static func find(environment: [String: String], exists: (String) -> Bool) -> String {
        let paths = candidates(environment: environment)
        return paths.first(where: exists) ?? paths[0]
    }
}
