import Foundation
import Glibc
import TrapperCore

/// Stage 1, claim: an entry the watcher handed over is routed, checked (a regular file of its own,
/// whole), and renamed into this daemon's claims; whoever renames it first has it. And at start,
/// the claims a stopped run left are taken again.
extension Inbox {
    enum Claim {
        case claimed(CaptureInput)
        /// What became of it instead (quarantined, no rule, taken by another daemon...).
        case done(JobOutcome)
        /// Gone, or already seen and left alone.
        case nothing
    }

    /// Routes and claims one entry.
    mutating func claim(_ arrival: Arrival, now: Date) -> Claim {
        let (path, relativePath) = (arrival.path, arrival.relativePath)
        guard !relativePath.hasPrefix(Self.claimsFolderName) else { return .nothing }
        guard let status = files.status(path) else { return .nothing }
        let identity = Self.identity(path, status)
        if leftAlone.contains(identity) { return .nothing }
        guard arrival.isRegularFile, status.st_mode & S_IFMT == S_IFREG else {
            return .done(quarantineUnclaimed(path, relativePath, reason: Self.describe(status.st_mode), now: now))
        }
        if let reason = InputFiles.hardLinkReason(links: Int(status.st_nlink)) {
            return .done(quarantineUnclaimed(path, relativePath, reason: reason, now: now))
        }
        let input = routeInput(path, relativePath, status, now)
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
            do { _ = try pipeline.opener.open(path, steps: PageSteps(), blankIsEmpty: false) } catch {
                tooLate = "incomplete: \(missing) after \(Quantities.describe(seconds: limit)) (inbox.incomplete_timeout); \(error)"
            }
        }
        // The claim: whoever renames it first has it; for everyone else the file is gone. A claim of
        // the same name still waiting (for a retry) is never replaced: this one is numbered.
        do {
            let claimed = try files.move(path, to: claims + "/" + relativePath, durable: false)
            if let tooLate { return .done(quarantine(claimed, relativePath, plan.rule, reason: tooLate, now: now, event: .incomplete)) }
            noteBatch(plan, now: now)
            return .claimed(CaptureInput(path: claimed, name: relativePath, plan: plan))
        } catch where error.isPermanent {
            // A link placed among the claims, say: no retry can claim it, so it goes to quarantine as it is.
            return .done(quarantine(path, relativePath, plan.rule, reason: "cannot be claimed: \(error)", now: now))
        } catch {
            reserved.remove(plan.targetPath)
            return .done(JobOutcome(input: relativePath, result: error.code == ENOENT ? .takenElsewhere : .retryLater,
                                    rule: plan.rule, reason: "\(error)", date: now))
        }
    }

    /// The plan for an input whose target was chosen (and written down) before a crash.
    func pinned(_ input: RouteInput, to target: String) -> RoutePlan? {
        guard var plan = router.plan(for: input, exists: { _ in false }) else { return nil }
        plan.targetPath = target
        if plan.mode == .new || plan.mode == .batch { plan.mode = .append }
        plan.batch = nil
        return plan
    }

    /// Inputs a previous run claimed and did not finish: taken again, to the target written down
    /// for them if there is one, with duplicates always skipped (the previous run may have ingested
    /// them just before it stopped).
    public mutating func recoverClaims() -> [JobOutcome] {
        let now = clock.now()
        let found = files.files(below: claims)
        var outcomes: [JobOutcome] = []
        var claimed: [CaptureInput] = []
        let manifests = self.manifests
        reserved = []
        for relativePath in found {
            guard !relativePath.hasPrefix(Self.manifestFolderName), !relativePath.hasPrefix(Self.heldFolderName) else { continue }
            let path = claims + "/" + relativePath
            guard let status = files.status(path) else { continue }
            let input = routeInput(path, relativePath, status, now)
            guard let plan = manifests[relativePath].map({ pinned(input, to: $0) }) ?? route(input) else {
                // The config changed since: back to the inbox, where the rules will find it (or not).
                _ = try? files.move(path, to: config.inbox.path + "/" + relativePath)
                outcomes.append(JobOutcome(input: relativePath, result: .noRule, date: now))
                continue
            }
            claimed.append(CaptureInput(path: path, name: relativePath, plan: plan))
        }
        outcomes += process(claimed, recovering: true, now: now)
        removeUsedManifests()
        return outcomes
    }

    /// Links, FIFOs, sockets and devices are never followed or read: a link is removed where it is
    /// (only its note goes to the quarantine); the others are claimed as they are, then quarantined.
    private func quarantineUnclaimed(_ path: String, _ relativePath: String, reason: String, now: Date) -> JobOutcome {
        if files.status(path).map({ $0.st_mode & S_IFMT == S_IFLNK }) == true {
            return quarantine(path, relativePath, nil, reason: reason, now: now)
        }
        do {
            let claimed = try files.move(path, to: claims + "/" + relativePath, durable: false)
            return quarantine(claimed, relativePath, nil, reason: reason, now: now)
        } catch {
            return JobOutcome(input: relativePath, result: error.code == ENOENT ? .takenElsewhere : .retryLater, reason: "\(error)",
                              date: now)
        }
    }

    /// A file as it is now (path, inode, size, mtime): seen again unchanged, it is no new job.
    static func identity(_ path: String, _ status: stat) -> String {
        "\(path)|\(status.st_ino)|\(status.st_size)|\(status.st_mtim.tv_sec).\(status.st_mtim.tv_nsec)"
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
