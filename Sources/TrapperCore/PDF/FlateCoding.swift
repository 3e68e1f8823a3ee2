/// Flate (zlib, RFC 1950) both ways. TrapperCore links no C library: the adapter that does
/// (`ZlibFlate` in PDFAccess) is passed in by whoever needs it.
public protocol FlateCoding: Sendable {
    /// Compresses `data` into a zlib stream.
    func deflate(_ data: [UInt8]) throws -> [UInt8]
    /// Decompresses a zlib stream; throws when the result would exceed `limit` bytes (a Flate bomb)
    /// or the data is corrupt.
    func inflate(_ data: [UInt8], limit: Int) throws -> [UInt8]
}
