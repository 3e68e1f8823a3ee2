/// Builds a `Config` from TOML text, reporting every problem with its place in the file.
/// Pure: the environment comes in as a dictionary, and no file is read or checked for existence.
public enum ConfigParser {
    public static func parse(_ bytes: [UInt8], file: String, environment: [String: String]) throws(ConfigError) -> Config {
        let document: TOMLTable
        do {
            document = try TOML.parse(bytes)
        } catch {
            throw ConfigError([ConfigDiagnostic(file: file, location: error.location, message: error.message)])
        }
        let log = DiagnosticLog(file: file)
        let resolver = PathResolver(base: PathResolver.parent(of: PathResolver.normalize(file)), home: environment["HOME"])
        var builder = ConfigBuilder(log: log, resolver: resolver, environment: environment)
        let built = builder.build(TableReader(document, name: "", log: log), file: file)
        guard log.diagnostics.isEmpty, var config = built else { throw ConfigError(log.diagnostics) }
        config.warnings = log.warnings
        return config
    }
}

extension ConfigParser {
    /// Where state lives when the config does not say: `$STATE_DIRECTORY` (systemd's
    /// StateDirectory=), `$XDG_STATE_HOME/pdftrapper`, `~/.local/state/pdftrapper`, else
    /// `/var/lib/pdftrapper`.
    public static func defaultStateDir(environment: [String: String]) -> String {
        if let systemd = environment["STATE_DIRECTORY"]?.split(separator: ":").first { return String(systemd) }
        if let xdg = environment["XDG_STATE_HOME"], xdg.hasPrefix("/") { return xdg + "/pdftrapper" }
        if let home = environment["HOME"], !home.isEmpty, home != "/" { return home + "/.local/state/pdftrapper" }
        return "/var/lib/pdftrapper"
    }
}

/// The section-by-section reading of a config document.
struct ConfigBuilder {
    let log: DiagnosticLog
    let resolver: PathResolver
    let environment: [String: String]

    mutating func build(_ top: TableReader, file: String) -> Config? {
        var top = top
        var daemonTable = top.subtable("daemon")
        var libraryTable = top.subtable("library", required: true)
        var inboxTable = top.subtable("inbox", required: true)
        var editsTable = top.subtable("edits")
        var signaturesTable = top.subtable("signatures")
        let ruleTables = top.arrayOfTables("rule")
        let scannerTables = top.arrayOfTables("scanner")
        var profilesTable = top.subtable("profile")
        var limitsTable = top.subtable("limits")
        var webTable = top.subtable("web")
        let notifyTables = top.arrayOfTables("notify")
        top.finish()
        let limits = self.limits(&limitsTable)

        let library = path(&libraryTable, "root", required: true)
        libraryTable?.finish()
        let inboxPath = path(&inboxTable, "path", required: true)
        let daemon = daemonSettings(&daemonTable)
        let (inbox, inboxFolders) = inboxSettings(&inboxTable, inboxPath)
        let purge = editsTable?.bool("purge") ?? false
        let edits = siblingFolder(&editsTable, "edits", beside: inboxPath)
        let signatures = siblingFolder(&signaturesTable, "signatures", beside: inboxPath)
        var rules = RuleReader(log: log).rules(ruleTables)
        // A rule that does not say keeps the inbox's choice of active content.
        for index in rules.indices where rules[index].activeContent == nil {
            rules[index].steps.activeContent = inbox?.activeContent ?? .strip
        }
        let profiles = scanProfiles(&profilesTable, ruleNames: rules.map(\.name))
        let scanners = scannerBindings(scannerTables, profiles: profiles.map(\.name))
        let web = webSettings(&webTable)
        let notify = NotifyReader(log: log, known: rules.map(\.name) + profiles.map(\.name)).subscribers(notifyTables)

        guard let library, let inboxPath, let inbox, let edits, let signatures else { return nil }
        var folders = [Folder(key: "library.root", path: library.value, location: library.location, watched: false),
                       Folder(key: "inbox.path", path: inboxPath.value, location: inboxPath.location, watched: true),
                       Folder(key: "daemon.state_dir", path: daemon.stateDir.value, location: daemon.stateDir.location, watched: false),
                       edits, signatures]
        folders += inboxFolders
        checkOverlaps(folders)
        return Config(file: file, daemon: DaemonSettings(stateDir: daemon.stateDir.value, logLevel: daemon.logLevel),
                      library: LibrarySettings(root: library.value), inbox: inbox,
                      edits: EditsSettings(path: edits.path, purge: purge), signatures: FolderSettings(path: signatures.path),
                      rules: rules, scanners: scanners, profiles: profiles, limits: limits, web: web, notify: notify)
    }

