import CQPDF
import Glibc
import TrapperCore

/// What a full rewrite can go wrong with; one line each, naming the step.
public enum PDFRewriteError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The file is encrypted: never rewritten (a rewrite would drop or change its protection).
    case encrypted(path: String)
    /// qpdf could not read the file, even with its xref reconstruction.
    case unreadable(path: String, String)
    /// qpdf could not write the new file.
    case write(path: String, String)
    /// Staging the new file (fsync, rename, folder fsync) failed; the target is untouched unless the
    /// rename went through.
    case staging(path: String, step: String, errno: Int32)

    var isEncrypted: Bool {
        if case .encrypted = self { return true }
        return false
    }

    var message: String {
        switch self {
        case .unreadable(_, let message), .write(_, let message): return message
        default: return description
        }
    }

    func adding(_ text: String) -> PDFRewriteError {
        switch self {
        case .unreadable(let path, let message): return .unreadable(path: path, message + text)
        case .write(let path, let message): return .write(path: path, message + text)
        default: return self
        }
    }

    public var description: String {
        switch self {
        case .encrypted(let path): return "rewrite \(path): encrypted, refusing to rewrite"
        case .unreadable(let path, let message): return "rewrite \(path): read: \(message)"
        case .write(let path, let message): return "rewrite \(path): write: \(message)"
        case .staging(let path, let step, let code):
            return "rewrite \(path): \(step): \(String(cString: strerror(code)))"
        }
    }
}

/// What a repair did, for the log.
public struct RepairReport: Sendable, Equatable {
    /// qpdf's warnings while reading the damaged file (how it reconstructed it), one line each.
    public var warnings: [String]
    public var bytesBefore: Int
    public var bytesAfter: Int
}

/// Full rewrites of a target through qpdf: repairing a damaged file, or compacting its history.
/// Either way the new file is written next to the target (same folder, so the rename is atomic),
/// fsynced, renamed over the target, and the folder fsynced: a crash leaves the old file or the
/// new one, never half of either. Encrypted files are never rewritten.
public enum PDFRewriter {
    /// Rewrites a damaged target (broken xref, missing `%%EOF`, wrong `startxref`: what
    /// `PDFError.needsRepair` says) from what qpdf reconstructs. The new file has a classic xref
    /// table and no object streams, so later updates append classic tables, and its streams are
    /// kept as stored (compressed ones stay compressed, nothing is re-encoded).
    @discardableResult
    public static func repair(path: String) throws(PDFRewriteError) -> RepairReport {
        let before = fileSize(path)
        let warnings = try rewrite(path: path) { api, data in
            api.qpdf_set_object_stream_mode(data, qpdf_o_disable)
            api.qpdf_set_compress_streams(data, QPDF_FALSE)
            api.qpdf_set_decode_level(data, qpdf_dl_none)
        }
        return RepairReport(warnings: warnings, bytesBefore: before, bytesAfter: fileSize(path))
    }

    /// Rewrites the target as one revision: history squashed, object streams generated, streams
    /// compressed, optionally linearized ("fast web view"). Returns qpdf's warnings.
    @discardableResult
    public static func compact(path: String, linearize: Bool = false) throws(PDFRewriteError) -> [String] {
        try rewrite(path: path) { api, data in
            api.qpdf_set_object_stream_mode(data, qpdf_o_generate)
            api.qpdf_set_compress_streams(data, QPDF_TRUE)
            api.qpdf_set_decode_level(data, qpdf_dl_generalized)
            api.qpdf_set_linearization(data, linearize ? QPDF_TRUE : QPDF_FALSE)
        }
    }

