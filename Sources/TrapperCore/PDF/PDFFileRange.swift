/// A stream's data left in the file it comes from (a JPEG photo, which goes into the PDF byte for
/// byte), copied into the target a chunk at a time when its stream is written
/// (`PDFObjectSink.set(_:toStream:copying:)`): a photo of 400 MB is never held whole.
public struct PDFFileRange: Sendable {
    public let file: PDFFileSource
    public let offset: Int
    public let count: Int
    /// A megabyte: what the target's own output buffer holds, so each chunk is one write.
    public static let chunkSize = 1 << 20

    /// `count` bytes of `file` from `offset`; the whole file by default.
    public init(_ file: PDFFileSource, offset: Int = 0, count: Int? = nil) {
        self.file = file
        self.offset = offset
        self.count = count ?? file.length - offset
    }

    /// Hands `body` the bytes in order, a chunk at a time. Throws when the file no longer has them
    /// all, or was written to since it was opened: they were checked then, and the PDF must get the
    /// bytes that were checked.
    public func copy(_ body: ([UInt8]) throws -> Void) throws {
        var position = offset
        while position < offset + count {
            let chunk = try file.read(offset: position, count: min(Self.chunkSize, offset + count - position))
            guard !chunk.isEmpty else {
                throw PDFError.io(.readingFile, offset: position, "the file is shorter than when it was checked")
            }
            try body(chunk)
            position += chunk.count
        }
        guard file.isUnchanged else {
            throw PDFError.io(.readingFile, offset: offset, "the file was written to after it was checked")
        }
    }

    /// All of it at once: for a revision held in memory, which holds every object anyway.
    public func read() throws -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(count)
        try copy { bytes.append(contentsOf: $0) }
        return bytes
    }
}
