import CQPDF
import Foundation
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
    /// Staging the new file (fsync) failed; the target is untouched.
    case staging(path: String, step: String, errno: Int32)
    /// The rewritten file fell short of the original (pages, objects) or did not read back: the
    /// target is untouched.
    case check(path: String, String)

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
        case .check(let path, let why): return "rewrite \(path): not used: \(why)"
        }
    }
}

/// Full rewrites of a target through qpdf: repairing a damaged file, or compacting its history.
/// The new file is written beside the target (same folder, so the store's rename is atomic),
/// fsynced, and checked against the original before anything may replace it: the store keeps the
/// original's bytes for undo, then renames. Encrypted files are never rewritten.
public enum PDFRewriter {
    public enum Purpose: Sendable, Equatable {
        /// Mends a damaged file (broken xref, missing `%%EOF`, wrong `startxref`, a catalog whose
        /// page tree points nowhere: what `PDFError.needsRepair` says) from what qpdf reconstructs.
        /// The new file has a classic xref table and no object streams, so later updates append
        /// classic tables, and its streams are kept as stored (nothing is re-encoded).
        case repair
        /// History squashed into one revision, object streams generated, streams compressed,
        /// optionally linearized ("fast web view").
        case compact(linearize: Bool)
    }

    /// What a rewrite found, changed and wrote: for the log, the history and the check.
    public struct Report: Sendable, Equatable {
        /// qpdf's warnings while reading the original (how it reconstructed it), one line each.
        public var warnings: [String]
        /// What the rewrite changed beyond the file's form, one line each (a new page tree).
        public var mended: [String]
        public var bytesBefore: Int
        public var bytesAfter: Int
        /// The most pages qpdf or poppler found in the original, and what the rewrite has.
        public var pagesBefore: Int
        public var pagesAfter: Int
        /// Indirect objects reachable from the trailer, in the original (as qpdf reads it) and after.
        public var objectsBefore: Int
        public var objectsAfter: Int

        /// One line for the log and the history: what was found and what was done.
        public var summary: String {
            let lines = mended + warnings
            return "\(bytesBefore) -> \(bytesAfter) bytes, \(pagesAfter) pages"
                + (lines.isEmpty ? "" : "; " + lines.joined(separator: "; "))
        }
    }

    /// Writes the file at `path` rewritten whole to `destination` (a new file, fsynced, with the
    /// original's permissions), with `record(lines)` as the /PDFTrapper entry of its trailer
    /// (`lines`: what was mended, then qpdf's warnings), and checks it (`check`). Throws, with
    /// `destination` removed, when qpdf cannot read or write the file or the check fails.
    /// `shown`: the name qpdf's warnings give the file (`path` may be a pinned /proc/self/fd one).
    public static func rewrite(_ path: String, to destination: String, purpose: Purpose, shown: String? = nil,
                               record: ([String]) -> PDFDictionary) throws(PDFRewriteError) -> Report {
        var written = false
        defer { if !written { unlink(destination) } }
        var found: Found
        do {
            found = try write(path: path, to: destination, purpose: purpose, shown: shown ?? path, record: record) {
                qpdf throws(QPDFHandle.Failure) in try qpdf.read(path, password: nil)
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
            let scanned = "qpdf could not reconstruct the file (\(error.message)); rebuilt from a scan of its objects"
            found = try patched.withUnsafeBufferPointer { buffer throws(PDFRewriteError) in
                try write(path: path, to: destination, purpose: purpose, shown: shown ?? path, found: [scanned], record: record) {
                    qpdf throws(QPDFHandle.Failure) in
                    let status = buffer.withMemoryRebound(to: CChar.self) {
                        qpdf.api.qpdf_read_memory(qpdf.data, path, $0.baseAddress, UInt64($0.count), nil)
                    }
                    try qpdf.check(status)
                }
            }
        }
        var status = stat()
        if stat(path, &status) == 0 { chmod(destination, status.st_mode & 0o7777) }
        try fsyncFile(destination, path: path, step: "fsync new file")
        let report = try check(destination, against: found, original: path)
        written = true
        return report
    }

