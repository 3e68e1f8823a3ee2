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

    public static let claimsFolderName = ".pdftrapper-claims"

    public init(config: Config, store: TargetStore, instance: String) {
        self.config = config
        self.store = store
        self.inputs = InputFiles()
        self.router = config.router(host: ProcessInfo.processInfo.hostName)
        self.claims = "\(config.inbox.path)/\(Self.claimsFolderName)/\(instance)"
    }

    /// Handles a file (or a link, FIFO, socket...) the watcher found in the inbox.
    public mutating func take(_ path: String, relativePath: String, isRegularFile: Bool, now: Date = Date()) -> JobOutcome? {
        guard !relativePath.hasPrefix(Self.claimsFolderName) else { return nil }
        var status = stat()
        guard lstat(path, &status) == 0 else { return nil }
        let identity = "\(path)|\(status.st_ino)|\(status.st_size)|\(status.st_mtim.tv_sec).\(status.st_mtim.tv_nsec)"
        if leftAlone.contains(identity) { return nil }
        guard isRegularFile, status.st_mode & S_IFMT == S_IFREG else {
            return quarantineUnclaimed(path, relativePath, reason: Self.describe(status.st_mode))
        }
        let head = (try? PDFFileSource(path: path).read(offset: 0, count: FileKind.sniffLength)) ?? []
        let input = RouteInput(relativePath: relativePath, bytes: Int64(status.st_size), kind: FileKind.sniff(head), date: now)
        guard let plan = router.plan(for: input, exists: { FileManager.default.fileExists(atPath: $0) }) else {
            leftAlone.insert(identity)
            return JobOutcome(input: relativePath, result: .noRule, date: now)
        }
        let claimed = claims + "/" + relativePath
        do {
            try Durable.makeFolder((claimed as NSString).deletingLastPathComponent)
        } catch {
            return JobOutcome(input: relativePath, result: .retryLater, rule: plan.rule, reason: "\(error)", date: now)
        }
        // The claim: whoever renames it first has it; for everyone else the file is gone.
        guard rename(path, claimed) == 0 else {
            return JobOutcome(input: relativePath, result: errno == ENOENT ? .takenElsewhere : .retryLater, rule: plan.rule,
                              reason: String(cString: strerror(errno)), date: now)
        }
        var outcome = process(claimed, relativePath: relativePath, plan: plan, recovering: false, now: now)
        if outcome.result == .ingested || outcome.result == .duplicate, plan.original == .keep {
            outcome = keep(claimed, relativePath, outcome)
        }
        return outcome
    }

    /// Inputs a previous run claimed and did not finish: taken again, with duplicates always
    /// skipped (the previous run may have ingested them just before it stopped).
    public mutating func recoverClaims(now: Date = Date()) -> [JobOutcome] {
        guard let found = FileManager.default.enumerator(atPath: claims) else { return [] }
        var outcomes: [JobOutcome] = []
        for case let relativePath as String in found {
            let claimed = claims + "/" + relativePath
            var status = stat()
            guard lstat(claimed, &status) == 0, status.st_mode & S_IFMT != S_IFDIR else { continue }
            let head = (try? PDFFileSource(path: claimed).read(offset: 0, count: FileKind.sniffLength)) ?? []
            let input = RouteInput(relativePath: relativePath, bytes: Int64(status.st_size), kind: FileKind.sniff(head), date: now)
            guard let plan = router.plan(for: input, exists: { FileManager.default.fileExists(atPath: $0) }) else {
                // The config changed since: back to the inbox, where the rules will find it (or not).
                _ = try? FolderMoves.move(claimed, to: config.inbox.path + "/" + relativePath)
                outcomes.append(JobOutcome(input: relativePath, result: .noRule, date: now))
                continue
            }
            var outcome = process(claimed, relativePath: relativePath, plan: plan, recovering: true, now: now)
            if outcome.result == .ingested || outcome.result == .duplicate, plan.original == .keep {
                outcome = keep(claimed, relativePath, outcome)
            }
            outcomes.append(outcome)
        }
        return outcomes
    }

    private mutating func process(_ claimed: String, relativePath: String, plan: RoutePlan, recovering: Bool,
                                  now: Date) -> JobOutcome {
        var target = plan.targetPath
        if plan.mode == .batch {
            let window = config.rules[plan.ruleNumber - 1].batchWindowSeconds
            if let open = batches[plan.rule], now.timeIntervalSince(open.last) <= window { target = open.target }
        }
        let engineFolder = config.library.root + "/" + StateDirectory.libraryFolderName
        guard PathSafety.isInside(target, root: config.library.root), !PathSafety.isInside(target, root: engineFolder) else {
            return quarantine(claimed, relativePath, plan.rule,
                              reason: "target \(target) would be outside the library \(config.library.root) (a symlinked folder?)")
        }
        let document: any InputDocument
        do {
            document = try inputs.open(claimed)
        } catch {
            return quarantine(claimed, relativePath, plan.rule, reason: error.description)
        }
        let digest = SHA256.hex(document.sha256)
        let skip = recovering || config.inbox.duplicates == .skip
        var outcome: JobOutcome
        if skip, store.ingestedInputs(of: target).contains(digest) {
            outcome = JobOutcome(input: relativePath, result: .duplicate, rule: plan.rule, target: target, date: now)
        } else {
            do {
                let committed = try Ingest.run([document], into: target, at: plan.mode == .prepend ? .front : .end,
                                               store: store, date: now)
                outcome = JobOutcome(input: relativePath, result: .ingested, rule: plan.rule, target: target,
                                     pages: committed.record.pagesAdded, revision: committed.end, date: now)
            } catch let error as EngineError {
                if case .io = error {
                    return JobOutcome(input: relativePath, result: .retryLater, rule: plan.rule, target: target,
                                      reason: error.description, date: now)
                }
                return quarantine(claimed, relativePath, plan.rule, reason: error.description)
            } catch {
                return quarantine(claimed, relativePath, plan.rule, reason: "\(error)")
            }
        }
        if plan.mode == .batch { batches[plan.rule] = (target, now) }
        return dispose(claimed, relativePath, plan, outcome: &outcome)
    }

    /// Archive or delete the original once its pages are durable (keep is handled by the caller).
    private func dispose(_ claimed: String, _ relativePath: String, _ plan: RoutePlan, outcome: inout JobOutcome) -> JobOutcome {
        switch plan.original {
        case .archive:
            guard let archive = plan.archivePath, PathSafety.isInside(archive, root: config.inbox.archive) else {
                outcome.reason = "not archived: the archive path would be outside \(config.inbox.archive)"
                return outcome
            }
            do { _ = try FolderMoves.move(claimed, to: archive) } catch {
                outcome.reason = "ingested, but archiving failed: \(error)"
            }
        case .delete:
            do { try Durable.remove(claimed) } catch { outcome.reason = "ingested, but deleting failed: \(error)" }
        case .keep:
            break
        }
        return outcome
    }

    /// `original = "keep"`: back where it was, and remembered so that seeing it again is no new job.
    private mutating func keep(_ claimed: String, _ relativePath: String, _ outcome: JobOutcome) -> JobOutcome {
        let back = config.inbox.path + "/" + relativePath
        guard let placed = try? FolderMoves.move(claimed, to: back) else { return outcome }
        var status = stat()
        if lstat(placed, &status) == 0 {
            leftAlone.insert("\(placed)|\(status.st_ino)|\(status.st_size)|\(status.st_mtim.tv_sec).\(status.st_mtim.tv_nsec)")
        }
        return outcome
    }

    private func quarantine(_ claimed: String, _ relativePath: String, _ rule: String?, reason: String) -> JobOutcome {
        do {
            try Quarantine(folder: config.inbox.quarantine).put(claimed, relativePath: relativePath, reason: reason, rule: rule)
            return JobOutcome(input: relativePath, result: .quarantined, rule: rule, reason: reason)
        } catch {
            return JobOutcome(input: relativePath, result: .retryLater, rule: rule, reason: "\(reason); quarantine failed: \(error)")
        }
    }

    /// Links, FIFOs, sockets and devices are never followed or read: claimed as they are, then quarantined.
    private func quarantineUnclaimed(_ path: String, _ relativePath: String, reason: String) -> JobOutcome {
        let claimed = claims + "/" + relativePath
        do {
            try Durable.makeFolder((claimed as NSString).deletingLastPathComponent)
        } catch {
            return JobOutcome(input: relativePath, result: .retryLater, reason: "\(error)")
        }
        guard rename(path, claimed) == 0 else {
            return JobOutcome(input: relativePath, result: errno == ENOENT ? .takenElsewhere : .retryLater,
                              reason: String(cString: strerror(errno)))
        }
        return quarantine(claimed, relativePath, nil, reason: reason)
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
