import CLinux
import Daemon
import Foundation
import Glibc
import Hashing
import HTTPServer
import Imaging
import PDFAccess
import System
import TrapperCore

/// `POST /api/upload?name=NAME[&path=DOC.pdf]`: a file from the browser (a phone's camera, a
/// desktop's file picker) into the inbox, the way a sync tool writes one: under a hidden temporary
/// name, then given its name `workspace/NAME`, so that the completeness gate and the claims apply and
/// the rules route it, or, added from an open document, that document takes it (`UploadRequest`).
///
/// The body is written as it arrives, never held whole: what stays in memory is the first 64 KiB
/// (until the type is known) and, at the end, at most the first MiB again for the pixels. The
/// inbox's own limits are checked on the way: the size (Content-Length, then every piece), the type
/// (the first 64 KiB, sniffed) and, where the image's header says it (JPEG, PNG, WebP...), the
/// pixels; anything else wrong with an image the inbox finds when it reads the file, and
/// quarantines it with the reason. A refusal says why in one line.
///
/// Every upload gets a name of its own (its request made with O_EXCL, the file renamed to that name
/// only if nothing has it), and the request, not the name, says which document it goes to. The
/// same bytes sent again to the same place while the first copy waits in the inbox or its page is
/// in the document (a retry after a lost answer, a double tap) are stored once; a page undone since
/// may be uploaded again at once.
final class WorkspaceUpload: HTTPUpload {
    struct Refusal: Error {
        var response: HTTPResponse
        init(_ status: Int, _ message: String) { response = WebJSON.error(status, message) }
    }

    let name: String
    /// The open document it is added to (absolute), or nil for the rules.
    let target: String?
    let targetRelative: String?
    let config: Config
    /// Asked whether a page is in its document now (a retry of it is stored once).
    let store: TargetStore
    let inbox: FolderRoot
    private var head: [UInt8] = []
    private var fd: Int32 = -1
    private var temporary: String?
    private var received = 0
    private let digest: FileDigest.Context
    private var kind = FileKind.unknown
    private let declaredTooLarge: Bool

    /// What is looked at before a byte is written: enough for any header the sniffing reads.
    static let headBytes = 64 << 10
    /// How much of the file is read again for its pixels when its header lies past the first 64 KiB
    /// (a JPEG's EXIF segments come before its size): bounded, whatever the file's size.
    static let pixelHeaderBytes = 1 << 20

    init(name: String, target: (path: String, relative: String)?, config: Config, store: TargetStore,
         declaredLength: Int?) throws(Refusal) {
        self.name = name
        self.target = target?.path
        self.targetRelative = target?.relative
        self.config = config
        self.store = store
        // Refused at its first piece (the rest is read and dropped, then the reason given).
        declaredTooLarge = (declaredLength ?? 0) > config.limits.maxInputBytes
        do {
            inbox = try FolderRoot(config.inbox.path, label: "inbox")
            digest = try FileDigest.Context()
        } catch {
            throw Refusal(503, "\(name): the inbox cannot be written: \(error)")
        }
    }

    /// The upload's name as the inbox will have it: the last part of what the browser sent, without
    /// leading dots (a hidden name is never taken), slashes or control characters; "photo" when nothing is left.
    static func fileName(_ sent: String?) -> String {
        let last = (sent ?? "").split(separator: "/").last.map(String.init) ?? ""
        let cleaned = String(last.unicodeScalars.filter { $0.value >= 0x20 && $0 != "\\" && $0.value != 0x7F }
            .map(Character.init)).drop { $0 == "." || $0 == " " }
        return cleaned.isEmpty ? "photo" : FileName.fitted(String(cleaned), reserve: 16)
    }

    static func tooLarge(_ name: String, _ config: Config) -> Refusal {
        Refusal(413, "\(name): larger than limits.max_input_size (\(config.limits.maxInputBytes) bytes); nothing was stored")
    }

    // MARK: HTTPUpload

