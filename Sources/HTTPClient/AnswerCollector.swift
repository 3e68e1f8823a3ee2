import CCurl

/// Where the write callback puts the answer's body: the callback is a C function pointer, so it
/// reaches this through its context pointer, one collector per transfer.
final class AnswerCollector {
    static let limit = 64 * 1024
    var body: [UInt8] = []

    /// Keeps what fits under the limit and drops the rest, while reporting every byte as taken:
    /// a short count would make curl abort the transfer and lose the status.
    static let write: trapper_curl_write_callback = { data, size, count, context in
        let length = size * count
        guard let context else { return length }
        let collector = Unmanaged<AnswerCollector>.fromOpaque(context).takeUnretainedValue()
        let room = min(length, limit - collector.body.count)
        if room > 0 {
            collector.body.append(contentsOf: UnsafeRawBufferPointer(start: data, count: room))
        }
        return length
    }
}
