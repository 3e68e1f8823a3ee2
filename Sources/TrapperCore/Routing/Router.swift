import Foundation

/// An input as routing sees it: everything a rule can match on, nothing read from disk.
public struct RouteInput: Sendable {
    /// Relative to the inbox, `/`-separated.
    public var relativePath: String
    public var bytes: Int64
    public var kind: FileKind
    public var source: InputSource
    public var button: String?
    public var profile: String?
    public var date: Date
    /// For one part of a split input: the value of the barcode that began it.
    public var barcode: String?

    public init(relativePath: String, bytes: Int64, kind: FileKind, source: InputSource = .inbox,
                button: String? = nil, profile: String? = nil, date: Date, barcode: String? = nil) {
        self.relativePath = relativePath
        self.bytes = bytes
        self.kind = kind
        self.source = source
        self.button = button
        self.profile = profile
        self.date = date
        self.barcode = barcode
    }
}

/// A batch a rule has open: the new file its inputs go to, and when the last of them arrived.
/// The daemon keeps them in its state folder (`batches.json`), where `explain` reads them too.
public struct OpenBatch: Codable, Sendable, Equatable {
    public var target: String
    public var last: Date

    public init(target: String, last: Date) {
        self.target = target
        self.last = last
    }

    /// `batches.json`: rule name → its open batch.
    public static func decode(_ data: Data) -> [String: OpenBatch] {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return (try? decoder.decode([String: OpenBatch].self, from: data)) ?? [:]
    }

    public static func encode(_ batches: [String: OpenBatch]) -> Data {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = .sortedKeys
        // Strings and dates: encoding cannot fail.
        return (try? encoder.encode(batches)) ?? Data("{}".utf8)
    }
}

/// What will happen to one input, all of it decided here: `pdftrapper explain` prints it, and the
/// capture pipeline carries it out without looking at the rule again.
public struct RoutePlan: Sendable, Equatable {
    public var rule: String
    /// 1-based position of the rule in the config.
    public var ruleNumber: Int
    /// Relative to the library root.
    public var target: String
    public var targetPath: String
    public var mode: IngestMode
    public var original: OriginalDisposition
    /// Where the original goes when archived; nil otherwise.
    public var archivePath: String?
    /// The rule's page steps.
    public var steps = PageSteps()
    /// `collate = "double-sided"`, for an input that is not one-sided: how long a front pass waits
    /// for its back pass. Nil: the input goes in alone.
    public var collateWindow: Double?
    /// `mode = "batch"`: the window, and whether the input joins a batch already open (then
    /// `targetPath` is that batch's file) or opens one.
    public var batch: Batch?

    public struct Batch: Sendable, Equatable {
        public var window: Double
        public var joins: Bool
    }

    /// Splitting at separator sheets, as the page steps say.
    public var separator: Separator? { steps.separator }

    public init(rule: String, ruleNumber: Int, target: String, targetPath: String, mode: IngestMode,
                original: OriginalDisposition, archivePath: String?) {
        self.rule = rule
        self.ruleNumber = ruleNumber
        self.target = target
        self.targetPath = targetPath
        self.mode = mode
        self.original = original
        self.archivePath = archivePath
    }
}

/// Rules in order; the first that matches decides. Pure: the file system is asked only whether a
/// name is taken, through `exists`, so `new` mode can pick a free one.
public struct Router: Sendable {
    public var rules: [Rule]
    public var libraryRoot: String
    public var archiveRoot: String
    public var timeZone: TimeZone
    public var host: String

    public init(rules: [Rule], libraryRoot: String, archiveRoot: String, timeZone: TimeZone = .current, host: String = "") {
        self.rules = rules
        self.libraryRoot = libraryRoot
        self.archiveRoot = archiveRoot
        self.timeZone = timeZone
        self.host = host
    }

    /// The first rule that takes the input, with its 0-based index.
    public func firstMatch(for input: RouteInput) -> (index: Int, rule: Rule)? {
        rules.enumerated().first { Self.matches($0.element.match, input) }.map { ($0.offset, $0.element) }
    }

