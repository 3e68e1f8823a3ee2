import Foundation
import Glibc
import TrapperCore

/// The inbox as a way in, for as long as the daemon runs: it claims what the watcher hands over,
/// groups the claims into captures, and runs each through the capture pipeline; then it archives,
/// deletes or keeps the originals, or quarantines them with the reason. An input is always in
/// exactly one place (inbox, claims, archive, quarantine), and leaves the claims only once what it
/// became is durable, so a crash at any moment loses nothing and, with the duplicate check on
/// recovery, ingests nothing twice.
///
/// Its parts: `+Claims` (taking a file, and taking back what a stopped run had claimed),
/// `+Grouping` (which claims share a revision, front and back passes), `+Manifests` (targets
/// written down before a revision), `+Disposal` (what happens to an original afterwards).
public struct Inbox {
    public var config: Config
    let store: TargetStore
    let router: Router
    var pipeline: CapturePipeline
    /// Every claim, move, note and manifest: the daemon's configured folders, resolved beneath their
    /// descriptors (`ConfinedFolders`), or a test's scripted ones.
    let files: any CaptureFileSystem
    var clock: any Clock { pipeline.clock }
    /// This daemon's claims, on the inbox's file system so that claiming is one rename(2).
    public let claims: String
    /// Open batches by rule, kept in the state folder (`batches.json`) so that `explain` sees them
    /// and a restart goes on with them.
    var batches: [String: OpenBatch] = [:]
    /// Inputs left alone (no rule, or kept), by path, size and mtime, so each is reported once.
    var leftAlone: Set<String> = []
    /// The batches as last written to the state folder.
    var savedBatches: [String: OpenBatch] = [:]
    /// New files chosen for inputs not yet written, so that two inputs never pick the same free name.
    var reserved: Set<String> = []

    public static let claimsFolderName = ".pdftrapper-claims"

    /// Inputs that go to the same target in the same way become one revision, up to this many.
    static let revisionLimit = 64

    public init(config: Config, store: TargetStore, instance: String, files: (any CaptureFileSystem)? = nil,
                opener: (any InputOpening)? = nil, clock: any Clock = SystemClock()) {
        self.config = config
        self.store = store
        self.router = config.router(host: ProcessInfo.processInfo.hostName)
        self.files = files ?? store.folders
        self.pipeline = CapturePipeline(store: store, opener: opener ?? InputFiles(config.limits), clock: clock)
        self.claims = "\(config.inbox.path)/\(Self.claimsFolderName)/\(instance)"
        self.batches = Self.readBatches(config, self.files)
        self.savedBatches = batches
    }

    /// An entry the watcher handed over.
    public struct Arrival: Sendable {
        public var path: String
        public var relativePath: String
        public var isRegularFile: Bool

        public init(path: String, relativePath: String, isRegularFile: Bool) {
            self.path = path
            self.relativePath = relativePath
            self.isRegularFile = isRegularFile
        }
    }

    /// What a reload keeps: the open batches and the inputs already reported and left alone.
    public mutating func carryOver(from previous: Inbox) {
        batches = previous.batches
        leftAlone = previous.leftAlone
    }

    /// Handles one entry the watcher found in the inbox.
    public mutating func take(_ path: String, relativePath: String, isRegularFile: Bool) -> JobOutcome? {
        take([Arrival(path: path, relativePath: relativePath, isRegularFile: isRegularFile)]).first
    }

    /// Handles the entries the watcher found together: each is claimed, and those bound for the same
    /// target (appended or prepended, or one batch) go in as one revision.
    public mutating func take(_ arrivals: [Arrival]) -> [JobOutcome] {
        let now = clock.now()
        var outcomes: [JobOutcome] = []
        var claimed: [CaptureInput] = []
        reserved = []
        for arrival in arrivals {
            switch claim(arrival, now: now) {
            case .claimed(let input): claimed.append(input)
            case .done(let outcome): outcomes.append(outcome)
            case .nothing: break
            }
        }
        saveBatches()
        return outcomes + process(claimed, recovering: false, now: now)
    }

    /// The plan for an input; a new file's name counts as taken from the moment it is chosen.
    mutating func route(_ input: RouteInput) -> RoutePlan? {
        if let target = uploadRequest(input.relativePath)?.target { return uploadPlan(input, to: target) }
        let taken = reserved
        let files = self.files
        let plan = router.plan(for: input, batches: batches) { taken.contains($0) || files.exists($0) }
        if let plan, plan.mode == .new || plan.mode == .batch { reserved.insert(plan.targetPath) }
        return plan
    }

    /// A batch input was claimed: its batch is open (or stays open) from now, for the rule's window.
    mutating func noteBatch(_ plan: RoutePlan, now: Date) {
        guard plan.batch != nil else { return }
        batches[plan.rule] = OpenBatch(target: plan.targetPath, last: now)
    }

    public static func batchesFile(_ config: Config) -> String { config.daemon.stateDir + "/batches.json" }

    /// The batches the state folder says are open (`explain` reads the same file).
    static func readBatches(_ config: Config, _ files: any CaptureFileSystem) -> [String: OpenBatch] {
        files.read(batchesFile(config)).map(OpenBatch.decode) ?? [:]
    }

    /// Written when they changed; batches whose window has closed are left out.
    mutating func saveBatches() {
        let now = clock.now()
        batches = batches.filter { rule, batch in
            config.rules.contains { $0.name == rule && now.timeIntervalSince(batch.last) <= $0.batchWindowSeconds }
        }
        guard batches != savedBatches else { return }
        // Lost, a batch only means the next file opens a new one: never worth failing a capture for.
        if (try? files.replace(Self.batchesFile(config), with: OpenBatch.encode(batches))) != nil { savedBatches = batches }
    }

    /// Whether the file is structurally whole (an unreadable one counts as whole: it is refused later).
    static func completeness(_ path: String, _ kind: FileKind) -> Completeness.Verdict {
        guard let source = try? PDFFileSource(path: path) else { return .complete }
        return Completeness.check(source, kind: kind)
    }

    /// What routing needs of a file: its place, size and kind by its first bytes.
    static func routeInput(_ path: String, _ relativePath: String, _ status: stat, _ now: Date) -> RouteInput {
        let head = (try? PDFFileSource(path: path).read(offset: 0, count: FileKind.sniffLength)) ?? []
        return RouteInput(relativePath: relativePath, bytes: Int64(status.st_size), kind: FileKind.sniff(head), date: now)
    }
}
