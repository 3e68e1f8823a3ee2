import Foundation
import PDFAccess
import System
import TrapperCore

/// The markup ops, `signature` and `erase`: each placed on its page through the page's frame (its
/// box and rotation as the script's author sees it), then handed to the page editor.
extension EditApply {
    /// What markup needs beyond the editor: the saved signatures, and the target as it is on disk
    /// for `text =` searches (opened once, on the first search).
    final class MarkupContext {
        let script: EditScript
        let signatures: SignatureLibrary
        let reader: PDFTailReader
        let libraryRoot: String
        let date: Date
        /// New files `extract` makes once every edit has been done.
        private(set) var extracts: [(path: String, pages: [PDFPageSnapshot], selection: PageSelection)] = []
        /// What edits did beyond their names, for the history ("page 2 reframe: A4 sheet …").
        var notes: [String] = []
        /// Pages whose text layer an edit took away, to be read by OCR again.
        var readAgain: [(page: PDFReference, languages: [String])] = []
        private var search: PDFTextSearch?
        /// The document as it is on disk, for the box and rotation poppler measures a page by.
        private var original: PDFPageEditor?

        init(script: EditScript, signatures: SignatureLibrary, reader: PDFTailReader, libraryRoot: String, date: Date) {
            self.script = script
            self.signatures = signatures
            self.reader = reader
            self.libraryRoot = (libraryRoot as NSString).standardizingPath
            self.date = date
        }

        /// Where `extract` puts its pages: the template rendered for the target (its {stem},
        /// {folder}, the date), a file that does not exist yet. With {seq}, the lowest free number.
        func planExtract(_ template: PathTemplate, pages: [PDFPageSnapshot], selection: PageSelection) throws {
            let relative = script.target.hasPrefix(libraryRoot + "/") ? String(script.target.dropFirst(libraryRoot.count + 1))
                : (script.target as NSString).lastPathComponent
            let values = TemplateValues(date: date, relativePath: relative, rule: "extract", source: .inbox)
            let planned = Set(extracts.map(\.path))
            func taken(_ path: String) -> Bool { planned.contains(path) || FileManager.default.fileExists(atPath: path) }
            var path = libraryRoot + "/" + template.render(values)
            if template.usesSequence {
                var sequence = 1
                while taken(libraryRoot + "/" + template.render(values, sequence: sequence)) { sequence += 1 }
                path = libraryRoot + "/" + template.render(values, sequence: sequence)
            } else if taken(path) {
                throw EditApplyError("\(path) exists already; extract makes a new file (put {seq} in the template for a free name)")
            }
            guard path.lowercased().hasSuffix(".pdf"), path != script.target,
                  ConfinedFolders.isTarget(path, inLibrary: libraryRoot) else {
                throw EditApplyError("\(path) is not a PDF below the library \(libraryRoot)")
            }
            extracts.append((path, pages, selection))
        }

        /// Writes each planned extract as a new file with its own history; returns their paths.
        func writeExtracts(store: TargetStore, scriptName: String, sha256: [UInt8]) throws -> [String] {
            var made: [String] = []
            do {
                for extract in extracts {
                    _ = try store.commit(target: extract.path) { writer, existing in
                        guard existing == nil else { throw EditApplyError("\(extract.path) appeared while the script ran") }
                        writer.root = try PDFPageEditor.writeDocument(extract.pages, into: &writer)
                        let source = (script.target as NSString).lastPathComponent
                        return RevisionRecord(operation: .edit, date: date, base: 0, pagesAdded: extract.pages.count,
                                              inputs: [.init(name: scriptName, sha256: sha256, pages: extract.pages.count)],
                                              note: "\(scriptName): extract pages \(extract.selection) of \(source)")
                    }
                    made.append(extract.path)
                }
            } catch {
                for path in made { try? FileManager.default.removeItem(atPath: path) }
                throw error
            }
            return made
        }

        func frame(_ editor: PDFPageEditor, page index: Int) throws -> PageFrame {
            PageFrame(mediaBox: try editor.mediaBox(ofPage: index), rotation: try editor.rotation(ofPage: index),
                      units: script.units, origin: script.origin)
        }

