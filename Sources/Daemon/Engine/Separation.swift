import TrapperCore

/// A separator sheet found in an input: it came after `after` of the input's (kept) pages.
public struct FoundSeparator: Sendable, Equatable {
    public var after: Int
    /// A barcode separator's value, its prefix taken off.
    public var barcode: String?
}

/// One document of an input or a scan batch split at its separator sheets: the pages between two
/// of them, which may come from several inputs (a scan's page files).
public struct SegmentInput: InputDocument {
    public let parts: [(document: any InputDocument, index: Int)]
    /// The barcode on the separator before it (nil for the first document, or other separators).
    public let barcode: String?
    /// 1-based, of `count`.
    public let number: Int
    public let count: Int
    let label: String

    public var name: String { "\(label), document \(number) of \(count)" }
    public var sha256: [UInt8] { parts[0].document.sha256 }
    public var pageCount: Int { parts.count }

    /// Each input once, with as many pages as it gave this document; its digest is the file's, so a
    /// document's target holding it is how recovery knows that the document went in.
    public var recordedInputs: [RevisionRecord.Input] {
        var inputs: [RevisionRecord.Input] = []
        for part in parts {
            // Parts are in order, so one input's pages are next to each other.
            if inputs.last?.name == part.document.name {
                inputs[inputs.count - 1].pages += 1
            } else {
                inputs.append(.init(name: part.document.name, sha256: part.document.sha256, pages: 1))
            }
        }
        return inputs
    }

    public var stepsNote: String? {
        var notes = [name + (barcode.map { " (barcode \"\($0)\")" } ?? "")]
        var named = Set<String>()
        for part in parts where named.insert(part.document.name).inserted {
            if let note = part.document.stepsNote { notes.append("\(part.document.name): \(note)") }
        }
        return notes.joined(separator: "; ")
    }

    public func writePage<Sink: PDFObjectSink>(_ index: Int, as reference: PDFReference, into sink: inout Sink) throws
        -> PDFDictionary
    {
        try parts[index].document.writePage(parts[index].index, as: reference, into: &sink)
    }

    public func writeForm<Sink: PDFObjectSink>(into sink: inout Sink) throws -> PDFDictionary? {
        // A form belongs to one input whole; split, its fields would point at pages elsewhere.
        nil
    }

    /// The log's words for a split: "split at 2 separator sheets into 3 documents: A.pdf, B.pdf, C.pdf".
    public static func summary(separators: Int, targets: [String]) -> String {
        "split at \(separators) separator sheet\(separators == 1 ? "" : "s") into \(targets.count) "
            + "document\(targets.count == 1 ? "" : "s"): \(targets.joined(separator: ", "))"
    }

    /// The documents that `inputs`, in order, make when split at their separator sheets. Parts with
    /// no pages (two separators in a row, one at the very start or end) make none.
    public static func split(_ inputs: [any InputDocument], label: String) -> [SegmentInput] {
        var pieces: [(parts: [(document: any InputDocument, index: Int)], barcode: String?)] = []
        var current: [(document: any InputDocument, index: Int)] = []
        var barcode: String?
        func close(at separator: FoundSeparator) {
            if !current.isEmpty { pieces.append((current, barcode)) }
            current = []
            barcode = separator.barcode
        }
        for input in inputs {
            let separators = input.separators.sorted { $0.after < $1.after }
            var next = separators.startIndex
            for index in 0...input.pageCount {
                while next < separators.endIndex, separators[next].after == index {
                    close(at: separators[next])
                    next += 1
                }
                if index < input.pageCount { current.append((input, index)) }
            }
        }
        if !current.isEmpty { pieces.append((current, barcode)) }
        return pieces.enumerated().map { number, piece in
            SegmentInput(parts: piece.parts, barcode: piece.barcode, number: number + 1, count: pieces.count, label: label)
        }
    }
}
