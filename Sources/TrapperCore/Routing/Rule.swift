/// How a rule's pages join their target.
public enum IngestMode: String, Sendable, CaseIterable {
    /// At the end of the target (made if missing).
    case append
    /// At the front of the target (made if missing).
    case prepend
    /// Into a new file; an existing name gets the lowest free `{seq}` (or `-2`, `-3`... without one).
    case new
    /// Files arriving within `batch_window` of each other go into one new file.
    case batch
}

/// What happens to an input once its pages are durable in the target.
public enum OriginalDisposition: String, Sendable, CaseIterable {
    case archive, delete, keep
}

/// What an input must be for a rule to take it. Every condition given must hold; none given matches all.
public struct RuleMatch: Sendable {
    /// The inbox subfolder: the input is in it or below it.
    public var folder: String?
    /// Any of these patterns.
    public var globs: [Glob] = []
    /// A regular expression searched in the path relative to the inbox.
    public var regex: String?
    public var kinds: Set<FileKind>?
    public var minBytes: Int64?
    public var maxBytes: Int64?
    public var source: InputSource?
    public var button: String?
    /// The scan profile that made the input (`pdftrapper scan --profile`, or a button's).
    public var profile: String?

    public init() {}
}

/// How a rule joins its inputs: each as it is, or in pairs of a front pass and a back pass from a
/// feeder that scans one side (the back pass comes last page first, as the stack was turned over).
public enum Collation: String, Sendable, CaseIterable {
    case none
    case doubleSided = "double-sided"
}

/// One `[[rule]]`: which inputs it takes and where their pages go.
public struct Rule: Sendable {
    public var name: String
    public var match: RuleMatch
    /// Relative to the library root.
    public var target: PathTemplate
    public var mode: IngestMode
    public var batchWindowSeconds: Double
    public var original: OriginalDisposition
    /// Relative to the archive folder.
    public var archiveAs: PathTemplate
    /// What happens to each page of an image input on the way.
    public var steps = PageSteps()
    /// `active_content` as the rule wrote it (nil: the inbox's); in force through `steps`.
    public var activeContent: ActiveContent?
    /// `collate = "double-sided"`: an input is the front pass, the next within the window the back.
    public var collate: Collation = .none
    /// `one_sided`: names of inputs that are one-sided letters: never held, never paired.
    public var oneSided: [Glob] = []

    /// An input that goes in alone under double-sided collation (its name matches `one_sided`).
    public func isOneSided(_ relativePath: String) -> Bool {
        oneSided.contains { $0.matches(relativePath: relativePath) }
    }
    public var collateWindowSeconds: Double = 1800

    public init(name: String, match: RuleMatch = RuleMatch(), target: PathTemplate, mode: IngestMode = .append,
                batchWindowSeconds: Double = 120, original: OriginalDisposition = .archive,
                archiveAs: PathTemplate = Rule.defaultArchiveAs) {
        self.name = name
        self.match = match
        self.target = target
        self.mode = mode
        self.batchWindowSeconds = batchWindowSeconds
        self.original = original
        self.archiveAs = archiveAs
    }

    // The literal is a valid template: the force is checked by the routing tests.
    public static let defaultArchiveAs = try! PathTemplate("{year}/{month}/{name}")
}