    /// What reading the original found, before the check.
    private struct Found {
        var warnings: [String]
        var mended: [String]
        var pages: Int
        var objects: Int
    }

    /// A rewrite may replace the original only when it reads back cleanly, by qpdf and by poppler,
    /// with at least the pages either found in the original and at least the objects qpdf reached
    /// there: a reconstruction that lost part of the document is refused, never committed.
    private static func check(_ rewritten: String, against found: Found, original: String) throws(PDFRewriteError) -> Report {
        func refuse(_ why: String) -> PDFRewriteError { .check(path: original, why) }
        let pagesBefore = max(found.pages, (try? PDFPageRenderer(path: original))?.pageCount ?? 0)
        let qpdf: QPDFHandle
        do {
            qpdf = try QPDFHandle()
            try qpdf.read(rewritten, password: nil)
        } catch {
            throw refuse("qpdf cannot read the rewritten file: \(error.message)")
        }
        let warnings = qpdf.takeWarnings()
        guard warnings.isEmpty else { throw refuse("qpdf warns reading the rewritten file: \(warnings.joined(separator: "; "))") }
        let pages = Int(qpdf.api.qpdf_get_num_pages(qpdf.data))
        guard (try? qpdf.check()) != nil, pages >= 0 else { throw refuse("qpdf cannot count the rewritten file's pages") }
        let objects = reachableObjects(qpdf)
        guard let shown = try? PDFPageRenderer(path: rewritten).pageCount else { throw refuse("poppler cannot open the rewritten file") }
        guard pages >= pagesBefore, shown >= pagesBefore else {
            throw refuse("the rewritten file has \(min(pages, shown)) pages, the original \(pagesBefore)")
        }
        guard objects >= found.objects else {
            throw refuse("the rewritten file reaches \(objects) objects, the original \(found.objects)")
        }
        return Report(warnings: found.warnings, mended: found.mended, bytesBefore: fileSize(original),
                      bytesAfter: fileSize(rewritten), pagesBefore: pagesBefore, pagesAfter: min(pages, shown),
                      objectsBefore: found.objects, objectsAfter: objects)
    }

    /// How many indirect dictionaries, streams, arrays and strings are reachable from the trailer:
    /// what a document is made of. (Indirect numbers, a stream's /Length most often, qpdf writes
    /// in place, and a reference to nothing is null: neither counts.)
    private static func reachableObjects(_ qpdf: QPDFHandle) -> Int {
        let api = qpdf.api, data = qpdf.data
        var seen = Set<[Int32]>()
        var counted = 0
        var pending = [api.qpdf_get_trailer(data)]
        while let handle = pending.popLast() {
            let type = api.qpdf_oh_get_type_code(data, handle)
            if api.qpdf_oh_is_indirect(data, handle) != QPDF_FALSE {
                let id = [api.qpdf_oh_get_object_id(data, handle), api.qpdf_oh_get_generation(data, handle)]
                guard seen.insert(id).inserted else { continue }
                if [ot_dictionary, ot_stream, ot_array, ot_string].contains(type) { counted += 1 }
            }
            switch type {
            case ot_array:
                for index in 0..<api.qpdf_oh_get_array_n_items(data, handle) {
                    pending.append(api.qpdf_oh_get_array_item(data, handle, index))
                }
            case ot_dictionary, ot_stream:
                let dictionary = api.qpdf_oh_get_type_code(data, handle) == ot_stream ? api.qpdf_oh_get_dict(data, handle) : handle
                // qpdf has one key iterator per handle: every key is taken before any value is read.
                var keys: [String] = []
                api.qpdf_oh_begin_dict_key_iter(data, dictionary)
                while api.qpdf_oh_dict_more_keys(data) != QPDF_FALSE {
                    if let key = api.qpdf_oh_dict_next_key(data) { keys.append(String(cString: key)) }
                }
                for key in keys { pending.append(api.qpdf_oh_get_key(data, dictionary, key)) }
            default:
                break
            }
        }
        return counted
    }

