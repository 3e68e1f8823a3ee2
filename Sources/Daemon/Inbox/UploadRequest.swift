import Foundation
import TrapperCore

/// What the workspace asked for a file it wrote into the inbox (`workspace/NAME`, a photo taken on a
/// phone): the document it goes to when it was added from an open one (else the rules route it),
/// and its digest, by which the same upload sent again is known. Written in the state folder before
/// the upload is renamed into the inbox, read when the inbox routes it, removed once it has gone in
/// (or to quarantine).
public struct UploadRequest: Codable, Sendable, Equatable {
    /// The document's absolute path; nil: the rules route it.
    public var target: String?
    /// SHA-256, hex.
    public var sha256: String
    public var date: Date

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
