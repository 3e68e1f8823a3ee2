/// The decoded contents of an object stream (§7.5.7): N pairs `number offset`, then the objects
/// from /First on. Parsed once per stream, objects on demand.
struct PDFObjectStreamContents: Sendable {
    let fileOffset: Int
    let data: [UInt8]
    let first: Int
    let members: [(number: Int, offset: Int)]

    init(stream: PDFStream, fileOffset: Int, decoder: any PDFStreamDecoding) throws {
        let step = PDFStep.readingObjectStream
        self.fileOffset = fileOffset
        guard stream.dictionary[.type]?.nameValue == "ObjStm",
            let count = stream.dictionary["N"]?.integerValue, count >= 0,
            let first = stream.dictionary["First"]?.integerValue, (0..<(1 << 40)).contains(first)
        else {
            throw PDFError.damaged(step, offset: fileOffset, "not an object stream (/Type /ObjStm with /N, /First)")
        }
        do {
            data = stream.filters.isEmpty ? stream.data : try decoder.decode(stream.data, dictionary: stream.dictionary)
        } catch let error as PDFError {
            throw error.at(offset: fileOffset, step: .decodingStream)
        } catch {
            throw PDFError.damaged(.decodingStream, offset: fileOffset, "\(error)")
        }
        self.first = first
        var lexer = PDFLexer(bytes: data)
        var members: [(number: Int, offset: Int)] = []
        members.reserveCapacity(count)
        for _ in 0..<count {
            guard case .integer(let number)? = try? lexer.next(), case .integer(let offset)? = try? lexer.next(),
                number >= 0, (0..<(1 << 40)).contains(offset)
            else {
                throw PDFError.damaged(step, offset: fileOffset, "object stream header is malformed")
            }
            members.append((number, offset))
        }
        self.members = members
    }

    func object(at index: Int, expectedNumber: Int) throws -> PDFObject {
        guard index >= 0, index < members.count, members[index].number == expectedNumber else {
            throw PDFError.damaged(
                .readingObjectStream, offset: fileOffset, "object \(expectedNumber) is not at index \(index)")
        }
        var parser = PDFObjectParser(bytes: data, position: first + members[index].offset, step: .readingObjectStream)
        guard first + members[index].offset < data.count else {
            throw PDFError.damaged(.readingObjectStream, offset: fileOffset, "object \(expectedNumber) lies outside")
        }
        do {
            return try parser.parseObject()
        } catch let error as PDFError {
            throw error.at(offset: fileOffset, step: .readingObjectStream)
        }
    }
}
