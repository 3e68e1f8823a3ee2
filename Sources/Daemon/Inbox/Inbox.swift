import Foundation
import Glibc
import Hashing
import TrapperCore

/// Takes one input from the inbox to its target: route, claim, check, ingest, then archive,
/// delete or keep the original; or quarantine it with the reason. The input is always in exactly
/// one place (inbox, claims, archive, quarantine), and leaves the claims only once what it became
/// is durable, so a crash at any moment loses nothing and, with the duplicate check on recovery,
/// ingests nothing twice.
public struct InboxJob {
    public var config: Config
    let store: TargetStore
    let inputs: InputFiles
    let router: Router
    /// This daemon's claims, on the inbox's file system so that claiming is one rename(2).
    public let claims: String
    /// Open batches by rule: the target and when its last input arrived.
    var batches: [String: (target: String, last: Date)] = [:]
    /// Inputs left alone (no rule, or kept), by path, size and mtime, so each is reported once.
    var leftAlone: Set<String> = []
    /// New files chosen for inputs not yet written, so that two inputs never pick the same free name.
    var reserved: Set<String> = []

    public static let claimsFolderName = ".pdftrapper-claims"

    /// Every move, note and manifest goes through the store's confinement: the daemon's configured
    /// folders, resolved beneath their descriptors.
    var folders: ConfinedFolders { store.folders }