    // MARK: sections

    private func daemonSettings(_ table: inout TableReader?) -> (stateDir: Located, logLevel: LogLevel) {
        defer { table?.finish() }
        let written = path(&table, "state_dir")
        let logLevel = table?.choice("log_level", default: LogLevel.info) ?? .info
        return (written ?? Located(value: defaultStateDir(), location: table?.table.location ?? .start), logLevel)
    }

    private func defaultStateDir() -> String { ConfigParser.defaultStateDir(environment: environment) }

    private func inboxSettings(_ table: inout TableReader?, _ inboxPath: Located?) -> (InboxSettings?, [Folder]) {
        guard var reader = table else { return (nil, []) }
        defer { reader.finish() }
        let settle = reader.seconds("settle") ?? 2
        let watch = reader.choice("watch", default: WatchMode.auto)
        let poll = reader.seconds("poll_interval") ?? 10
        let rescan = reader.seconds("rescan_interval") ?? 300
        let ignore = reader.strings("ignore")?.map { Glob($0.value) } ?? InboxSettings.defaultIgnore.map(Glob.init)
        let writtenArchive = path(&reader, "archive")
        let writtenQuarantine = path(&reader, "quarantine")
        let duplicates = reader.choice("duplicates", default: DuplicatePolicy.skip)
        let activeContent = reader.choice("active_content", default: ActiveContent.strip)
        let incompleteTimeout = reader.seconds("incomplete_timeout")
        guard let inboxPath else { return (nil, []) }
        let archive = writtenArchive ?? sibling("archive", of: inboxPath)
        let quarantine = writtenQuarantine ?? sibling("quarantine", of: inboxPath)
        var settings = InboxSettings(path: inboxPath.value, settleSeconds: settle, watch: watch, pollSeconds: poll,
                                     rescanSeconds: rescan, ignore: ignore, archive: archive.value,
                                     quarantine: quarantine.value, duplicates: duplicates)
        settings.activeContent = activeContent
        if let incompleteTimeout { settings.incompleteTimeoutSeconds = incompleteTimeout }
        return (settings, [Folder(key: "inbox.archive", path: archive.value, location: archive.location, watched: false,
                                  defaulted: archive.defaulted),
                           Folder(key: "inbox.quarantine", path: quarantine.value, location: quarantine.location, watched: false,
                                  defaulted: quarantine.defaulted)])
    }

