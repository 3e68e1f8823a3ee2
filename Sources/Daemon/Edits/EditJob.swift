import Foundation
import Hashing
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
    public static let failedFolderName = "failed"
    /// Scripts are small; anything larger is refused before it is parsed.
    public static let maximumBytes = 1 << 20

    /// What became of one script.
    public struct Outcome: Sendable {
        public var script: String
        public var applied: EditApply.Applied?
        /// One line each; empty when it was applied.
        public var problems: [String]
        /// Where the script was filed (done/ or failed/), nil when it is applied in place (`apply`).
        public var filed: String?

        public var summary: String {
            if let applied {
                return "\(script): \(applied.operations.joined(separator: ", ")) applied to \(applied.target)"
            }
            return "\(script): failed: \(problems.first ?? "?")" + (problems.count > 1 ? " (and \(problems.count - 1) more)" : "")
        }
    }

    /// Applies the script at `path` and, when `file` is set, moves it to done/ or failed/ of the edits folder.
    public func take(_ path: String, relativePath: String, file: Bool = true, now: Date = Date()) -> Outcome {
        let started = Date()
        var outcome = Outcome(script: relativePath, applied: nil, problems: [], filed: nil)
        do {
            let bytes = try read(path)
            let script = try EditScriptParser.parse(bytes, file: path, libraryRoot: config.library.root)
            let engineFolder = config.library.root + "/" + StateDirectory.libraryFolderName
            guard PathSafety.isInside(script.target, root: config.library.root),
                  !PathSafety.isInside(script.target, root: engineFolder) else {
                throw EditApplyError("target \(script.target) is outside the library \(config.library.root) (a symlinked folder?)")
            }
            outcome.applied = try EditApply.run(script, name: (relativePath as NSString).lastPathComponent,
                                                sha256: FileDigest.sha256(bytes), store: store,
                                                signatures: SignatureLibrary(folder: config.signatures.path),
                                                libraryRoot: config.library.root, purgeByDefault: config.edits.purge, date: now)
        } catch let error as EditScriptError {
            outcome.problems = error.diagnostics.map(\.description)
        } catch {
            outcome.problems = ["\(path): \(error)"]
        }
        guard file else { return outcome }
        outcome.filed = fileAway(path, relativePath, outcome, seconds: Date().timeIntervalSince(started), now: now)
        return outcome
    }

    private func read(_ path: String) throws -> [UInt8] {
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        guard attributes[.type] as? FileAttributeType == .typeRegular else {
            throw EditApplyError("not a regular file (a link, folder, FIFO or socket); scripts must be plain files")
        }
        if let reason = PathSafety.hardLinkReason(links: (attributes[.referenceCount] as? NSNumber)?.intValue ?? 1) {
            throw EditApplyError(reason)
        }
        let size = (attributes[.size] as? NSNumber)?.intValue ?? 0
        let limit = min(Self.maximumBytes, config.limits.maxScriptBytes)
        guard size <= limit else {
            throw EditApplyError("\(size) bytes; an edit script may have at most \(limit) bytes (limits.max_script_size)")
        }
        return Array(try Data(contentsOf: URL(fileURLWithPath: path)))
    }

    /// done/ or failed/, keeping the script's path below the edits folder, with its report or errors.
    private func fileAway(_ path: String, _ relativePath: String, _ outcome: Outcome, seconds: Double, now: Date) -> String? {
        let folder = config.edits.path + "/" + (outcome.applied == nil ? Self.failedFolderName : Self.doneFolderName)
        guard let placed = try? FolderMoves.move(path, to: folder + "/" + relativePath) else { return nil }
        if let applied = outcome.applied {
            let report: [String: Any] = [
                "script": relativePath, "target": applied.target, "revision": applied.revision,
                "operations": applied.operations, "pages": applied.pages, "seconds": (seconds * 1000).rounded() / 1000,
                "date": ISO8601DateFormatter().string(from: now), "extracted": applied.extracted,
            ]
            if let data = try? JSONSerialization.data(withJSONObject: report, options: [.prettyPrinted, .sortedKeys]) {
                try? Durable.replace(placed + ".report.json", with: data)
            }
        } else {
            try? Durable.replace(placed + ".error.txt", with: Data((outcome.problems.joined(separator: "\n") + "\n").utf8))
        }
        return placed
    }
}