    public init(config: Config, store: TargetStore, instance: String) {
        self.config = config
        self.store = store
        self.inputs = InputFiles(config.limits)
        self.router = config.router(host: ProcessInfo.processInfo.hostName)
        self.claims = "\(config.inbox.path)/\(Self.claimsFolderName)/\(instance)"
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

    /// An input this daemon has claimed, with where it is going.
    struct Claimed {
        var path: String
        var relativePath: String
        var plan: RoutePlan
    }

    /// Inputs that go to the same target in the same way become one revision, up to this many.
    static let revisionLimit = 64

    /// What a reload keeps: the open batches and the inputs already reported and left alone.
    public mutating func carryOver(from previous: InboxJob) {
        batches = previous.batches
        leftAlone = previous.leftAlone
    }

    /// Handles one entry the watcher found in the inbox.
    public mutating func take(_ path: String, relativePath: String, isRegularFile: Bool, now: Date = Date()) -> JobOutcome? {
        take([Arrival(path: path, relativePath: relativePath, isRegularFile: isRegularFile)], now: now).first
    }

    /// Handles the entries the watcher found together: each is claimed, and those bound for the same
    /// target (appended or prepended, or one batch) go in as one revision.
    public mutating func take(_ arrivals: [Arrival], now: Date = Date()) -> [JobOutcome] {
        var outcomes: [JobOutcome] = []
        var claimed: [Claimed] = []
        reserved = []
        for arrival in arrivals {
            switch claim(arrival, now: now) {
            case .claimed(let input): claimed.append(input)
            case .done(let outcome): outcomes.append(outcome)
            case .nothing: break
            }
        }
        return outcomes + process(claimed, recovering: false, now: now)
    }

    enum Claim {
        case claimed(Claimed)
        /// What became of it instead (quarantined, no rule, taken by another daemon...).
        case done(JobOutcome)
        /// Gone, or already seen and left alone.
        case nothing
    }

    /// Routes and claims one entry.
    private mutating func claim(_ arrival: Arrival, now: Date) -> Claim {
        let (path, relativePath) = (arrival.path, arrival.relativePath)
        guard !relativePath.hasPrefix(Self.claimsFolderName) else { return .nothing }
        guard let status = folders.status(path) else { return .nothing }
        let identity = Self.identity(path, status)
        if leftAlone.contains(identity) { return .nothing }
        guard arrival.isRegularFile, status.st_mode & S_IFMT == S_IFREG else {
            return .done(quarantineUnclaimed(path, relativePath, reason: Self.describe(status.st_mode)))
        }
        if let reason = InputFiles.hardLinkReason(links: Int(status.st_nlink)) {
            return .done(quarantineUnclaimed(path, relativePath, reason: reason))
        }
        let input = Self.routeInput(path, relativePath, status, now)
        guard let plan = route(input) else {
            leftAlone.insert(identity)
            return .done(JobOutcome(input: relativePath, result: .noRule, date: now))
        }
        // Not whole yet: a paused upload is left where it is (the writer goes on with it) until
        // incomplete_timeout after its last write. Then it is taken if it reads after all (a marker
        // hidden by padding), else quarantined as incomplete, with what reading it says.
        var tooLate: String?
        if case .incomplete(let missing) = Self.completeness(path, input.kind) {
            let quiet = now.timeIntervalSince(Date(timeIntervalSince1970: Double(status.st_mtim.tv_sec)))
            let limit = config.inbox.incompleteTimeoutSeconds
            guard quiet >= limit else {
                reserved.remove(plan.targetPath)
                return .done(JobOutcome(input: relativePath, result: .waiting, rule: plan.rule,
                                        reason: "incomplete for \(Int(max(0, quiet))) s (\(missing))", date: now))
            }
            do { _ = try inputs.open(path) } catch {
                tooLate = "incomplete: \(missing) after \(Quantities.describe(seconds: limit)) (inbox.incomplete_timeout); \(error)"
            }
        }
        // The claim: whoever renames it first has it; for everyone else the file is gone. A claim of
        // the same name still waiting (for a retry) is never replaced: this one is numbered.
        do {
            let claimed = try folders.move(path, to: claims + "/" + relativePath, durable: false)
            if let tooLate { return .done(quarantine(claimed, relativePath, plan.rule, reason: tooLate)) }
            return .claimed(Claimed(path: claimed, relativePath: relativePath, plan: plan))
        } catch where error.isPermanent {
            // A link placed among the claims, say: no retry can claim it, so it goes to quarantine as it is.
            return .done(quarantine(path, relativePath, plan.rule, reason: "cannot be claimed: \(error)"))
        } catch {
            return .done(JobOutcome(input: relativePath, result: error.code == ENOENT ? .takenElsewhere : .retryLater,
                                    rule: plan.rule, reason: "\(error)", date: now))
        }
    }

    /// The plan for an input; a new file's name counts as taken from the moment it is chosen.
    mutating func route(_ input: RouteInput) -> RoutePlan? {
        let taken = reserved
        let folders = self.folders
        let plan = router.plan(for: input) { taken.contains($0) || folders.exists($0) }
        if let plan, plan.mode == .new || plan.mode == .batch { reserved.insert(plan.targetPath) }
        return plan
    }

    /// The plan for an input whose target was chosen (and written down) before a crash.
    private func pinned(_ input: RouteInput, to target: String) -> RoutePlan? {
        guard var plan = router.plan(for: input, exists: { _ in false }) else { return nil }
        plan.targetPath = target
        if plan.mode == .new || plan.mode == .batch { plan.mode = .append }
        return plan
    }

    /// Where the targets of claimed inputs are written down before their revision: a crash after
    /// the revision but before the original is archived must not send the input somewhere new on
    /// recovery (a new `{seq}` name, another `{date}`), where the duplicate check would miss it.
    var manifestFolder: String { claims + "/" + Self.manifestFolderName }
    static let manifestFolderName = ".targets"

    private func writeManifest(_ group: [Claimed], target: String) -> String? {
        let file = manifestFolder + "/" + UUID().uuidString + ".txt"
        // Each input by its name among the claims (a second `x.png` waits there as `x-2.png`), as
        // recovery finds it.
        let lines = ([target] + group.map { String($0.path.dropFirst(claims.count + 1)) }).joined(separator: "\n") + "\n"
        do {
            try folders.replace(file, with: Data(lines.utf8))
            return file
        } catch {
            return nil
        }
    }

    /// Relative path of a claimed input → the target written down for it.
    private var manifests: [String: String] {
        var pinned: [String: String] = [:]
        for name in folders.names(in: manifestFolder) ?? [] where !name.hasSuffix(Self.splitSuffix) {
            guard let data = folders.read(manifestFolder + "/" + name), let text = String(data: data, encoding: .utf8) else { continue }
            let lines = text.split(separator: "\n").map(String.init)
            for input in lines.dropFirst() { pinned[input] = lines.first }
        }
        return pinned
    }

    /// Inputs a previous run claimed and did not finish: taken again, to the target written down
    /// for them if there is one, with duplicates always skipped (the previous run may have ingested
    /// them just before it stopped).
    public mutating func recoverClaims(now: Date = Date()) -> [JobOutcome] {
        let found = folders.files(below: claims)
        var outcomes: [JobOutcome] = []
        var claimed: [Claimed] = []
        let manifests = self.manifests
        reserved = []
        for relativePath in found {
            guard !relativePath.hasPrefix(Self.manifestFolderName), !relativePath.hasPrefix(Self.heldFolderName) else { continue }
            let path = claims + "/" + relativePath
            guard let status = folders.status(path) else { continue }
            let input = Self.routeInput(path, relativePath, status, now)
            guard let plan = manifests[relativePath].map({ pinned(input, to: $0) }) ?? route(input) else {
                // The config changed since: back to the inbox, where the rules will find it (or not).
                _ = try? folders.move(path, to: config.inbox.path + "/" + relativePath)
                outcomes.append(JobOutcome(input: relativePath, result: .noRule, date: now))
                continue
            }
            claimed.append(Claimed(path: path, relativePath: relativePath, plan: plan))
        }
        outcomes += process(claimed, recovering: true, now: now)
        // What is written down is used up: every input it named is finished or back in the inbox.
        // A split input's targets stay written down while it waits among the claims for another try.
        for name in folders.names(in: manifestFolder) ?? [] where !name.hasSuffix(Self.splitSuffix) {
            try? folders.remove(manifestFolder + "/" + name)
        }
        removeStaleSplitManifests()
        return outcomes
    }

    /// Claimed inputs, in order, grouped into revisions: consecutive inputs for the same target and
    /// mode share one (a new file each gets its own).
    private mutating func process(_ claimed: [Claimed], recovering: Bool, now: Date) -> [JobOutcome] {
        var outcomes: [JobOutcome] = []
        var group: [Claimed] = []
        // Front and back passes wait for each other, outside the revision groups.
        // A one-sided letter (its name matches one_sided) goes in alone, like any other input.
        func isCollated(_ input: Claimed) -> Bool {
            let rule = config.rules[input.plan.ruleNumber - 1]
            return rule.collate == .doubleSided && !rule.isOneSided(input.relativePath)
        }
        for input in claimed where isCollated(input) { outcomes += collate(input, now: now) }
        let claimed = claimed.filter { !isCollated($0) }
        func flush() {
            if !group.isEmpty { outcomes += ingest(group, recovering: recovering, now: now) }
            group = []
        }
        for input in claimed {
            if let first = group.first,
               first.plan.targetPath != input.plan.targetPath || first.plan.mode != input.plan.mode
                || input.plan.mode == .new || group.count >= Self.revisionLimit {
                flush()
            }
            group.append(input)
        }
        flush()
        return outcomes
    }

    /// One revision for `group` (all bound for one target): bad inputs and duplicates are taken out
    /// first, each with its own outcome; then the originals are archived, deleted or kept.
    private mutating func ingest(_ group: [Claimed], recovering: Bool, now: Date) -> [JobOutcome] {
        let plan = group[0].plan
        if plan.steps.separator != nil { return group.flatMap { ingestSplit($0, recovering: recovering, now: now) } }
        var target = plan.targetPath
        if plan.mode == .batch {
            let window = config.rules[plan.ruleNumber - 1].batchWindowSeconds
            if let open = batches[plan.rule], now.timeIntervalSince(open.last) <= window { target = open.target }
        }
        if let reason = outsideLibrary(target) {
            return group.map { quarantine($0.path, $0.relativePath, plan.rule, reason: reason) }
        }
        var outcomes: [JobOutcome] = []
        var ready: [(input: Claimed, document: any InputDocument)] = []
        let known = store.ingestedInputs(of: target)
        var seen = Set<String>()
        let skipDuplicates = recovering || config.inbox.duplicates == .skip
        for input in group {
            do {
                let document = try inputs.open(input.path, steps: plan.steps)
                let digest = SHA256.hex(document.sha256)
                if skipDuplicates, known.contains(digest) || seen.contains(digest) {
                    var outcome = JobOutcome(input: input.relativePath, result: .duplicate, rule: plan.rule, target: target, date: now)
                    outcomes.append(finish(input, outcome: &outcome))
                } else {
                    seen.insert(digest)
                    ready.append((input, document))
                }
            } catch {
                outcomes.append(quarantine(input.path, input.relativePath, plan.rule, reason: error.description))
            }
        }
        let manifest = ready.isEmpty ? nil : writeManifest(ready.map(\.input), target: target)
        defer { if let manifest { try? folders.remove(manifest) } }
        while !ready.isEmpty {
            do {
                let committed = try Ingest.run(ready.map(\.document), into: target, at: plan.mode == .prepend ? .front : .end,
                                               store: store, date: now)
                OCRQueue.enqueue(committed, languages: plan.steps.ocr, store: store)
                for (input, document) in ready {
                    var outcome = JobOutcome(input: input.relativePath, result: .ingested, rule: plan.rule, target: target,
                                             pages: document.pageCount, end: committed.end, reason: document.stepsNote,
                                             date: now)
                    outcomes.append(finish(input, outcome: &outcome))
                }
                if plan.mode == .batch { batches[plan.rule] = (target, now) }
                ready = []
            } catch EngineError.badInput(let name, let reason) where ready.contains(where: { $0.document.name == name }) {
                // One input failed while its pages were written: it goes, the others try again.
                let bad = ready.firstIndex { $0.document.name == name }!
                outcomes.append(quarantine(ready[bad].input.path, ready[bad].input.relativePath, plan.rule, reason: "\(name): \(reason)"))
                ready.remove(at: bad)
            } catch let error as EngineError {
                if case .io = error {
                    outcomes += ready.map {
                        JobOutcome(input: $0.input.relativePath, result: .retryLater, rule: plan.rule, target: target,
                                   reason: error.description, date: now)
                    }
                } else {
                    outcomes += ready.map { quarantine($0.input.path, $0.input.relativePath, plan.rule, reason: error.description) }
                }
                ready = []
            } catch {
                outcomes += ready.map { quarantine($0.input.path, $0.input.relativePath, plan.rule, reason: "\(error)") }
                ready = []
            }
        }
        return outcomes
    }

    /// Why `target` may not be written, when its name puts it outside the library or in the engine's
    /// own folder there. (A symlink on the way is refused when the store opens it, beneath the library.)
    func outsideLibrary(_ target: String) -> String? {
        ConfinedFolders.isTarget(target, inLibrary: config.library.root) ? nil
            : "target \(target) would be outside the library \(config.library.root)"
    }

    /// After its pages are durable (or found already there): the original is archived, deleted or kept.
    mutating func finish(_ input: Claimed, outcome: inout JobOutcome) -> JobOutcome {
        if input.plan.original == .keep { return keep(input.path, input.relativePath, outcome) }
        return dispose(input.path, input.relativePath, input.plan, outcome: &outcome)
    }

    /// Archive or delete the original once its pages are durable (keep is handled by the caller).
    /// An original that cannot be archived or deleted must still leave the claims (recovery would
    /// take it again): it goes to quarantine, its note saying where its pages went.
    private func dispose(_ claimed: String, _ relativePath: String, _ plan: RoutePlan, outcome: inout JobOutcome) -> JobOutcome {
        var failure: String?
        switch plan.original {
        case .archive:
            if let archive = plan.archivePath, FolderRoot.relative(archive, to: config.inbox.archive) != nil {
                do { _ = try folders.move(claimed, to: archive) } catch { failure = "archiving failed: \(error)" }
            } else {
                failure = "the archive path would be outside \(config.inbox.archive)"
            }
        case .delete:
            do { try folders.remove(claimed) } catch { failure = "deleting failed: \(error)" }
        case .keep:
            break
        }
        if let failure {
            let where_ = outcome.target.map { "its pages are in \($0)" } ?? "its pages are in the target"
            _ = try? quarantineFolder.put(claimed, relativePath: relativePath, reason: "\(where_); \(failure)", rule: plan.rule)
            outcome.reason = failure
        }
        return outcome
    }

    /// `original = "keep"`: back where it was, and remembered so that seeing it again is no new job.
    private mutating func keep(_ claimed: String, _ relativePath: String, _ outcome: JobOutcome) -> JobOutcome {
        let back = config.inbox.path + "/" + relativePath
        guard let placed = try? folders.move(claimed, to: back) else { return outcome }
        if let status = folders.status(placed) {
            leftAlone.insert(Self.identity(placed, status))
        }
        return outcome
    }

    var quarantineFolder: Quarantine { Quarantine(folder: config.inbox.quarantine, folders: folders) }

    func quarantine(_ claimed: String, _ relativePath: String, _ rule: String?, reason: String) -> JobOutcome {
        do {
            try quarantineFolder.put(claimed, relativePath: relativePath, reason: reason, rule: rule)
            return JobOutcome(input: relativePath, result: .quarantined, rule: rule, reason: reason)
        } catch {
            return JobOutcome(input: relativePath, result: .retryLater, rule: rule, reason: "\(reason); quarantine failed: \(error)")
        }
    }

    /// Links, FIFOs, sockets and devices are never followed or read: a link is removed where it is
    /// (only its note goes to the quarantine); the others are claimed as they are, then quarantined.
    private func quarantineUnclaimed(_ path: String, _ relativePath: String, reason: String) -> JobOutcome {
        if folders.status(path).map({ $0.st_mode & S_IFMT == S_IFLNK }) == true {
            return quarantine(path, relativePath, nil, reason: reason)
        }
        do {
            let claimed = try folders.move(path, to: claims + "/" + relativePath, durable: false)
            return quarantine(claimed, relativePath, nil, reason: reason)
        } catch {
            return JobOutcome(input: relativePath, result: error.code == ENOENT ? .takenElsewhere : .retryLater, reason: "\(error)")
        }
    }

    /// A file as it is now (path, inode, size, mtime): seen again unchanged, it is no new job.
    static func identity(_ path: String, _ status: stat) -> String {
        "\(path)|\(status.st_ino)|\(status.st_size)|\(status.st_mtim.tv_sec).\(status.st_mtim.tv_nsec)"
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

    static func describe(_ mode: mode_t) -> String {
        switch mode & S_IFMT {
        case S_IFLNK: "a symbolic link; links in the inbox are never followed"
        case S_IFIFO: "a FIFO; only regular files are read"
        case S_IFSOCK: "a socket; only regular files are read"
        case S_IFCHR, S_IFBLK: "a device; only regular files are read"
        case S_IFDIR: "a folder"
        default: "not a regular file"
        }
    }
}