    /// Reads `path` with qpdf, writes it with `configure`d options to a temporary file in the same
    /// folder, and commits it over `path`. Returns qpdf's warnings. When qpdf cannot reconstruct a
    /// damaged file itself, `PDFRecoveryScan` lists its objects and qpdf reads that instead.
    private static func rewrite(path: String, configure: (trapper_qpdf, qpdf_data) -> Void) throws(PDFRewriteError) -> [String] {
        let folder = directory(of: path)
        let temporary = folder + "/" + FileName.temporary(
            for: baseName(of: path), tag: ".pdftrapper-rewrite-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).tmp")
        var committed = false
        defer { if !committed { unlink(temporary) } }

        var warnings: [String]
        do {
            warnings = try write(path: path, to: temporary, configure: configure) { qpdf throws(QPDFHandle.Failure) in
                try qpdf.read(path, password: nil)
            }
        } catch let error where error.isEncrypted {
            throw error
        } catch {
            // qpdf gave up; try again from the objects a scan of the bytes finds.
            let patched: [UInt8]
            do {
                let source = try PDFFileSource(path: path)
                patched = try PDFRecoveryScan.patched(try source.read(offset: 0, count: source.length))
            } catch let scanFailure {
                throw error.adding("; \(scanFailure)")
            }
            warnings = ["qpdf could not reconstruct the file (\(error.message)); rebuilt from a scan of its objects"]
            warnings += try patched.withUnsafeBufferPointer { buffer throws(PDFRewriteError) in
                try write(path: path, to: temporary, configure: configure) { qpdf throws(QPDFHandle.Failure) in
                    let status = buffer.withMemoryRebound(to: CChar.self) {
                        qpdf.api.qpdf_read_memory(qpdf.data, path, $0.baseAddress, UInt64($0.count), nil)
                    }
                    try qpdf.check(status)
                }
            }
        }

        // Keep the target's permissions; then make the bytes durable before they replace it.
        var status = stat()
        if stat(path, &status) == 0 { chmod(temporary, status.st_mode & 0o7777) }
        try fsyncFile(temporary, path: path, step: "fsync new file")
        guard rename(temporary, path) == 0 else { throw .staging(path: path, step: "rename over target", errno: errno) }
        committed = true
        try fsyncFile(folder, path: path, step: "fsync folder", directory: true)
        return warnings
    }

    /// One qpdf handle: `read` fills it, then it writes to `temporary`. Returns its warnings.
    private static func write(path: String, to temporary: String, configure: (trapper_qpdf, qpdf_data) -> Void,
        read: (QPDFHandle) throws(QPDFHandle.Failure) -> Void) throws(PDFRewriteError) -> [String]
    {
        let qpdf: QPDFHandle
        do {
            qpdf = try QPDFHandle()
            try read(qpdf)
        } catch {
            if error.code == qpdf_e_password { throw .encrypted(path: path) }
            throw .unreadable(path: path, error.message)
        }
        if qpdf.isEncrypted { throw .encrypted(path: path) }
        let api = qpdf.api
        var warnings = qpdf.takeWarnings()
        // qpdf would carry the last revision's history record into the new trailer, where its
        // byte offsets no longer mean anything: a rewrite starts the history anew.
        let trailer = api.qpdf_get_trailer(qpdf.data)
        api.qpdf_oh_remove_key(qpdf.data, trailer, "/" + RevisionRecord.trailerKey.string)
        api.qpdf_oh_release(qpdf.data, trailer)
        do {
            try qpdf.check(api.qpdf_init_write(qpdf.data, temporary))
            configure(api, qpdf.data)
            try qpdf.check()
            try qpdf.check(api.qpdf_write(qpdf.data))
        } catch {
            throw .write(path: path, error.message)
        }
        warnings += qpdf.takeWarnings()
        return warnings
    }

    private static func fsyncFile(_ file: String, path: String, step: String, directory: Bool = false)
        throws(PDFRewriteError)
    {
        let descriptor = open(file, directory ? O_RDONLY | O_DIRECTORY : O_RDONLY)
        guard descriptor >= 0 else { throw .staging(path: path, step: step, errno: errno) }
        defer { close(descriptor) }
        guard fsync(descriptor) == 0 else { throw .staging(path: path, step: step, errno: errno) }
    }

    private static func directory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        let folder = String(path[..<slash])
        return folder.isEmpty ? "/" : folder
    }

    private static func baseName(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return path }
        return String(path[path.index(after: slash)...])
    }

    private static func fileSize(_ path: String) -> Int {
        var status = stat()
        return stat(path, &status) == 0 ? Int(status.st_size) : 0
    }
}
