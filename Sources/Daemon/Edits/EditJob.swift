import Foundation
import Glibc
import Hashing
import PDFAccess
import System
import TrapperCore

/// Takes one edit script from the edits folder (or `pdftrapper apply`): parse and check it, apply it
/// as one revision, then file it: `done/NAME` beside `NAME.report.json`, or `failed/NAME` beside
/// `NAME.error.txt` with each problem as `FILE:LINE:COL: message` or the edit's index and reason.
/// A failed script leaves its target untouched.
public struct EditJob {
    public let config: Config
    let store: TargetStore

    public init(config: Config, store: TargetStore) {
        self.config = config
        self.store = store
    }

    public static let doneFolderName = "done"
    static let reportSuffix = ".report.json", errorSuffix = ".error.txt"
    /// The store's confinement: the daemon's configured folders (anywhere, for `apply`).
    var folders: ConfinedFolders { store.folders }
    public static let failedFolderName = "failed"
    /// Anything larger than the parser reads is refused before it is read.
    public static let maximumBytes = EditScriptParser.maxBytes

    /// What became of one script.
    public struct Outcome: Sendable, Codable {
        public var script: String
        public var applied: EditApply.Applied?
        /// One line each; empty when it was applied.
        public var problems: [String]
        /// Where the script was filed (done/ or failed/), nil when it is applied in place (`apply`).
        public var filed: String?
        /// Another daemon sharing the edits folder took it first: nothing to report.
        public var takenElsewhere = false

        public var summary: String {
            if let applied {
                return "\(script): \(applied.operations.joined(separator: ", ")) applied to \(applied.target)"
            }
            return "\(script): failed: \(problems.first ?? "?")" + (problems.count > 1 ? " (and \(problems.count - 1) more)" : "")
        }
    }

    /// Scripts being applied wait here (below the edits folder, per daemon), so that one a crash
    /// cut short is found again at start, and two daemons sharing the folder never both take one.
    public static let claimsFolderName = ".pdftrapper-claims"
    public var claims: String { config.edits.path + "/" + Self.claimsFolderName + "/" + DaemonParts.instance(config) }

    /// Applies the script at `path` and, when `file` is set, moves it to done/ or failed/ of the
    /// edits folder: first it is claimed (moved into `claims`), unless it is a claim already, left
    /// by a run that stopped. Every claim gets an id, written beside it before the script is
    /// applied and kept by the store with the change it makes: a claim whose id the target's
    /// state already holds was applied before a crash and is filed, not applied again, whatever
    /// the script's modification time or the clock say.
    public func take(_ path: String, relativePath: String, file: Bool = true, now: Date = Date()) -> Outcome {
        let started = Date()
        var outcome = Outcome(script: relativePath, applied: nil, problems: [], filed: nil)
        let shown = file ? config.edits.path + "/" + relativePath : path
        var path = path
        var claim: (id: String, isNew: Bool)?
        if file {
            do {
                path = try self.claim(path, relativePath: relativePath)
                claim = try claimID(of: path)
            } catch {
                outcome.takenElsewhere = error.code == ENOENT
                outcome.problems = ["\(shown): \(error)"]
                return outcome
            }
        }
        do {
            // A script the daemon took lies in its edits folder; one named to `apply` wherever it was put.
            let bytes = try read(path, in: file ? folders : try .anywhere())
            let script = try EditScriptParser.parse(bytes, file: shown, libraryRoot: config.library.root)
            if let refusal = ConfinedFolders.targetRefusal(script.target, library: config.library.root) {
                throw EditApplyError("target \(script.target) is \(refusal)")
            }
            let name = (relativePath as NSString).lastPathComponent
            let digest = FileDigest.sha256(bytes)
            let before = EditApply.Applied(target: script.target, end: EditApply.currentLength(script.target),
                                           operations: ["(applied before a restart)"], pages: 0)
            if let claim, !claim.isNew, store.hasApplied(claim: claim.id, to: script.target) {
                outcome.applied = before
            } else {
                do {
                    outcome.applied = try EditApply.run(script, name: name, sha256: digest, store: store,
                                                        signatures: SignatureLibrary(folder: config.signatures.path),
                                                        libraryRoot: config.library.root, purgeByDefault: config.edits.purge,
                                                        maxPages: config.limits.maxPagesAfterEdit, date: now, claim: claim?.id)
                } catch where claim.map({ store.hasApplied(claim: $0.id, to: script.target) }) == true {
                    // Applied meanwhile by another worker on the same claim (one a crash of the
                    // daemon left running): the store refused it under the target's lock.
                    outcome.applied = before
                }
                if file { CrashPoint.editCommitted.hit() }
            }
        } catch let error as EditScriptError {
            outcome.problems = error.diagnostics.map(\.description)
        } catch let refusals as EditApply.Refusals {
            outcome.problems = refusals.all.map { "\(shown): \($0)" }
        } catch {
            outcome.problems = ["\(shown): \(error)"]
        }
        guard file else { return outcome }
        outcome.filed = fileAway(path, relativePath, outcome, seconds: Date().timeIntervalSince(started), now: now)
        return outcome
    }