    /// `[web]`: the workspace's address, the Host names it answers to, the largest body, whether
    /// it may listen beyond this machine, and how long a login lasts.
    private func webSettings(_ table: inout TableReader?) -> WebSettings? {
        guard var reader = table else { return nil }
        defer { reader.finish() }
        var web = WebSettings()
        if let listen = reader.string("listen") {
            // HOST:PORT, else a socket's path: one with a slash, or a name ending in .sock (never a
            // bare port or address, which are surely meant as TCP), relative to the config's folder.
            let value = listen.value
            let isPath = !value.contains(":") && (value.contains("/") || value.hasPrefix("~") || value.hasSuffix(".sock"))
            if !isPath, let parsed = WebSettings.listen(value) {
                web.listen = parsed
            } else if isPath, let path = resolver.resolve(value) {
                web.listen = .socket(path)
            } else {
                log.add("web.listen = \"\(listen.value)\" is neither HOST:PORT (such as \"127.0.0.1:8470\") nor a socket's path",
                        at: listen.location)
            }
        }
        if let hosts = reader.strings("hosts") { web.hosts = hosts.map(\.value) }
        if let bytes = reader.bytes("max_body") {
            if bytes < 1024 || bytes > 1 << 30 {
                log.add("web.max_body must be from 1KB to 1GB", at: reader.table["max_body"]!.location)
            } else {
                web.maxBodyBytes = Int(bytes)
            }
        }
        web.allowRemote = reader.bool("allow_remote") ?? false
        if let node = reader.node("session_days") {
            switch node.value {
            case .integer(let days) where days > 0 && days <= 3650: web.sessionDays = Double(days)
            case .float(let days) where days > 0 && days <= 3650: web.sessionDays = days
            default: reader.complain("session_days", node, expected: "a number of days, more than 0 and at most 3650")
            }
        }
        if !web.listen.isLocal, !web.allowRemote {
            log.add("web.listen = \"\(web.listen)\" is reachable from other machines; set web.allow_remote = true to mean it, "
                    + "and put a TLS reverse proxy in front (the workspace speaks plain HTTP)",
                    at: reader.table["listen"]?.location ?? reader.table.location)
        }
        return web
    }

    /// `[limits]`: each key a positive number (sizes as "500MB" or bytes), at most the built-in ceiling.
    private func limits(_ table: inout TableReader?) -> LimitsSettings {
        var limits = LimitsSettings()
        guard var reader = table else { return limits }
        defer { reader.finish() }
        if let pixels = reader.integer("max_pixels", in: 1...4_000_000_000) { limits.maxPixels = Int(pixels) }
        if let bytes = reader.bytes("max_input_size") { limits.maxInputBytes = Int(bytes) }
        if let pages = reader.integer("max_pages", in: 1...1_000_000) { limits.maxPages = Int(pages) }
        if let pages = reader.integer("max_pages_after_edit", in: 1...1_000_000) { limits.maxPagesAfterEdit = Int(pages) }
        if let seconds = reader.seconds("edit_seconds") {
            if seconds > 0 { limits.editSeconds = seconds } else {
                log.add("limits.edit_seconds must be more than 0s", at: reader.table["edit_seconds"]!.location)
            }
        }
        if let bytes = reader.bytes("max_script_size") {
            if bytes > Int64(EditScriptParser.maxBytes) {
                log.add("limits.max_script_size can be at most 64MiB, the most an edit script's parser reads",
                        at: reader.table["max_script_size"]!.location)
            } else {
                limits.maxScriptBytes = Int(bytes)
            }
        }
        return limits
    }

    /// `[edits]` and `[signatures]`: one `path`, by default a folder of that name beside the inbox.
    private func siblingFolder(_ table: inout TableReader?, _ section: String, beside inbox: Located?) -> Folder? {
        defer { table?.finish() }
        let written = path(&table, "path")
        guard let located = written ?? inbox.map({ sibling(section, of: $0) }) else { return nil }
        return Folder(key: "\(section).path", path: located.value, location: located.location, watched: section == "edits",
                      defaulted: located.defaulted)
    }

    private func scannerBindings(_ tables: [TableReader], profiles: [String]) -> [ScannerBinding] {
        tables.compactMap { table in
            var table = table
            defer { table.finish() }
            let device = table.string("device", required: true)
            var buttons: [String: String] = [:]
            if var buttonTable = table.subtable("buttons") {
                for entry in buttonTable.table.entries {
                    guard let profile = buttonTable.string(entry.key) else { continue }
                    if !profiles.contains(profile.value) {
                        log.add("\(buttonTable.qualified(entry.key)): no profile named \"\(profile.value)\""
                                + Suggestion.hint(for: profile.value, among: profiles), at: profile.location)
                    }
                    buttons[entry.key] = profile.value
                }
            }
            // `poll_ms = 500` (milliseconds, as scanbd users write it) or `poll_interval = "500ms"`.
            let pollMilliseconds = table.integer("poll_ms", in: 50...600_000).map { Double($0) / 1000 }
            let pollInterval = table.seconds("poll_interval")
            if pollMilliseconds != nil, pollInterval != nil, let node = table.node("poll_ms") {
                log.add("\(table.qualified("poll_ms")): give poll_ms or poll_interval, not both", at: node.location)
            }
            let poll = pollMilliseconds ?? pollInterval ?? 0.5
            let keepOpen = table.bool("keep_open") ?? false
            let backoff = table.seconds("busy_backoff") ?? 15
            guard let device else { return nil }
            return ScannerBinding(device: device.value, buttons: buttons, pollSeconds: poll, keepOpen: keepOpen,
                                  busyBackoffSeconds: backoff)
        }
    }

