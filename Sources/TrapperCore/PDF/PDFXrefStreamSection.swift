/// A cross-reference stream (§7.5.8): the decoded rows are kept and an entry is computed from
/// /Index and /W when asked for, so nothing is parsed per object up front.
struct PDFXrefStreamSection: Sendable {
    let offset: Int
    let dictionary: PDFDictionary
    let widths: (Int, Int, Int)
    /// (first object number, count) pairs, and where each one's rows start.
    let ranges: [(first: Int, count: Int, firstRow: Int)]
    let rows: [UInt8]

    init(offset: Int, stream: PDFStream, decoder: any PDFStreamDecoding) throws {
        let step = PDFStep.readingXrefStream
        self.offset = offset
        dictionary = stream.dictionary
        guard dictionary[.type]?.nameValue == "XRef" else {
            throw PDFError.damaged(step, offset: offset, "stream is not /Type /XRef")
        }
        guard let w = dictionary["W"]?.arrayValue?.compactMap(\.integerValue), w.count == 3,
            w.allSatisfy({ (0...8).contains($0) }), w[1] > 0
        else {
            throw PDFError.damaged(step, offset: offset, "bad /W")
        }
        widths = (w[0], w[1], w[2])
        guard let size = dictionary[.size]?.integerValue, size >= 0 else {
            throw PDFError.damaged(step, offset: offset, "missing /Size")
        }
        let index = dictionary["Index"]?.arrayValue?.compactMap(\.integerValue) ?? [0, size]
        guard index.count % 2 == 0 else { throw PDFError.damaged(step, offset: offset, "bad /Index") }
        var ranges: [(first: Int, count: Int, firstRow: Int)] = []
        var row = 0
        for pair in stride(from: 0, to: index.count, by: 2) {
            // Bounds keep the row arithmetic from overflowing on garbage.
            guard (0..<(1 << 40)).contains(index[pair]), (0..<(1 << 32)).contains(index[pair + 1]) else {
                throw PDFError.damaged(step, offset: offset, "bad /Index")
            }
            ranges.append((index[pair], index[pair + 1], row))
            row += index[pair + 1]
        }
        self.ranges = ranges
        do {
            rows = stream.filters.isEmpty ? stream.data : try decoder.decode(stream.data, dictionary: dictionary)
        } catch let error as PDFError {
            throw error.at(offset: offset, step: .decodingStream)
        } catch {
            throw PDFError.damaged(.decodingStream, offset: offset, "\(error)")
        }
        let rowWidth = w[0] + w[1] + w[2]
        guard rows.count >= row * rowWidth else {
            throw PDFError.damaged(step, offset: offset, "xref stream holds \(rows.count) bytes, needs \(row * rowWidth)")
        }
    }

    var trailer: PDFDictionary { dictionary }

    func entry(for number: Int) -> PDFXrefEntry? {
        for range in ranges.reversed() where number >= range.first && number < range.first + range.count {
            let rowWidth = widths.0 + widths.1 + widths.2
            var position = (range.firstRow + number - range.first) * rowWidth
            func field(_ width: Int) -> Int {
                var value = 0
                for _ in 0..<width {
                    value = value << 8 | Int(rows[position])
                    position += 1
                }
                return value
            }
            let type = widths.0 == 0 ? 1 : field(widths.0)
            let second = field(widths.1)
            let third = field(widths.2)
            switch type {
            case 0: return .free(nextFree: second, generation: third)
            case 1: return .inFile(offset: second, generation: third)
            case 2: return .inObjectStream(streamNumber: second, index: third)
            default: return nil  // reserved types: treat as absent (§7.5.8.3)
            }
        }
        return nil
    }
}

extension PDFError {
    /// The same error placed at a file offset: errors raised inside decoded data carry
    /// offsets into that data, which mean nothing to the user.
    func at(offset: Int, step: PDFStep) -> PDFError {
        switch self {
        case .syntax(_, _, let message): return .syntax(step, offset: offset, message)
        case .tooDeep: return .tooDeep(step, offset: offset)
        case .damaged(_, _, let message): return .damaged(step, offset: offset, message)
        case .encrypted: return .encrypted(offset: offset)
        case .unsupportedFilter(_, _, let filter): return .unsupportedFilter(step, offset: offset, filter)
        case .io(_, _, let message): return .io(step, offset: offset, message)
        }
    }
}
