import Foundation
import System
import TrapperCore

/// The ingest operation: every page of every input, in order, into one revision of the target,
/// at its end or its front. The daemon and `pdftrapper ingest` both come here.
public enum Ingest {
    public static func run(_ inputs: [any InputDocument], into target: String, at position: PDFPagePosition = .end,
                           store: TargetStore, note: String? = nil, date: Date = Date(),
                           origin: RevisionOrigin? = nil, claims: [String] = [], ocr: [String] = []) throws -> TargetStore.Committed {
        // The new pages are read by OCR once the revision stands, when `ocr` names languages.
        let reading = ReadingList()
        return try store.commit(target: target, origin: origin, claims: claims, reading: reading) { writer, reader in
            let parent: PDFReference
            var rootDictionary: PDFDictionary = [:]
            if let reader {
                (parent, rootDictionary) = try PDFPageTree.root(of: reader)
            } else {
                writer.root = writer.reserve()
                parent = writer.reserve()
            }
            var pages: [PDFReference] = []
            var forms: [PDFDictionary] = []
            for input in inputs {
                for index in 0..<input.pageCount {
                    let reference = writer.reserve()
                    let page = try blamingInput(input, target) { try input.writePage(index, as: reference, into: &writer) }
                    try PDFPageTree.writePage(page, as: reference, parent: parent, rootDefaults: rootDictionary, into: &writer)
                    pages.append(reference)
                }
                if let form = try blamingInput(input, target, { try input.writeForm(into: &writer) }) { forms.append(form) }
                // A PDF is hashed while its pages are copied; the history names it by a digest it must have.
                guard !input.sha256.isEmpty else {
                    throw EngineError.badInput(name: input.name, reason: "could not be read to its end for its SHA-256")
                }
            }
            if let reader {
                try PDFPageTree.attach(pages, at: position, root: parent, dictionary: rootDictionary, reader: reader, into: &writer)
                if !forms.isEmpty { try mergeForms(forms, reader: reader, into: &writer) }
            } else if let catalog = writer.root {
                try PDFPageTree.writeNewRoot(pages, root: parent, catalog: catalog, into: &writer)
                if !forms.isEmpty {
                    let form = try PDFFormMerge.merge(nil, adding: forms) { $0 }
                    try writer.set(catalog, to: .dictionary([.type: .name("Catalog"), .pages: .reference(parent),
                                                              "AcroForm": .reference(try writer.add(.dictionary(form)))]))
                }
            }
            // What the page steps did goes into the history beside the revision.
            let steps = inputs.compactMap { input in input.stepsNote.map { input is InterleavedInput || input is SegmentInput ? $0 : "\(input.name): \($0)" } }
            let fullNote = ([note].compactMap { $0 } + steps).joined(separator: "; ")
            reading.add(pages, languages: ocr)
            return RevisionRecord(operation: .ingest, date: date, base: 0, pagesAdded: pages.count, position: position,
                                  inputs: inputs.flatMap(\.recordedInputs),
                                  note: fullNote.isEmpty ? nil : fullNote)
        }
    }

    /// An input that fails while its pages are written is named, so that it alone is refused; the
    /// target's own I/O errors pass as they are.
    private static func blamingInput<T>(_ input: any InputDocument, _ target: String, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as EngineError {
            throw error
        } catch let error as Durable.Failure {
            throw EngineError.writing(error)
        } catch let error as CocoaError {
            throw TargetStore.engineError(error, target: target)
        } catch {
            throw EngineError.badInput(name: input.name, reason: "\(error)")
        }
    }

    /// Imported fields join the target's form: the catalog is rewritten with the merged /AcroForm.
    private static func mergeForms(_ forms: [PDFDictionary], reader: PDFTailReader,
                                   into writer: inout TargetStore.Writer) throws {
        var catalog = try reader.catalog()
        let existing = try catalog["AcroForm"].map(reader.resolve)?.dictionaryValue
        let merged = try PDFFormMerge.merge(existing, adding: forms, resolve: reader.resolve)
        if case .reference(let formReference)? = catalog["AcroForm"] {
            try writer.set(formReference, to: .dictionary(merged))
        } else {
            catalog["AcroForm"] = .reference(try writer.add(.dictionary(merged)))
            try writer.set(reader.tail.root, to: .dictionary(catalog))
        }
    }
}
