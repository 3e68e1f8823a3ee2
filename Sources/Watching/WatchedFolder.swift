import TrapperCore

/// One root the watcher hands files from: the inbox, or the edits folder beside it.
public struct WatchedFolder: Sendable {
    public var root: String
    /// Quiet time after the last write (or the last change seen by polling) before a file is ready.
    public var settleSeconds: Double
    public var mode: WatchMode
    public var pollSeconds: Double
    /// A safety listing of inotify roots every so often (0 turns it off): catches what events miss.
    public var rescanSeconds: Double
    /// Names never returned: matched on the file's name and on every folder name on its way.
    public var ignore: [Glob]

    public init(root: String, settleSeconds: Double = 2, mode: WatchMode = .auto, pollSeconds: Double = 10,
                rescanSeconds: Double = 300, ignore: [Glob] = InboxSettings.defaultIgnore.map(Glob.init)) {
        self.root = root.count > 1 && root.hasSuffix("/") ? String(root.dropLast()) : root
        self.settleSeconds = settleSeconds
        self.mode = mode
        self.pollSeconds = pollSeconds
        self.rescanSeconds = rescanSeconds
        self.ignore = ignore
    }

    /// The inbox as configured.
    public init(inbox: InboxSettings) {
        self.init(root: inbox.path, settleSeconds: inbox.settleSeconds, mode: inbox.watch, pollSeconds: inbox.pollSeconds,
                  rescanSeconds: inbox.rescanSeconds, ignore: inbox.ignore)
    }

    /// Whether `relativePath` (below the root) is never to be taken: a pattern with a `/` is matched
    /// against the whole relative path, one without against each name on it (`@eaDir/x.jpg` is out).
    public func ignores(relativePath: String) -> Bool {
        let names = relativePath.split(separator: "/").map(String.init)
        return ignore.contains { glob in
            glob.pattern.contains("/") ? glob.matches(relativePath: relativePath) : names.contains { glob.matches(name: $0) }
        }
    }
}

/// A file (or something that is not one) that is complete and ready for the daemon to take.
public struct ReadyEntry: Sendable, Equatable, CustomStringConvertible {
    public var root: String
    public var path: String
    public var relativePath: String
    public var kind: EntryKind

    public init(root: String, path: String, relativePath: String, kind: EntryKind) {
        self.root = root
        self.path = path
        self.relativePath = relativePath
        self.kind = kind
    }

    public var description: String { kind == .file ? path : "\(path) (\(kind.rawValue))" }
}
