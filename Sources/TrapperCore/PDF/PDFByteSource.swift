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

    public init(path: String) throws {
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw PDFError.io(.readingFile, offset: 0, "cannot open \(path)")
        }
        self.handle = handle
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
