import TrapperCore

/// `pdftrapper check-config [FILE]`: is this config usable, and if not, every reason with its place.
enum CheckConfigCommand: Command {
    static let name = "check-config"
    static let summary = "Check a config file; print every problem as FILE:LINE:COL: message."
    static let synopsis = "check-config [--config FILE | FILE]"
    static let details = """
    Reads the config (FILE, or --config FILE, or the usual search: $PDFTRAPPER_CONFIG,
    $XDG_CONFIG_HOME/pdftrapper/config.toml or ~/.config/pdftrapper/config.toml,
    /etc/pdftrapper/config.toml) and checks it whole: TOML syntax, unknown keys, types, required
    keys, path templates, and folders that overlap.

    Exits 0 with a one-line summary when the config is valid; 78 with one line per problem on
    stderr when it is not; 66 when the file cannot be read.
    """
    static let arguments = ArgumentSpec(options: ["--config"])

    static func run(_ arguments: ParsedArguments, _ context: CommandContext) -> ExitCode {
        guard arguments.positionals.count <= 1, arguments.positionals.isEmpty || arguments.options["--config"] == nil else {
            context.err("pdftrapper check-config: name one config file\nusage: pdftrapper \(synopsis)")
            return .usage
        }
        switch context.loadConfig(arguments.positionals.first ?? arguments.options["--config"]) {
        case .failure(let code):
            return code
        case .success(let config):
            config.warnings.forEach { context.err($0.description) }
            context.out(summary(of: config))
            return .ok
        }
    }

    static func summary(of config: Config) -> String {
        func count(_ n: Int, _ noun: String) -> String { "\(n) \(noun)\(n == 1 ? "" : "s")" }
        return "\(config.file): valid; library \(config.library.root), inbox \(config.inbox.path), "
            + "\(count(config.rules.count, "rule")), \(count(config.scanners.count, "scanner")), "
            + "\(count(config.profiles.count, "profile"))"
            + (config.notify.isEmpty ? "" : ", " + count(config.notify.count, "subscriber") + " ("
                + config.notify.map { subscriber in
                    switch subscriber.delivery {
                    case .url(let url): "\(subscriber.name): \(url)"
                    case .command(let command): "\(subscriber.name): \(command[0])"
                    }
                }.joined(separator: ", ") + ")")
    }
}
