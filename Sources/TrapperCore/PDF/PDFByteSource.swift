import Foundation

/// Random access to a file's bytes: all the tail reader ever asks of a file. Reads past the end
/// return what there is (possibly nothing); they never trap.
public protocol PDFByteSource: Sendable {
    var length: Int { get }
    func read(offset: Int, count: Int) throws -> [UInt8]
}

/// Bytes in memory: for tests, and for a file that was just built.
public struct PDFMemorySource: PDFByteSource {
    public let bytes: [UInt8]

    public init(_ bytes: [UInt8]) { self.bytes = bytes }

    public var length: Int { bytes.count }

    public func read(offset: Int, count: Int) throws -> [UInt8] {
        guard offset >= 0, count > 0, offset < bytes.count else { return [] }
        return Array(bytes[offset..<min(bytes.count, offset + count)])
    }
}

/// A file on disk, read range by range (never the whole file). Its length is taken once, at
/// open: the reader describes the file as it was then, which is what an append chains to.
public final class PDFFileSource: PDFByteSource, @unchecked Sendable {
    public let length: Int
    private let handle: FileHandle
    /// When the file was last written, as it was at open: a range copied later (`PDFFileRange`) is
    /// still the bytes that were checked only while this holds.
    private let modified: timespec

    /// Only a regular file: opened without blocking, so that a FIFO (or a device) where a PDF
    /// should be is refused at once with the reason, instead of hanging its reader for ever.
    public convenience init(path: String) throws {
        try self.init(descriptor: open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC), path: path)
    }

    /// Reads through `descriptor` (which it closes when done): the file a lock holds, say, whatever
    /// is at `path` by now. -1 is the failed open of `path`.
    public init(descriptor: Int32, path: String) throws {
        guard descriptor >= 0 else { throw PDFError.io(.readingFile, offset: 0, "cannot open \(path)") }
        var status = stat()
        guard fstat(descriptor, &status) == 0, status.st_mode & S_IFMT == S_IFREG else {
            close(descriptor)
            throw PDFError.io(.readingFile, offset: 0, "\(path) is not a regular file; only regular files are read")
        }
        handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
        modified = status.st_mtim
        do {
            length = Int(try handle.seekToEnd())
        } catch {
            throw PDFError.io(.readingFile, offset: 0, "cannot size \(path): \(error)")
        }
    }

    deinit { try? handle.close() }

    /// pread(2) straight into the array: no seek to share between threads, no copy in between.
    public func read(offset: Int, count: Int) throws -> [UInt8] {
        guard offset >= 0, count > 0, offset < length else { return [] }
        let wanted = min(count, length - offset)
        var out = [UInt8](repeating: 0, count: wanted)
        var filled = 0
        while filled < wanted {
            let got = out.withUnsafeMutableBytes { pread(handle.fileDescriptor, $0.baseAddress! + filled, wanted - filled, off_t(offset + filled)) }
            if got < 0, errno == EINTR { continue }
            guard got >= 0 else { throw PDFError.io(.readingFile, offset: offset + filled, String(cString: strerror(errno))) }
            if got == 0 { break }  // shorter than at open
            filled += got
        }
        out.removeSubrange(filled...)
        return out
    }

    /// Whether the file is as it was at open: its length, and no write since (its modification time).
    public var isUnchanged: Bool {
        var status = stat()
        return fstat(handle.fileDescriptor, &status) == 0 && Int(status.st_size) == length
            && status.st_mtim.tv_sec == modified.tv_sec && status.st_mtim.tv_nsec == modified.tv_nsec
    }
}