    /// `batches`: those open, by rule name; an input within a rule's window of its batch's last
    /// input joins it.
    public func plan(for input: RouteInput, batches: [String: OpenBatch] = [:], exists: (String) -> Bool = { _ in false })
        -> RoutePlan?
    {
        guard let (index, rule) = firstMatch(for: input) else { return nil }
        let values = TemplateValues(date: input.date, timeZone: timeZone, relativePath: input.relativePath,
                                    rule: rule.name, source: input.source, button: input.button ?? "",
                                    profile: input.profile ?? "", host: host, barcode: input.barcode ?? "")
        // A batch opened under another library root (the config was reloaded) is not joined.
        let open = batches[rule.name].flatMap { batch in
            rule.mode == .batch && input.date.timeIntervalSince(batch.last) <= rule.batchWindowSeconds
                ? belowLibrary(batch.target) : nil
        }
        let target = open ?? targetName(rule, values, exists: exists)
        let archive = rule.original == .archive ? join(archiveRoot, FileName.fittedPath(rule.archiveAs.render(values))) : nil
        var plan = RoutePlan(rule: rule.name, ruleNumber: index + 1, target: target, targetPath: join(libraryRoot, target),
                             mode: rule.mode, original: rule.original, archivePath: archive)
        plan.steps = rule.steps
        if rule.collate == .doubleSided, !rule.isOneSided(input.relativePath) { plan.collateWindow = rule.collateWindowSeconds }
        if rule.mode == .batch { plan.batch = RoutePlan.Batch(window: rule.batchWindowSeconds, joins: open != nil) }
        return plan
    }

    /// Appending and prepending use the name as it renders; `new` and `batch` find a free one. Every
    /// name is kept within 255 bytes (FileName), its extension and its uniqueness number kept.
    private func targetName(_ rule: Rule, _ values: TemplateValues, exists: (String) -> Bool) -> String {
        let plain = FileName.fittedPath(rule.target.render(values))
        guard rule.mode == .new || rule.mode == .batch else { return plain }
        // {seq} counts up, unless cutting a long name would cut the number off too.
        if rule.target.usesSequence,
           FileName.fittedPath(rule.target.render(values, sequence: 1)) != FileName.fittedPath(rule.target.render(values, sequence: 2)) {
            var sequence = 1
            while exists(join(libraryRoot, FileName.fittedPath(rule.target.render(values, sequence: sequence)))) { sequence += 1 }
            return FileName.fittedPath(rule.target.render(values, sequence: sequence))
        }
        guard exists(join(libraryRoot, plain)) else { return plain }
        let folder = (plain as NSString).deletingLastPathComponent, name = (plain as NSString).lastPathComponent
        func numbered(_ number: Int) -> String {
            (folder.isEmpty ? "" : folder + "/") + FileName.numbered(name, number)
        }
        var sequence = 2
        while exists(join(libraryRoot, numbered(sequence))) { sequence += 1 }
        return numbered(sequence)
    }

    static func matches(_ match: RuleMatch, _ input: RouteInput) -> Bool {
        if let folder = match.folder?.split(separator: "/").joined(separator: "/"), !folder.isEmpty {
            let inputFolder = input.relativePath.split(separator: "/").dropLast().joined(separator: "/")
            guard inputFolder == folder || inputFolder.hasPrefix(folder + "/") else { return false }
        }
        if !match.globs.isEmpty, !match.globs.contains(where: { $0.matches(relativePath: input.relativePath) }) {
            return false
        }
        if let pattern = match.regex {
            guard let regex = try? Regex(pattern), input.relativePath.contains(regex) else { return false }
        }
        if let kinds = match.kinds, !kinds.contains(input.kind) { return false }
        if let least = match.minBytes, input.bytes < least { return false }
        if let most = match.maxBytes, input.bytes > most { return false }
        if let source = match.source, source != input.source { return false }
        if let button = match.button, button != input.button { return false }
        if let profile = match.profile, profile != input.profile { return false }
        return true
    }

    private func belowLibrary(_ path: String) -> String? {
        let prefix = join(libraryRoot, "")
        return path.hasPrefix(prefix) && path.count > prefix.count ? String(path.dropFirst(prefix.count)) : nil
    }

    private func join(_ root: String, _ relative: String) -> String {
        root.hasSuffix("/") ? root + relative : root + "/" + relative
    }
}