    private func scanProfiles(_ table: inout TableReader?, ruleNames: [String]) -> [ScanProfile] {
        guard var reader = table else { return [] }
        var profiles: [ScanProfile] = []
        for entry in reader.table.entries {
            guard var profile = reader.subtable(entry.key) else { continue }
            if let built = ProfileReader(log: log, ruleNames: ruleNames).profile(named: entry.key, &profile) { profiles.append(built) }
            profile.finish()
        }
        reader.finish()
        return profiles
    }

    // MARK: paths and folders

    struct Located {
        var value: String
        var location: SourceLocation
        /// Not written in the config: a default placed beside the inbox.
        var defaulted = false
    }

    struct Folder {
        var key: String
        var path: String
        var location: SourceLocation
        /// The daemon takes what appears in it, so nothing else may live there.
        var watched: Bool
        var defaulted = false

        /// `inbox.path (/srv/in)`, or `edits.path (by default /srv/edits, beside the inbox)`.
        var described: String { defaulted ? "\(key) (by default \(path), beside the inbox)" : "\(key) (\(path))" }
    }

    /// A path key of a section that may be absent.
    private func path(_ table: inout TableReader?, _ key: String, required: Bool = false) -> Located? {
        guard var reader = table else { return nil }
        defer { table = reader }
        return path(&reader, key, required: required)
    }

    private func path(_ table: inout TableReader, _ key: String, required: Bool = false) -> Located? {
        guard let written = table.string(key, required: required) else { return nil }
        guard !written.value.isEmpty else {
            log.add("\(table.qualified(key)) must not be empty", at: written.location)
            return nil
        }
        guard let absolute = resolver.resolve(written.value) else {
            log.add("\(table.qualified(key)): '~' needs $HOME, which is not set", at: written.location)
            return nil
        }
        if written.value.hasPrefix("~"), written.value != "~", !written.value.hasPrefix("~/") {
            log.warn("\(table.qualified(key)) = \"\(written.value)\" is a folder of that name beside the config "
                     + "(\(absolute)); for one in your home folder write \"~/\(written.value.dropFirst())\"", at: written.location)
        }
        return Located(value: absolute, location: written.location)
    }

    private func sibling(_ name: String, of inbox: Located) -> Located {
        Located(value: PathResolver.normalize(PathResolver.parent(of: inbox.value) + "/" + name), location: inbox.location,
                defaulted: true)
    }

    /// The daemon ingests what appears in a watched folder, so a watched folder must not hold or be held
    /// by any other folder (the library, the archive...), and no two folders may be the same.
    private func checkOverlaps(_ folders: [Folder]) {
        for (i, a) in folders.enumerated() {
            for b in folders[(i + 1)...] {
                let (first, second) = a.location <= b.location ? (a, b) : (b, a)
                if a.path == b.path {
                    log.add("\(second.key) and \(first.key) are the same folder (\(a.path))", at: second.location)
                } else if a.watched || b.watched {
                    if PathResolver.isWithin(a.path, b.path) {
                        log.add("\(a.described) is inside \(b.described); \(reason(a, b))", at: second.location)
                    } else if PathResolver.isWithin(b.path, a.path) {
                        log.add("\(b.described) is inside \(a.described); \(reason(b, a))", at: second.location)
                    }
                }
            }
        }
    }

    private func reason(_ inner: Folder, _ outer: Folder) -> String {
        outer.watched
            ? "the daemon would take its own files from \(outer.key) as input"
            : "\(inner.key) is watched, so it must not be inside another folder the daemon writes"
    }
}
