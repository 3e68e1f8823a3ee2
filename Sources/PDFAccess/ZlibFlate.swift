import CZlib
import TrapperCore

public enum FlateError: Error, Equatable, Sendable, CustomStringConvertible {
    case corrupt(String)
    case tooLarge(limit: Int)

    public var description: String {
        switch self {
        case .corrupt(let reason): "flate: corrupt data: \(reason)"
        case .tooLarge(let limit): "flate: data expands past \(limit) bytes"
        }
    }
}

/// zlib's deflate and inflate, in one call each, streaming through a fixed window so that inflate
/// stops at its limit instead of allocating whatever a bomb asks for.
public struct ZlibFlate: FlateCoding {
    /// zlib's level: 6 is its default balance; scans compress little better at 9 and take twice as long.
    public var level: Int32

    public init(level: Int32 = 6) { self.level = level }

    public func deflate(_ data: [UInt8]) throws -> [UInt8] {
        var stream = z_stream()
        guard deflateInit_(&stream, level, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
            throw FlateError.corrupt("deflateInit failed")
        }
        defer { deflateEnd(&stream) }
        var output = [UInt8](repeating: 0, count: Int(deflateBound(&stream, uLong(data.count))))
        let produced = data.withUnsafeBufferPointer { input in
            output.withUnsafeMutableBufferPointer { out -> Int in
                stream.next_in = UnsafeMutablePointer(mutating: input.baseAddress)
                stream.avail_in = uInt(input.count)
                stream.next_out = out.baseAddress
                stream.avail_out = uInt(out.count)
                CZlib.deflate(&stream, Z_FINISH)
                return Int(stream.total_out)
            }
        }
        output.removeSubrange(produced...)
        return output
    }

    public func inflate(_ data: [UInt8], limit: Int) throws -> [UInt8] {
        var stream = z_stream()
        guard inflateInit_(&stream, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
            throw FlateError.corrupt("inflateInit failed")
        }
        defer { inflateEnd(&stream) }
        var output: [UInt8] = []
        var window = [UInt8](repeating: 0, count: 64 * 1024)
        return try data.withUnsafeBufferPointer { input in
            stream.next_in = UnsafeMutablePointer(mutating: input.baseAddress)
            stream.avail_in = uInt(input.count)
            while true {
                let (status, count) = window.withUnsafeMutableBufferPointer { out -> (Int32, Int) in
                    stream.next_out = out.baseAddress
                    stream.avail_out = uInt(out.count)
                    let status = CZlib.inflate(&stream, Z_NO_FLUSH)
                    return (status, out.count - Int(stream.avail_out))
                }
                guard output.count + count <= limit else { throw FlateError.tooLarge(limit: limit) }
                output.append(contentsOf: window[..<count])
                switch status {
                case Z_STREAM_END:
                    return output
                case Z_OK:
                    continue
                case Z_BUF_ERROR where stream.avail_in == 0:
                    // Truncated streams are common in real PDFs; readers keep what was decoded.
                    return output
                default:
                    let message = stream.msg.map { String(cString: $0) } ?? "zlib status \(status)"
                    throw FlateError.corrupt(message)
                }
            }
        }
    }
}
