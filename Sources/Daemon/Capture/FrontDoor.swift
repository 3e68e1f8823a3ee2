import Foundation
import System
import TrapperCore

/// The front door before the pipeline: what an arrival is as the rules see it (`RouteInput`), and
/// the open batches it may join. Every way in (the inbox, the scanner, `pdftrapper ingest`, a
/// workspace upload) and `pdftrapper explain` describe an arrival here, so that `explain` judges a
/// file or a scan by the same facts as what then happens to it.
public struct FrontDoor {
    public let config: Config

    public init(config: Config) { self.config = config }

    /// What arrived.
    public enum Arrival {
        /// A file at its place below the inbox, its size as the caller's stat saw it, its first bytes.
        case stated(relativePath: String, bytes: Int64, head: [UInt8])
        /// A workspace upload, named `name` in the inbox's workspace folder; `bytes` so far.
        case upload(name: String, bytes: Int64, kind: FileKind)
        /// A scan batch: a name for it, its pages as stored (size rules judge their bytes, the
        /// first page's kind), the button and profile that made it, and when it began.
        case scan(name: String, pages: [String], button: String?, profile: String?, started: Date)
        /// A scan not made yet (`explain --profile`): JPEG pages of `bytes` in all.
        case scanToCome(button: String?, profile: String, bytes: Int64)
    }

    /// A file in the inbox or named on the command line (`ingest`, `explain`), its size and kind
    /// read from it; nil when it cannot be read.
    public func input(file path: String, now: Date = Date()) -> RouteInput? {
        guard let (bytes, head) = Self.sizeAndHead(path) else { return nil }
        return input(.stated(relativePath: relativePath(path), bytes: bytes, head: head), now: now)
    }

    /// The arrival as the rules see it.
    public func input(_ arrival: Arrival, now: Date = Date()) -> RouteInput {
        switch arrival {
        case .stated(let relativePath, let bytes, let head):
            return RouteInput(relativePath: relativePath, bytes: bytes, kind: FileKind.sniff(head), date: now)
        case .upload(let name, let bytes, let kind):
            return RouteInput(relativePath: UploadRequest.inboxFolder + "/" + name, bytes: bytes, kind: kind, date: now)
        case .scan(let name, let pages, let button, let profile, let started):
            let sizes = pages.compactMap(Self.sizeAndHead)
            let kind = sizes.first.map { FileKind.sniff($0.head) } ?? .unknown
            let suffix = pages.first.map { "." + ($0 as NSString).pathExtension } ?? ""
            return RouteInput(relativePath: name + suffix, bytes: sizes.reduce(0) { $0 + $1.bytes }, kind: kind, source: .scanner,
                              button: button, profile: profile, date: started)
        case .scanToCome(let button, let profile, let bytes):
            return RouteInput(relativePath: "scan-DATE-TIME-ID.jpg", bytes: bytes, kind: .jpeg, source: .scanner, button: button,
                              profile: profile, date: now)
        }
    }

    /// A file's place below the inbox, or its name when it lies elsewhere (`ingest`, `explain`).
    public func relativePath(_ path: String) -> String {
        let inbox = config.inbox.path
        return path.hasPrefix(inbox + "/") ? String(path.dropFirst(inbox.count + 1)) : (path as NSString).lastPathComponent
    }

    /// The target refusal every way in applies: a target outside the library is never written.
    public func refusal(forTarget target: String) -> String? {
        ConfinedFolders.targetRefusal(target, library: config.library.root)
    }

    /// A file's size and first bytes (for its kind), through one descriptor.
    static func sizeAndHead(_ path: String) -> (bytes: Int64, head: [UInt8])? {
        guard let source = try? PDFFileSource(path: path) else { return nil }
        let head = (try? source.read(offset: 0, count: min(FileKind.sniffLength, source.length))) ?? []
        return (Int64(source.length), head)
    }
}
