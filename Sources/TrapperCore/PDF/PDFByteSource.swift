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
    private let lock = NSLock()  // seek + read must not interleave

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
        do {
            length = Int(try handle.seekToEnd())
        } catch {
            throw PDFError.io(.readingFile, offset: 0, "cannot size \(path): \(error)")
        }
    }

    deinit { try? handle.close() }

    public func read(offset: Int, count: Int) throws -> [UInt8] {
        guard offset >= 0, count > 0, offset < length else { return [] }
        let wanted = min(count, length - offset)
        lock.lock()
        defer { lock.unlock() }
        do {
            try handle.seek(toOffset: UInt64(offset))
            var out: [UInt8] = []
            out.reserveCapacity(wanted)
            while out.count < wanted {
                guard let chunk = try handle.read(upToCount: wanted - out.count), !chunk.isEmpty else { break }
                out.append(contentsOf: chunk)
            }
            return out
        } catch {
            throw PDFError.io(.readingFile, offset: offset, "\(error)")
        }
    }
}
