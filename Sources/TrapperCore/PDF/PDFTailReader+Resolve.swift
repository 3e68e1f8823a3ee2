/// Resolving objects: newest section first, older ones only when the newer say nothing.
extension PDFTailReader {
    /// Where object `number` lives, per the newest section that mentions it; nil if none does.
    public func entry(for number: Int) throws -> PDFXrefEntry? {
        var index = 0
        while true {
            if index == sections.count {
                guard let next = nextSectionOffset else { return nil }
                guard visitedSectionOffsets.insert(next).inserted else {
                    throw PDFError.damaged(.readingXrefTable, offset: next, "/Prev chain loops")
                }
                let read = try Self.readSection(
                    at: next, headerOffset: tail.headerOffset, reader: reader, decoder: decoder)
                sections.append(read.section)
                nextSectionOffset = read.prev.map { $0 &+ tail.headerOffset }
            }
            switch sections[index] {
            case .table(let table, let hybrid):
                let found = try table.entry(for: number)
                if case .inFile? = found { return found }
                // Hybrid file: objects hidden from old readers are in the /XRefStm stream.
                if let hidden = hybrid?.entry(for: number) { return hidden }
                if let found { return found }
            case .stream(let stream):
                if let found = stream.entry(for: number) { return found }
            }
            index += 1
        }
    }

    /// The object numbered `number`, or nil if it is free or no section lists it.
    public func object(number: Int) throws -> PDFObject? {
        if let cached = objectCache[number] { return cached }
        guard resolving.insert(number).inserted else {
            throw PDFError.damaged(.resolvingObject, offset: 0, "object \(number) refers to itself while loading")
        }
        defer { resolving.remove(number) }
        let object: PDFObject
        switch try entry(for: number) {
        case nil, .free?:
            return nil
        case .inFile(let offset, _)?:
            let loader = PDFObjectLoader(reader: reader) { [unowned self] reference in
                try self.object(number: reference.number)?.integerValue
            }
            object = try loader.loadObject(
                at: offset &+ tail.headerOffset, expectedNumber: number, step: .resolvingObject
            ).1
        case .inObjectStream(let streamNumber, let index)?:
            object = try objectStream(streamNumber).object(at: index, expectedNumber: number)
        }
        objectCache[number] = object
        return object
    }

    /// The object a reference points at; `.null` for a missing object, as §7.3.10 says.
    /// (The generation number is not checked against the entry's.)
    public func resolve(_ reference: PDFReference) throws -> PDFObject {
        try object(number: reference.number) ?? .null
    }

    /// `object` itself, or what it refers to if it is a reference.
    public func resolve(_ object: PDFObject) throws -> PDFObject {
        guard case .reference(let reference) = object else { return object }
        return try resolve(reference)
    }

    /// The document catalog (/Root).
    public func catalog() throws -> PDFDictionary {
        guard case .dictionary(let catalog) = try resolve(tail.root) else {
            throw PDFError.damaged(.readingTrailer, offset: tail.startxref, "/Root \(tail.root) is not a dictionary")
        }
        return catalog
    }

    private func objectStream(_ number: Int) throws -> PDFObjectStreamContents {
        if let cached = objectStreams[number] { return cached }
        guard case .inFile(let offset, _)? = try entry(for: number) else {
            throw PDFError.damaged(.readingObjectStream, offset: 0, "object stream \(number) is not in the file")
        }
        guard case .stream(let stream)? = try object(number: number) else {
            throw PDFError.damaged(.readingObjectStream, offset: offset, "object \(number) is not a stream")
        }
        let contents = try PDFObjectStreamContents(stream: stream, fileOffset: offset &+ tail.headerOffset, decoder: decoder)
        objectStreams[number] = contents
        return contents
    }
}