    /// Claims the script for a worker process; returns where it now is: moved from the edits
    /// folder into this daemon's claims, durably (a power cut that kept the revision but lost this
    /// rename would leave the script applied and back in the edits folder, as if never taken). A
    /// script already among the claims (left by a run that stopped, or put there by the workspace)
    /// stays where it is.
    public func claim(_ path: String, relativePath: String) throws(Durable.Failure) -> String {
        if path.hasPrefix(claims + "/") {
            guard folders.exists(path) else { throw Durable.Failure(step: "stat", path: path, code: ENOENT) }
            return path
        }
        return try folders.move(path, to: claims + "/" + relativePath)
    }

    /// Files a claimed script in failed/ with `reason`, unapplied: one the worker could not finish.
    public func abandon(_ claimed: String, relativePath: String, reason: String, now: Date = Date()) -> Outcome {
        var outcome = Outcome(script: relativePath, applied: nil, problems: ["\(config.edits.path)/\(relativePath): \(reason)"],
                              filed: nil)
        outcome.filed = fileAway(claimed, relativePath, outcome, seconds: 0, now: now)
        return outcome
    }

    /// The claim's id, from the file beside it; a new one, written durably before anything is
    /// applied, for a claim that has none yet (`isNew`: then it cannot have been applied).
    private func claimID(of claimed: String) throws(Durable.Failure) -> (id: String, isNew: Bool) {
        let beside = Self.idFile(of: claimed)
        if let data = folders.read(beside), let id = String(data: data, encoding: .utf8), !id.isEmpty { return (id, false) }
        let id = UUID().uuidString
        try folders.replace(beside, with: Data(id.utf8))
        return (id, true)
    }

    /// Where a claim's id is kept: a hidden file beside the claimed script.
    static func idFile(of claimed: String) -> String {
        (claimed as NSString).deletingLastPathComponent + "/." + (claimed as NSString).lastPathComponent + idSuffix
    }

    static let idSuffix = ".claim-id"

    /// Scripts that an earlier run claimed and did not file, oldest first.
    public func leftClaims() -> [(path: String, relativePath: String)] {
        folders.files(below: claims).filter { !$0.hasSuffix(Self.idSuffix) }.map { (claims + "/" + $0, $0) }
    }

    private func read(_ path: String, in folders: ConfinedFolders) throws -> [UInt8] {
        guard let status = folders.status(path) else { throw Durable.Failure(step: "read", path: path, code: ENOENT) }
        guard status.st_mode & S_IFMT == S_IFREG else {
            throw EditApplyError("not a regular file (a link, folder, FIFO or socket); scripts must be plain files")
        }
        if let reason = InputFiles.hardLinkReason(links: Int(status.st_nlink)) { throw EditApplyError(reason) }
        let limit = min(Self.maximumBytes, config.limits.maxScriptBytes)
        guard status.st_size <= limit else {
            throw EditApplyError("\(status.st_size) bytes; an edit script may have at most \(limit) bytes (limits.max_script_size)")
        }
        guard let data = folders.read(path) else { throw Durable.Failure(step: "read", path: path, code: EIO) }
        return Array(data)
    }

    /// done/ or failed/, keeping the script's path below the edits folder, with its report or errors.
    private func fileAway(_ path: String, _ relativePath: String, _ outcome: Outcome, seconds: Double, now: Date) -> String? {
        // The claim's id goes with it: the script is no longer among the claims.
        defer { if !folders.exists(path) { try? folders.remove(Self.idFile(of: path), durable: false) } }
        let folder = config.edits.path + "/" + (outcome.applied == nil ? Self.failedFolderName : Self.doneFolderName)
        let reserve = max(Self.reportSuffix.utf8.count, Self.errorSuffix.utf8.count)
        var outcome = outcome
        let placed: String
        if folders.status(path).map({ $0.st_mode & S_IFMT == S_IFLNK }) == true {
            // A link is never kept (a later move into it would follow): removed, its note stays.
            let pointed = folders.linkTarget(path) ?? "?"
            guard (try? folders.remove(path)) != nil else { return nil }
            outcome.problems.append("the link (to \(pointed)) was removed, not kept")
            placed = folder + "/" + FileName.fitted(Quarantine.folded(relativePath), reserve: reserve)
        } else if let moved = try? folders.move(path, to: folder + "/" + relativePath, reserve: reserve) {
            placed = moved
        } else {
            // A folder on the way leads outside the edits folder (a link placed there): at the top.
            guard let moved = try? folders.move(path, to: folder + "/" + Quarantine.folded(relativePath), reserve: reserve) else {
                return nil
            }
            placed = moved
        }
        if let applied = outcome.applied {
            let report: [String: Any] = [
                "script": relativePath, "target": applied.target, "end": applied.end,
                "operations": applied.operations, "pages": applied.pages, "seconds": (seconds * 1000).rounded() / 1000,
                "date": ISO8601DateFormatter().string(from: now), "extracted": applied.extracted,
            ]
            if let data = try? JSONSerialization.data(withJSONObject: report, options: [.prettyPrinted, .sortedKeys]) {
                try? folders.replace(placed + Self.reportSuffix, with: data)
            }
        } else {
            try? folders.replace(placed + Self.errorSuffix, with: Data((outcome.problems.joined(separator: "\n") + "\n").utf8))
        }
        return placed
    }
}
