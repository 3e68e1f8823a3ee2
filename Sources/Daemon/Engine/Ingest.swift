import Foundation
import TrapperCore

/// The ingest operation: every page of every input, in order, into one revision of the target,
/// at its end or its front. The daemon and `pdftrapper ingest` both come here.
public enum Ingest {
    public static func run(_ inputs: [any InputDocument], into target: String, at position: PDFPagePosition = .end,
                           store: TargetStore, note: String? = nil, date: Date = Date()) throws -> TargetStore.Committed {
        try store.commit(target: target) { writer, reader in
            var pages: [PDFReference] = []
            let parent: PDFReference
            let existingRoot: PDFDictionary?
            if let reader {
                (parent, existingRoot) = try PDFPageTree.root(of: reader)
            } else {
                writer.root = writer.reserve()
                parent = writer.reserve()
                existingRoot = nil
            }
            for input in inputs {
                for index in 0..<input.pageCount {
                    let page = try input.writePage(index, into: &writer)
                    pages.append(try PDFPageTree.writePage(page, parent: parent, into: &writer))
                }
            }
            if let reader, let existingRoot {
                try PDFPageTree.attach(pages, at: position, root: parent, dictionary: existingRoot, reader: reader, into: &writer)
            } else if let catalog = writer.root {
                try PDFPageTree.writeNewRoot(pages, root: parent, catalog: catalog, into: &writer)
            }
            return RevisionRecord(operation: .ingest, date: date, base: 0, pagesAdded: pages.count, position: position,
                                  inputs: inputs.map { .init(name: $0.name, sha256: $0.sha256, pages: $0.pageCount) },
                                  note: note)
        }
    }
}
