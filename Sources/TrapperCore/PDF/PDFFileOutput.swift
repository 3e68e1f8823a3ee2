import Foundation

/// A revision's bytes going straight to the end of a target file, through a buffer so small
/// objects do not each cost a system call.
public final class PDFFileOutput: PDFByteOutput {
    private let handle: FileHandle
    private var buffer: [UInt8] = []
    private let capacity: Int

    /// Writes at `offset` in the file `handle` is open on, or at its end when nil. An append to a
    /// file other hosts share writes at the end it established under the lock, never at the end
    /// a client's cached size would give.
    public init(handle: FileHandle, at offset: Int? = nil, bufferSize: Int = 1 << 20) throws {
        self.handle = handle
        self.capacity = bufferSize
        if let offset { try handle.seek(toOffset: UInt64(offset)) } else { try handle.seekToEnd() }
    }

    public func write(_ bytes: [UInt8]) throws {
        if buffer.count + bytes.count > capacity { try flush() }
        if bytes.count >= capacity {
            try handle.write(contentsOf: bytes)
        } else {
            buffer.append(contentsOf: bytes)
        }
    }

    public func flush() throws {
        guard !buffer.isEmpty else { return }
        try handle.write(contentsOf: buffer)
        buffer.removeAll(keepingCapacity: true)
    }
}
