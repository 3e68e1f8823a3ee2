/// Parses at a file offset while reading only a window around it: starts small and grows the
/// window when the parse runs into its end, so a typical object costs one small read.
struct PDFWindowReader: Sendable {
    let source: any PDFByteSource
    static let initialWindow = 1024
    /// A single object bigger than this is treated as damage rather than read.
    static let maxWindow = 64 << 20

    func read(_ offset: Int, _ count: Int, step: PDFStep) throws -> [UInt8] {
        do {
            return try source.read(offset: offset, count: count)
        } catch let error as PDFError {
            throw error
        } catch {
            throw PDFError.io(step, offset: offset, "\(error)")
        }
    }

    /// Runs `body` on a parser positioned at `offset`. A failure (or a success that ended close to
    /// the window's edge, where a token may have been cut) is retried with a bigger window until
    /// the window reaches the end of the file.
    func parse<T>(at offset: Int, step: PDFStep, _ body: (inout PDFObjectParser) throws -> T) throws -> T {
        guard offset >= 0, offset < source.length else {
            throw PDFError.damaged(step, offset: offset, "offset outside the file (length \(source.length))")
        }
        var size = Self.initialWindow
        while true {
            let bytes = try read(offset, size, step: step)
            let reachesEnd = offset + bytes.count >= source.length
            var parser = PDFObjectParser(bytes: bytes, baseOffset: offset, step: step)
            do {
                let result = try body(&parser)
                if reachesEnd || parser.lexer.position + 32 < bytes.count || size >= Self.maxWindow {
                    return result
                }
            } catch let error as PDFError {
                if reachesEnd || size >= Self.maxWindow { throw error }
            }
            size *= 4
        }
    }

    /// File offset of the first `needle` at or after `offset`, reading forward in chunks.
    func find(_ needle: [UInt8], from offset: Int, limit: Int = Int.max, step: PDFStep) throws -> Int? {
        let chunk = 16 << 10
        var position = offset
        while position < source.length, position - offset < limit {
            let bytes = try read(position, chunk + needle.count, step: step)
            if let index = PDFBytes.find(needle, in: bytes) { return position + index }
            if bytes.count < chunk + needle.count { return nil }
            position += chunk
        }
        return nil
    }
}
