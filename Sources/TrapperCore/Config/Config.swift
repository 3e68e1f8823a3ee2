/// The daemon's whole configuration, checked and with every path absolute.
public struct Config: Sendable {
    /// The file it was read from (absolute).
    public var file: String
    /// The bytes it was parsed from (ConfigLoader): handed to worker processes, which must run
    /// with this config, not with what the file says after an edit not yet reloaded.
    public var source: [UInt8] = []
    public var daemon: DaemonSettings
    public var library: LibrarySettings
    public var inbox: InboxSettings
    public var edits: EditsSettings
    public var signatures: FolderSettings
    public var rules: [Rule]
    public var scanners: [ScannerBinding]
    public var profiles: [ScanProfile]
    public var limits = LimitsSettings()
    /// `[web]`: the workspace; nil when the config has no such table (then `run` serves nothing).
    public var web: WebSettings?
    /// `[[notify]]`: who hears of revisions, quarantines, failed scans, starts and stops.
    public var notify: [Subscriber] = []
    /// What is allowed but most likely not meant: check-config prints it, the daemon logs it at start.
    public var warnings: [ConfigDiagnostic] = []

    public func router(host: String = "") -> Router {
        Router(rules: rules, libraryRoot: library.root, archiveRoot: inbox.archive, host: host)
    }

    /// Where a scan made with `input.profile` goes: the rule the profile names (its target and mode,
    /// whatever it matches), else the profile's own target, else the rules, which see the scan as
    /// `scan-ID.EXT` from source "scanner". `newFile`: one document of a split batch. `batches`:
    /// the scan batches open, by rule name ("profile NAME" for a profile's own target); a press
    /// within the window of one joins its file.
    public func scanPlan(for input: RouteInput, host: String = "", newFile: Bool = false, batches: [String: OpenBatch] = [:],
                         exists: (String) -> Bool = { _ in false }) -> RoutePlan? {
        let profile = profiles.first { $0.name == input.profile }
        if let name = profile?.rule, var rule = rules.first(where: { $0.name == name }) {
            rule.match = RuleMatch()
            if newFile { rule.mode = .new }
            return Router(rules: [rule], libraryRoot: library.root, archiveRoot: inbox.archive, host: host)
                .plan(for: input, batches: batches, exists: exists)
        }
        if let profile, let template = profile.target {
            // A profile's target is a rule of its own that takes every scan of the profile.
            var rule = Rule(name: "profile \(profile.name)", target: template, mode: newFile ? .new : profile.ingestMode,
                            batchWindowSeconds: profile.batchWindowSeconds)
            if let steps = profile.steps { rule.steps = steps }
            return Router(rules: [rule], libraryRoot: library.root, archiveRoot: inbox.archive, host: host)
                .plan(for: input, batches: batches, exists: exists)
        }
        var router = router(host: host)
        if newFile { router.rules = router.rules.map { var rule = $0; rule.mode = .new; return rule } }
        return router.plan(for: input, batches: batches, exists: exists)
    }
}

public enum LogLevel: String, Sendable, CaseIterable {
    case debug, info, notice, warning, error
}

public struct DaemonSettings: Sendable {
    /// Journal, claimed inputs, undo tails. Default: `$STATE_DIRECTORY` (systemd's StateDirectory=),
    /// else `$XDG_STATE_HOME/pdftrapper`, else `~/.local/state/pdftrapper`.
    public var stateDir: String
    public var logLevel: LogLevel
}

public struct LibrarySettings: Sendable {
    /// Every target PDF lives below it.
    public var root: String
}

public enum WatchMode: String, Sendable, CaseIterable {
    /// inotify on local file systems, polling on network and FUSE ones.
    case auto
    case inotify
    case poll
}

public enum DuplicatePolicy: String, Sendable, CaseIterable {
    /// Content already ingested into the same target (same SHA-256) is not added again.
    case skip
    case ingest
}

public struct InboxSettings: Sendable {
    public var path: String
    /// Quiet time after the last write before a file is taken.
    public var settleSeconds: Double
    public var watch: WatchMode
    public var pollSeconds: Double
    public var rescanSeconds: Double
    /// Names never taken (temporary and hidden files of sync tools and editors).
    public var ignore: [Glob]
    public var archive: String
    public var quarantine: String
    public var duplicates: DuplicatePolicy
    /// How long a file that is not whole yet (an upload that paused) is waited for before it is
    /// quarantined as incomplete.
    public var incompleteTimeoutSeconds: Double = 600
    /// What imported PDF pages keep of what runs code, unless a rule says otherwise.
    public var activeContent: ActiveContent = .strip

    public static let defaultIgnore = [
        ".*", "*.part", "*.tmp", "*.crdownload", "*~", ".~lock.*", ".syncthing.*", "._*", "Thumbs.db", "@eaDir",
    ]
}

public struct FolderSettings: Sendable {
    public var path: String
}

/// `[web]`: where the workspace listens and who may reach it.
public struct WebSettings: Sendable, Equatable {
    public enum Listen: Sendable, Equatable, CustomStringConvertible {
        /// An IPv4 or IPv6 address and a port ("127.0.0.1:8470", "[::1]:8470").
        case tcp(host: String, port: Int)
        /// A unix socket's path (a reverse proxy in front).
        case socket(String)

