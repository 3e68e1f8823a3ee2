import Foundation
import Glibc
import System
import TrapperCore

/// What the workspace asked for a file it wrote into the inbox (`workspace/NAME`, a photo taken on a
/// phone): the document it goes to when it was added from an open one (else the rules route it),
/// and its digest, by which the same upload sent again is known. Made in the state folder before
/// the upload gets its name in the inbox, and made exclusively: the request holds the name for that
/// one upload, read when the inbox routes it, removed once it has gone in (or to quarantine).
public struct UploadRequest: Codable, Sendable, Equatable {
    /// The document's absolute path; nil: the rules route it.
    public var target: String?
    /// SHA-256, hex.
    public var sha256: String
    public var date: Date
    /// The input it was made for, below the inbox (`workspace/NAME`); nil in requests written
    /// before it was kept.
    public var input: String?

    public init(target: String?, sha256: String, date: Date) {
        self.target = target
        self.sha256 = sha256
        self.date = date
    }

    /// The inbox folder the workspace writes into (rules may match it: `match = { folder = "workspace" }`).
    public static let inboxFolder = "workspace"

    public static func folder(stateDir: String) -> String { stateDir + "/uploads" }

    /// The request for the input at `relativePath` below the inbox.
    public static func path(stateDir: String, relativePath: String) -> String {
        folder(stateDir: stateDir) + "/" + StateDirectory.key(for: relativePath) + ".json"
    }

    /// Writes this request for the input at `relativePath` (fsynced, its folder too), unless a
    /// request for that name exists: false then, and the name is another upload's. Made with
    /// O_EXCL, so that of two uploads of IMG_0001.jpg at once each gets a name of its own, and
    /// neither's request is replaced by the other's (which sent a page to the other's document).
    public func create(stateDir: String, relativePath: String) throws(Durable.Failure) -> Bool {
        let folder = Self.folder(stateDir: stateDir)
        try Durable.makeFolder(folder)
        let path = Self.path(stateDir: stateDir, relativePath: relativePath)
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o644)
        if fd < 0, errno == EEXIST { return false }
        guard fd >= 0 else { throw Durable.Failure(step: "create", path: path, code: errno) }
        var request = self
        request.input = relativePath
        let written = request.encoded().withUnsafeBytes { Durable.writeAll(fd, $0) }
        let code = written != 0 ? written : (fsync(fd) != 0 ? errno : 0)
        close(fd)
        guard code == 0 else {
            unlink(path)
            throw Durable.Failure(step: written != 0 ? "write" : "fsync", path: path, code: code)
        }
        try Durable.syncFolder(folder)
        return true
    }

    /// The requests whose uploads have not gone in yet (nor to quarantine).
    public static func pending(stateDir: String) -> [UploadRequest] {
        let folder = folder(stateDir: stateDir)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        return names.filter { $0.hasSuffix(".json") }.compactMap { FileManager.default.contents(atPath: folder + "/" + $0).flatMap(decode) }
    }

    public func encoded() -> Data {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = .sortedKeys
        // Strings and a date: encoding cannot fail.
        return (try? encoder.encode(self)) ?? Data()
    }

    public static func decode(_ data: Data) -> UploadRequest? {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return try? decoder.decode(UploadRequest.self, from: data)
    }
}

extension Inbox {
    /// The workspace's request for an input, if it came from the workspace.
    func uploadRequest(_ relativePath: String) -> UploadRequest? {
        guard relativePath.hasPrefix(UploadRequest.inboxFolder + "/") else { return nil }
        return files.read(UploadRequest.path(stateDir: config.daemon.stateDir, relativePath: relativePath)).flatMap(UploadRequest.decode)
    }

    /// An upload added from an open document goes to it, with the page steps of the rule that
    /// would take it (a phone photo's find_page), or none when no rule would.
    func uploadPlan(_ input: RouteInput, to target: String) -> RoutePlan {
        let relative = FolderRoot.relative(target, to: config.library.root) ?? (target as NSString).lastPathComponent
        var plan = pinned(input, to: target)
            ?? RoutePlan(rule: "workspace", ruleNumber: 0, target: relative, targetPath: target, mode: .append, original: .delete,
                         archivePath: nil)
        plan.target = relative
        plan.collateWindow = nil
        plan.steps.separator = nil
        return plan
    }

    /// Once its input has gone in or to quarantine, a request has done its work.
    func removeUploadRequests(_ inputs: [CaptureInput]) {
        for input in inputs where input.name.hasPrefix(UploadRequest.inboxFolder + "/") {
            try? files.remove(UploadRequest.path(stateDir: config.daemon.stateDir, relativePath: input.name))
        }
    }
}
