/// Undoes a stream's /Filter chain. TrapperCore links no C library, so Flate lives in an adapter
/// (zlib) that the caller injects; this module only needs it for compressed xref and object streams.
public protocol PDFStreamDecoding: Sendable {
    /// `data` as stored, `dictionary` the stream's (with /Filter and /DecodeParms).
    func decode(_ data: [UInt8], dictionary: PDFDictionary) throws -> [UInt8]
}

/// Decodes nothing: accepts only unfiltered streams. The default, and enough for files whose
/// xref and object streams are stored uncompressed.
public struct PDFNoFilterDecoder: PDFStreamDecoding {
    public init() {}

    public func decode(_ data: [UInt8], dictionary: PDFDictionary) throws -> [UInt8] {
        let filters = PDFStream(dictionary: dictionary, data: []).filters
        guard filters.isEmpty else {
            throw PDFError.unsupportedFilter(.decodingStream, offset: 0, filters.map(\.description).joined(separator: " "))
        }
        return data
    }
}