    func receive(_ bytes: UnsafeRawBufferPointer) -> HTTPResponse? {
        received += bytes.count
        guard received <= config.limits.maxInputBytes, !declaredTooLarge else { return Self.tooLarge(name, config).response }
        digest.update(bytes)
        if fd < 0 {
            head.append(contentsOf: bytes)
            if head.count >= Self.headBytes, let refusal = begin() { return refusal.response }
            return nil
        }
        return write(bytes) ? nil : Refusal(507, "\(name): could not be written to the inbox: \(String(cString: strerror(errno)))").response
    }

    func finish() -> HTTPResponse {
        do {
            if fd < 0, let refusal = begin() { throw refusal }
            return try storeInInbox()
        } catch let refusal as Refusal {
            abandon()
            return refusal.response
        } catch {
            abandon()
            return WebJSON.error(507, "\(name): \(error)")
        }
    }

    func abandon() {
        if fd >= 0 { close(fd) }
        fd = -1
        if let temporary { try? inbox.remove(temporary, durable: false) }
        temporary = nil
    }

    // MARK: Steps

    /// The inbox's folder the workspace writes into.
    private var folder: String { config.inbox.path + "/" + UploadRequest.inboxFolder }

    /// The first bytes are in: the type is checked, then the temporary file is made and they are written.
    private func begin() -> Refusal? {
        kind = FileKind.sniff(head)
        guard kind != .unknown else {
            return Refusal(415, "\(name): not a PDF or an image the inbox takes (JPEG, PNG, TIFF, PNM, HEIC, AVIF, WebP); nothing was stored")
        }
        // Most images say their size in their first bytes: too many pixels is refused before a byte is written.
        if let refusal = pixelRefusal(head) { return refusal }
        if target == nil {
            let input = FrontDoor(config: config).input(.upload(name: name, bytes: Int64(received), kind: kind))
            guard config.router().firstMatch(for: input) != nil else {
                return Refusal(422, "\(name): no rule takes it (a rule may match folder = \"\(UploadRequest.inboxFolder)\"), "
                               + "or add it from an open document; nothing was stored")
            }
        }
        // Hidden (the inbox ignores it), in the folder where it gets its name: one rename away.
        let tag = ".upload-" + UUID().uuidString.prefix(8).lowercased()
        let path = folder + "/" + FileName.temporary(for: name, tag: tag)
        do {
            try inbox.makeFolder(folder)
            // Read and write: the pixels' header may be read back from it at the end.
            fd = try inbox.open(path, flags: O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, mode: 0o644)
        } catch {
            return Refusal(507, "\(name): the inbox cannot be written: \(error)")
        }
        temporary = path
        let written = head.withUnsafeBytes { write($0) }
        head = []
        return written ? nil : Refusal(507, "\(name): could not be written to the inbox: \(String(cString: strerror(errno)))")
    }

