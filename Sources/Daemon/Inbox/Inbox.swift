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
    /// Open batches by rule, as the state folder's list (`OpenBatches`, shared with the scanner)
    /// said at the last take, with those noted since.
    var batches: [String: OpenBatch] = [:]
    /// Inputs left alone (no rule, or kept), by path, size and mtime, so each is reported once.
    var leftAlone: Set<String> = []
    /// Batches opened or joined since the list was last written.
    var notedBatches: [String: OpenBatch] = [:]
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
        self.batches = OpenBatches(config: config, files: self.files, folders: store.folders).read()
    }

    var openBatches: OpenBatches { OpenBatches(config: config, files: files, folders: store.folders) }

    /// An entry the watcher handed over.
    public struct Arrival: Sendable, Equatable {
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
        notedBatches = previous.notedBatches
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
        // A scan may have opened a batch since: the list is read again.
        batches = openBatches.read().merging(notedBatches) { $1 }
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
        notedBatches[plan.rule] = batches[plan.rule]
    }

    /// The batches noted since the last write go into the state folder's list.
    mutating func saveBatches() {
        guard !notedBatches.isEmpty else { return }
        let noted = notedBatches
        if let written = openBatches.update(now: clock.now(), { $0.merge(noted) { $1 } }) {
            batches = written
            notedBatches = [:]
        }
    }

    /// Whether the file is structurally whole (an unreadable one counts as whole: it is refused later).
    static func completeness(_ path: String, _ kind: FileKind) -> Completeness.Verdict {
        guard let source = try? PDFFileSource(path: path) else { return .complete }
        return Completeness.check(source, kind: kind)
    }

    /// What routing needs of a file, through the front door: its place, size and kind by its first bytes.
    func routeInput(_ path: String, _ relativePath: String, _ status: stat, _ now: Date) -> RouteInput {
        let head = (try? PDFFileSource(path: path).read(offset: 0, count: FileKind.sniffLength)) ?? []
        return FrontDoor(config: config).input(.stated(relativePath: relativePath, bytes: Int64(status.st_size), head: head), now: now)
    }
}