        public var description: String {
            switch self {
            case .tcp(let host, let port): host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
            case .socket(let path): path
            }
        }

        /// Loopback and sockets are private to this machine; anything else needs `allow_remote`.
        public var isLocal: Bool {
            switch self {
            case .socket: true
            case .tcp(let host, _): host == "::1" || host.hasPrefix("127.") || host == "localhost"
            }
        }
    }

    public var listen: Listen = .tcp(host: "127.0.0.1", port: 8470)
    /// Host headers accepted beside the listen address (the name a reverse proxy passes on).
    public var hosts: [String] = []
    /// The largest request body; more gets 413.
    /// A million-point drawing saved from the workspace is some 16 MB of JSON.
    public var maxBodyBytes = 32 << 20
    public var allowRemote = false
    /// How long a login lasts, in days (a fraction for less than one).
    public var sessionDays = 30.0

    public init() {}

    /// Reads "HOST:PORT", "[V6]:PORT" or an absolute socket path; nil when it is none of them.
    public static func listen(_ text: String) -> Listen? {
        if text.hasPrefix("/") { return .socket(text) }
        let host: Substring, port: Substring
        if text.hasPrefix("["), let close = text.firstIndex(of: "]") {
            host = text[text.index(after: text.startIndex)..<close]
            guard text[close...].hasPrefix("]:") else { return nil }
            port = text[text.index(close, offsetBy: 2)...]
        } else {
            guard let colon = text.lastIndex(of: ":"), !text[..<colon].contains(":") else { return nil }
            host = text[..<colon]
            port = text[text.index(after: colon)...]
        }
        guard !host.isEmpty, let number = Int(port), (1...65535).contains(number) else { return nil }
        return .tcp(host: String(host), port: number)
    }
}

/// `[limits]`: what one input or script may cost before it is refused with the reason (quarantine,
/// or failed/), never an out-of-memory kill. The defaults take any real scan or photo.
public struct LimitsSettings: Sendable, Equatable {
    /// Width × height of one page of an image input.
    public var maxPixels = 200_000_000
    /// One input file's size.
    public var maxInputBytes = 512 << 20
    /// Pages of one input (an image's, a PDF's).
    public var maxPages = 10_000
    /// One edit script's size.
    public var maxScriptBytes = 64 << 20
    /// Pages a document may have after an edit script that adds pages (duplicate, insert).
    public var maxPagesAfterEdit = 100_000
    /// How long one edit script may run before it is abandoned and filed in failed/.
    public var editSeconds = 60.0

    public init() {}

    public var images: ImageLimits { ImageLimits(maxPixels: maxPixels, maxBytes: maxInputBytes) }
}

/// `[edits]`: where scripts are dropped, and what a script that does not say gets.
public struct EditsSettings: Sendable {
    public var path: String
    /// Compact the target after every script (unless it says `purge = false`), so removed pages'
    /// bytes are really gone, at the cost of the undo history.
    public var purge: Bool = false
}

/// `[[scanner]]`: a device whose buttons start scan profiles.
public struct ScannerBinding: Sendable {
    /// A SANE device name, or a pattern such as `"fujitsu:*"`; the first device that matches.
    public var device: String
    /// Button (sensor option) name to profile name.
    public var buttons: [String: String]
    public var pollSeconds: Double
    /// Keep the device open between polls (faster, but other programs cannot scan meanwhile).
    public var keepOpen: Bool
    public var busyBackoffSeconds: Double
}

public enum ScanSource: Sendable, Equatable {
    case flatbed, adf, adfDuplex
    /// The device's own name for a source, passed through.
    case named(String)
}

public enum ColorMode: String, Sendable, CaseIterable {
    case color, gray, lineart
}

/// `[profile.NAME]`: how to scan, and where the pages go.
public struct ScanProfile: Sendable {
    public var name: String
    public var device: String?
    public var source: ScanSource
    public var colorMode: ColorMode
    public var resolution: Int
    /// Width and height in millimetres.
    public var pageSize: (width: Double, height: Double)
    public var jpegQuality: Int
    /// Device options passed through by name: text, integer, float or boolean values.
    public var options: [(name: String, value: TOMLValue)]
    /// Where the pages go; nil lets the rules decide (as `source = "scanner"`).
    public var target: PathTemplate?
    /// The rule, by name, whose target and mode the pages take, whatever its match says.
    public var rule: String? = nil
    /// How the pages join `target`.
    public var ingestMode: IngestMode
    /// `ingest = "batch"`: a press that starts within this many seconds of the last batch's commit
    /// joins that batch's file (`batch_window`, as a rule's).
    public var batchWindowSeconds: Double = 120
    /// The profile's own page steps; nil: those of the rule its pages go through.
    public var steps: PageSteps? = nil

    public init(name: String, device: String?, source: ScanSource, colorMode: ColorMode, resolution: Int,
                pageSize: (width: Double, height: Double), jpegQuality: Int, options: [(name: String, value: TOMLValue)],
                target: PathTemplate?, ingestMode: IngestMode) {
        self.name = name
        self.device = device
        self.source = source
        self.colorMode = colorMode
        self.resolution = resolution
        self.pageSize = pageSize
        self.jpegQuality = jpegQuality
        self.options = options
        self.target = target
        self.ingestMode = ingestMode
    }
}
