/// Loads one indirect object from a file offset, including a stream's data. The stream's /Length
/// is trusted only if `endstream` follows it; otherwise (wrong, missing or unresolvable /Length)
/// the data runs to the next `endstream`, as every tolerant reader does.
struct PDFObjectLoader {
    let reader: PDFWindowReader
    /// Resolves an indirect /Length; nil when it cannot.
    let resolveLength: (PDFReference) throws -> Int?

    func loadObject(at offset: Int, expectedNumber: Int?, step: PDFStep) throws -> (PDFReference, PDFObject) {
        let (reference, body) = try reader.parse(at: offset, step: step) { try $0.parseIndirectObject() }
        if let expectedNumber, reference.number != expectedNumber {
            throw PDFError.damaged(
                step, offset: offset, "xref entry for object \(expectedNumber) points at object \(reference.number)")
        }
        switch body {
        case .object(let object):
            return (reference, object)
        case .stream(let dictionary, let dataOffset):
            let data = try streamData(dictionary: dictionary, dataOffset: dataOffset, step: step)
            return (reference, .stream(PDFStream(dictionary: dictionary, data: data)))
        }
    }

    private func streamData(dictionary: PDFDictionary, dataOffset: Int, step: PDFStep) throws -> [UInt8] {
        var declared: Int? = nil
        switch dictionary[.length] {
        case .integer(let value)?: declared = value
        case .reference(let reference)?: declared = try? resolveLength(reference)
        default: break
        }
        if let length = declared, length >= 0, length <= reader.source.length - dataOffset {
            let data = try reader.read(dataOffset, length, step: step)
            let after = try reader.read(dataOffset + length, 32, step: step)
            var index = 0
            while index < after.count, PDFBytes.isWhitespace(after[index]) { index += 1 }
            if after[index...].starts(with: Array("endstream".utf8)) { return data }
        }
        guard let end = try reader.find(Array("endstream".utf8), from: dataOffset, step: step) else {
            throw PDFError.damaged(step, offset: dataOffset, "stream has no endstream")
        }
        var data = try reader.read(dataOffset, end - dataOffset, step: step)
        // The end of line before `endstream` is not part of the data.
        if data.last == 0x0A { data.removeLast() }
        if data.last == 0x0D { data.removeLast() }
        return data
    }
}