    private func write(_ bytes: UnsafeRawBufferPointer) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let done = Glibc.write(fd, bytes.baseAddress! + offset, bytes.count - offset)
            if done < 0 { if errno == EINTR { continue }; return false }
            offset += done
        }
        return true
    }

    /// Too many pixels, as the image's header in `start` (the file's first bytes) says: the refusal.
    /// Nil within the limit, for what is not an image, or when the header is not all in `start`
    /// (anything else wrong with an image is the inbox's to find, in the whole file).
    private func pixelRefusal(_ start: [UInt8]) -> Refusal? {
        guard kind.imageFormat != nil else { return nil }
        do {
            _ = try ImageFiles.open(bytes: start, limits: config.limits.images, flate: ZlibFlate())
        } catch let error as ImageInputError {
            if case .tooManyPixels = error { return Refusal(422, "\(name): \(error); nothing was stored") }
        } catch {}
        return nil
    }

    /// All of it is in: synced, its pixels checked from its header, known as a retry by its digest
    /// or given a name of its own in the inbox's `workspace` folder, its request first.
    private func storeInInbox() throws -> HTTPResponse {
        guard let temporary, fsync(fd) == 0 else { throw Refusal(507, "\(name): could not be synced to the inbox") }
        if received > Self.headBytes, let refusal = pixelRefusal(readStart(Self.pixelHeaderBytes)) { throw refusal }
        close(fd)
        fd = -1
        let hex = digest.finish().map { String(format: "%02x", $0) }.joined()
        if isRetry(hex) {
            abandon()  // stored once: this copy goes
            return answer(name: nil, sha256: hex, duplicate: true)
        }
        let request = UploadRequest(target: target, sha256: hex, date: Date())
        let state = config.daemon.stateDir
        let directory = try inbox.open(folder, flags: trapper_O_PATH | O_DIRECTORY | O_CLOEXEC)
        defer { close(directory) }
        // The first name free in the inbox whose request this upload makes: written down before the
        // inbox can see the file, and never another upload's. The rename (RENAME_NOREPLACE) gives
        // the file that name only if nothing has it: a file a sync tool put there meanwhile leaves
        // it to the next number, and the request made for it goes.
        for wanted in FileName.candidates(name) {
            let relative = UploadRequest.inboxFolder + "/" + wanted
            guard !inbox.exists(folder + "/" + wanted), try request.create(stateDir: state, relativePath: relative) else { continue }
            guard trapper_renameat2(directory, (temporary as NSString).lastPathComponent, directory, wanted, UInt32(RENAME_NOREPLACE)) == 0 else {
                let code = errno
                try Durable.remove(UploadRequest.path(stateDir: state, relativePath: relative))
                if code == EEXIST { continue }
                throw Durable.Failure(step: "rename", path: folder + "/" + wanted, code: code)
            }
            self.temporary = nil
            try inbox.syncFolder(folder)
            return answer(name: relative, sha256: hex, duplicate: false)
        }
        preconditionFailure("FileName.candidates never ends")
    }

    /// The first `count` bytes of the file written so far (for a header past the first 64 KiB).
    private func readStart(_ count: Int) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: min(count, received))
        let got = bytes.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, 0) }
        return Array(bytes.prefix(max(got, 0)))
    }

    /// A retry of an upload, stored once: the same bytes to the same place while the first copy
    /// still waits in the inbox, or while its page is in the document now. A page undone since is
    /// no longer there, so the same photo sent again after an undo is a page again. A rule's
    /// target is asked only where it is one document (append or prepend); `new` makes one each time.
    private func isRetry(_ sha256: String) -> Bool {
        if waitsInInbox(sha256) { return true }
        let input = FrontDoor(config: config).input(.upload(name: name, bytes: Int64(received), kind: kind))
        let routed = config.router().plan(for: input).flatMap { $0.mode == .append || $0.mode == .prepend ? $0.targetPath : nil }
        guard let document = target ?? routed else { return false }
        return store.ingestedInputs(of: document).contains(sha256)
    }

    /// The same bytes to the same place wait in the inbox: a request for them whose file is there. A
    /// request left without its file (by a crash, or a file taken out by hand) holds nothing back.
    private func waitsInInbox(_ sha256: String) -> Bool {
        UploadRequest.pending(stateDir: config.daemon.stateDir).contains { request in
            request.sha256 == sha256 && request.target == target
                && request.input.map { inbox.exists(config.inbox.path + "/" + $0) } == true
        }
    }

    private func answer(name: String?, sha256: String, duplicate: Bool) -> HTTPResponse {
        WebJSON.response(["name": name.map { $0 as Any } ?? NSNull(), "bytes": received, "sha256": sha256, "duplicate": duplicate,
                          "target": targetRelative.map { $0 as Any } ?? NSNull()])
    }
}

/// An upload refused before its body: the answer is given once the body has been read and dropped.
final class RefusedUpload: HTTPUpload {
    let response: HTTPResponse
    init(_ response: HTTPResponse) { self.response = response }
    func receive(_ bytes: UnsafeRawBufferPointer) -> HTTPResponse? { response }
    func finish() -> HTTPResponse { response }
    func abandon() {}
}