        /// Each place `text` stands on the page at `index`, as rectangles in the page's shown
        /// space (media box corner, as scripts measure), one list per place.
        func find(_ text: String, page index: Int, _ editor: PDFPageEditor, frame: PageFrame) throws -> [[Rect]] {
            guard let reference = try editor.reference(ofPage: index) else {
                throw EditApplyError("page \(index + 1) is new in this script; text = finds text on pages already in the file")
            }
            if search == nil { search = try PDFTextSearch(path: script.target) }
            if original == nil { original = try PDFPageEditor(reader: reader) }
            guard let originalIndex = try original!.index(ofPage: reference) else {
                throw EditApplyError("page \(index + 1) cannot be found in the file as it is on disk")
            }
            // Poppler measures from the crop box's corner, with the rotation the file gives the page.
            let popplerFrame = PageFrame(mediaBox: try original!.cropBox(ofPage: originalIndex),
                                         rotation: try original!.rotation(ofPage: originalIndex))
            let places = try search!.find(text, onPage: reference)
            guard !places.isEmpty else {
                guard try search!.hasText(onPage: reference) else {
                    throw EditApplyError("page \(index + 1) has no text to find \"\(text)\" in (a scan without OCR?); "
                                         + "run pdftrapper ocr on the file first, or give rects")
                }
                throw EditApplyError("text \"\(text)\" is not on page \(index + 1)")
            }
            // A page rotated since (an earlier edit of this script) is shown turned: place the marks on the same words.
            return places.map { $0.map { frame.toShown(popplerFrame.toUser($0)) } }
        }
    }

    static func applyMarkup(_ operation: EditOperation, _ context: MarkupContext, _ editor: inout PDFPageEditor) throws {
        switch operation {
        case .markup(let markup):
            let index = try pageIndex(markup.page, editor)
            let frame = try context.frame(editor, page: index)
            var found: [[Rect]] = []
            if case .text(_, .text(let text)) = markup.shape { found = try context.find(text, page: index, editor, frame: frame) }
            let drafts = try AnnotationBuilder.annotations(markup, frame: frame, found: found, date: context.date)
            try editor.annotate(index, drafts)
        case .signature(let placement):
            let index = try pageIndex(placement.page, editor)
            let art = try context.signatures.load(placement.name)
            let draft = try AnnotationBuilder.signature(placement, art: art, frame: try context.frame(editor, page: index),
                                                        date: context.date)
            if placement.flatten {
                try editor.flatten(index, draft.appearance)
            } else {
                try editor.annotate(index, [draft])
            }
        case .erase(let filter):
            let indexes = try filter.pages.resolve(pageCount: editor.pageCount)
            var regions: [Int: Rect] = [:]
            if let region = filter.region {
                for index in indexes {
                    let frame = try context.frame(editor, page: index)
                    regions[index] = frame.toUser(frame.shown(region))
                }
            }
            let subtypes = filter.kinds.map { Set($0.map(AnnotationKinds.subtype)) }
            try editor.erase(indexes, ids: filter.ids) { annotation in
                if let ids = filter.ids, !ids.contains(annotation.id) { return false }
                if let subtypes, !subtypes.contains(annotation.subtype) { return false }
                if let author = filter.author, annotation.author?.lowercased() != author.lowercased() { return false }
                if let region = regions[annotation.page], !(annotation.rect.map(region.intersects) ?? false) { return false }
                if filter.madeByPDFTrapper, !annotation.madeByPDFTrapper { return false }
                return true
            }
        case .loupe(let placement):
            let index = try pageIndex(placement.page, editor)
            let draft = try AnnotationBuilder.loupe(placement, page: try editor.contentForm(ofPage: index),
                                                    frame: try context.frame(editor, page: index), date: context.date)
            try editor.annotate(index, [draft])
        case .change(let change):
            let index = try pageIndex(change.page, editor)
            let frame = try context.frame(editor, page: index)
            let id = change.copy ? AnnotationBuilder.newID() : change.id
            // A loupe is drawn again where it goes, from the page's content.
            let isLoupe = try editor.annotations(ofPage: index).contains {
                $0.id == change.id && $0.subtype == "Stamp" && $0.contents?.hasPrefix(AnnotationBuilder.loupePrefix) == true
            }
            let loupePage = isLoupe ? try editor.contentForm(ofPage: index) : nil
            try editor.change(index, id: change.id, copy: change.copy) { source in
                try AnnotationRewrite.rewrite(source.dictionary, change, frame: frame, date: context.date, id: id,
                                              stamp: source.stamp, loupePage: loupePage, resolve: source.resolve)
            }
        default:
            break
        }
    }

    static func pageIndex(_ page: Int, _ editor: PDFPageEditor) throws -> Int {
        guard page >= 1, page <= editor.pageCount else {
            throw EditApplyError("page \(page) of a \(editor.pageCount)-page document")
        }
        return page - 1
    }
}