    /// One qpdf handle: `read` fills it, a repair mends its page tree, `record` goes into its
    /// trailer, then it writes to `destination` as `purpose` says. Returns what reading it found.
    /// `found`: lines said before qpdf's own; `shown`: the file's name in them.
    private static func write(path: String, to destination: String, purpose: Purpose, shown: String, found earlier: [String] = [],
        record: ([String]) -> PDFDictionary, read: (QPDFHandle) throws(QPDFHandle.Failure) -> Void) throws(PDFRewriteError) -> Found
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
        let api = qpdf.api, data = qpdf.data
        var found = Found(warnings: earlier + qpdf.takeWarnings(), mended: [], pages: 0, objects: 0)
        if purpose == .repair, let mended = mendPageTree(qpdf) { found.mended.append(mended) }
        let pages = api.qpdf_get_num_pages(data)
        found.pages = (try? qpdf.check()) != nil ? max(0, Int(pages)) : 0
        found.objects = reachableObjects(qpdf)
        found.warnings += qpdf.takeWarnings()
        found.warnings = found.warnings.map { $0.replacingOccurrences(of: path, with: shown) }
        // The last revision's history record would carry byte offsets that mean nothing in the new
        // file: the rewrite's own record replaces it.
        let trailer = api.qpdf_get_trailer(data)
        let recordText = String(decoding: PDFObject.dictionary(record(found.mended + found.warnings)).serialized, as: UTF8.self)
        api.qpdf_oh_replace_key(data, trailer, "/" + RevisionRecord.trailerKey.string, api.qpdf_oh_parse(data, recordText))
        do {
            try qpdf.check()
            try qpdf.check(api.qpdf_init_write(data, destination))
            switch purpose {
            case .repair:
                api.qpdf_set_object_stream_mode(data, qpdf_o_disable)
                api.qpdf_set_compress_streams(data, QPDF_FALSE)
                api.qpdf_set_decode_level(data, qpdf_dl_none)
            case .compact(let linearize):
                api.qpdf_set_object_stream_mode(data, qpdf_o_generate)
                api.qpdf_set_compress_streams(data, QPDF_TRUE)
                api.qpdf_set_decode_level(data, qpdf_dl_generalized)
                api.qpdf_set_linearization(data, linearize ? QPDF_TRUE : QPDF_FALSE)
            }
            try qpdf.check()
            try qpdf.check(api.qpdf_write(data))
        } catch {
            throw .write(path: path, error.message)
        }
        found.warnings += qpdf.takeWarnings()
        return found
    }

    /// A catalog whose /Pages is not a page tree (it points at no object, or at something else)
    /// gets a new, empty one, so the file can take pages again; returns the line saying so.
    private static func mendPageTree(_ qpdf: QPDFHandle) -> String? {
        let api = qpdf.api, data = qpdf.data
        let root = api.qpdf_get_root(data)
        guard api.qpdf_oh_is_dictionary(data, root) != QPDF_FALSE else { return nil }
        let pages = api.qpdf_oh_get_key(data, root, "/Pages")
        let kids = api.qpdf_oh_get_key(data, pages, "/Kids")
        if api.qpdf_oh_is_dictionary(data, pages) != QPDF_FALSE, api.qpdf_oh_is_array(data, kids) != QPDF_FALSE { return nil }
        let tree = api.qpdf_make_indirect_object(data, api.qpdf_oh_parse(data, "<< /Type /Pages /Kids [] /Count 0 >>"))
        api.qpdf_oh_replace_key(data, root, "/Pages", tree)
        _ = qpdf.takeWarnings()
        return "the catalog's /Pages was no page tree: a new, empty page tree made"
    }

    private static func fsyncFile(_ file: String, path: String, step: String) throws(PDFRewriteError) {
        let descriptor = open(file, O_RDONLY)
        guard descriptor >= 0 else { throw .staging(path: path, step: step, errno: errno) }
        defer { close(descriptor) }
        guard fsync(descriptor) == 0 else { throw .staging(path: path, step: step, errno: errno) }
    }

    private static func fileSize(_ path: String) -> Int {
        var status = stat()
        return stat(path, &status) == 0 ? Int(status.st_size) : 0
    }
}
