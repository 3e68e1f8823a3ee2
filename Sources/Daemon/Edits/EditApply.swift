import Foundation
import PDFAccess
import TrapperCore

/// Carries out a parsed edit script on its target: undo and redo through the store; every other
/// edit inside ONE revision, checked against the document as it goes (pages exist, boxes fit the
/// page), so that a script either changes the target once or not at all.
public enum EditApply {
    public struct Applied: Sendable, Codable {
        public var target: String
        /// Where the revision ends in the file (its length after it), or after undo/redo the new length.
        public var end: Int
        public var operations: [String]
        public var pages: Int
        /// New files that `extract` made.
        public var extracted: [String] = []
    }

    /// A problem with one edit: its 1-based index in the script and the reason.
    public struct Refused: Error, CustomStringConvertible {
        public var edit: Int
        public var operation: String
        public var reason: String
        public var description: String { "edit \(edit) (\(operation)): \(reason)" }
    }

    /// Every edit that cannot be done against the document, each with its reason: all are checked
    /// before any is written, so a script's author sees each problem at once.
    public struct Refusals: Error, CustomStringConvertible {
        public var all: [Refused]
        public var description: String { all.map(\.description).joined(separator: "; ") }
    }

    /// `maxPages`: what the document may grow to (limits.max_pages_after_edit); an edit that would
    /// add pages past it is refused before it does anything.
    public static func run(_ script: EditScript, name: String, sha256: [UInt8], store: TargetStore,
                           signatures: SignatureLibrary, libraryRoot: String, purgeByDefault: Bool = false,
                           maxPages: Int = LimitsSettings().maxPagesAfterEdit, date: Date = Date(),
                           claim: String? = nil) throws -> Applied {
        // `claim`: the id of the claimed script, kept by the store with the change, so that the
        // script is known as applied after a crash (EditJob).
        // With base_end, the target must still end there when its lock is held: checked by the
        // store under the lock, so a revision that lands meanwhile is never undone or written over.
        let expected = script.onConflict == .fail ? script.baseEnd : nil
        let revision = script.onConflict == .fail ? script.baseRevision.flatMap(RevisionID.init) : nil
        if let only = script.edits.first, script.edits.count == 1 {
            switch only.operation {
            case .undo(let steps):
                let undone = try store.undo(target: script.target, steps: steps, expecting: expected, revision: revision, claim: claim)
                return Applied(target: script.target, end: undone.last?.base ?? 0,
                               operations: ["undo"], pages: 0)
            case .redo(let steps):
                var redone: [RevisionRecord] = []
                for step in 0..<steps {
                    redone.append(try store.redo(target: script.target, expecting: step == 0 ? expected : nil,
                                                  revision: step == 0 ? revision : nil, claim: claim))
                }
                return Applied(target: script.target, end: currentLength(script.target), operations: ["redo"], pages: 0)
            default:
                break
            }
        }
        // Checked now for a script that only extracts; inside the target's lock for one that writes it.
        try checkBase(script)
        var pageCount = 0, pagesBefore = 0
        var extracted: [String] = []
        var notes: [String] = []
        var readAgain: [(page: PDFReference, languages: [String])] = []
        /// Every edit on the editor, then the extracted files written (so that any edit that fails
        /// comes before any file is made).
        func edit(_ reader: PDFTailReader) throws -> PDFPageEditor {
            var editor = try PDFPageEditor(reader: reader)
            pagesBefore = editor.pageCount
            let context = MarkupContext(script: script, signatures: signatures, reader: reader, libraryRoot: libraryRoot,
                                        date: date)
            var refused: [Refused] = []
            for edit in script.edits {
                do {
                    let growth = try pagesAdded(by: edit.operation, pageCount: editor.pageCount)
                    if growth > 0, editor.pageCount + growth > max(maxPages, pagesBefore) {
                        throw EditApplyError("it would make \(editor.pageCount + growth) pages, more than "
                                             + "limits.max_pages_after_edit = \(maxPages); nothing was changed")
                    }
                    try apply(edit.operation, script, &editor, markup: context, date: date)
                } catch let one as Refused {
                    refused.append(one)
                } catch {
                    // The edit is left out and the next ones are checked on: nothing is written anyway.
                    refused.append(Refused(edit: edit.index, operation: edit.operation.name, reason: "\(error)"))
                }
            }
            if refused.count == 1 { throw refused[0] }
            if !refused.isEmpty { throw Refusals(all: refused) }
            pageCount = editor.pageCount
            (notes, readAgain) = (context.notes, context.readAgain)
            // Their events wait until the script stands: a refused script takes its new files back.
            let (outbox, feed) = (store.outbox, store.revisions)
            (store.outbox, store.revisions) = (nil, RevisionFeed())
            defer { (store.outbox, store.revisions) = (outbox, feed) }
            extracted = try context.writeExtracts(store: store, scriptName: name, sha256: sha256)
            return editor
        }
        var changedTarget = script.edits.contains { if case .extract = $0.operation { false } else { true } }
        var end = currentLength(script.target)
        // Pages cut again that had a text layer are read by OCR again once the revision stands.
        let reading = ReadingList()
        do {
            if changedTarget {
                end = try store.commit(target: script.target, claims: claim.map { [$0] } ?? [], reading: reading) { writer, reader in
                    guard let reader else { throw EngineError.unreadable(target: script.target, reason: "no such file") }
                    try checkBase(script)
                    let editor = try edit(reader)
                    for (page, languages) in readAgain { reading.add([page], languages: languages) }
                    // An erase that matched nothing, a move to where the pages stand: no revision.
                    guard editor.hasChanges else { throw NothingToWrite() }
                    let changes = try editor.write(into: &writer)
                    if let info = changes.info { writer.info = info }
                    return RevisionRecord(operation: .edit, date: date, base: 0, pagesAdded: editor.pageCount - pagesBefore,
                                          inputs: [.init(name: name, sha256: sha256, pages: 0)],
                                          note: "\(name): " + (script.edits.map(\.operation.name) + notes).joined(separator: ", "))
                }.end
            } else {
                // Only extracts: the target is read, never written.
                _ = try edit(try store.reader(script.target))
            }
        } catch is NothingToWrite {
            changedTarget = false
        } catch {
            // The script did not happen: neither do the files it would have made.
            for path in extracted { try? FileManager.default.removeItem(atPath: path) }
            throw error
        }
        for path in extracted { store.announceMade(path, madeBy: "edit") }
        var operations = script.edits.map(\.operation.name)
        if changedTarget, script.purge ?? purgeByDefault {
            // Deleted pages live on in earlier revisions until the file is rewritten without them.
            _ = try store.rewriteWhole(target: script.target, .compact(linearize: false))
            operations.append("purge")
            end = currentLength(script.target)
        }
        return Applied(target: script.target, end: end, operations: operations, pages: pageCount, extracted: extracted)
    }

    /// `base_end`: the target must still end where the script's author saw it end; and
    /// `base_revision`: it must still be the revision the author saw (same end, same bytes).
    static func checkBase(_ script: EditScript) throws {
        guard script.onConflict == .fail else { return }
        if let base = script.baseEnd {
            let now = currentLength(script.target)
            guard now == base else { throw Refused(edit: 0, operation: "base_end", reason: baseMoved(base, now)) }
        }
        if let expected = script.baseRevision.flatMap(RevisionID.init), let now = TargetStore.revision(of: script.target),
           now != expected {
            throw Refused(edit: 0, operation: "base_revision", reason: TargetStore.revisionMoved(expected, now))
        }
    }

    public static func baseMoved(_ base: Int, _ now: Int) -> String {
        "the target has changed since it ended at byte \(base) (it now ends at byte \(now)); "
            + "write the script against the current revision, or set on_conflict = \"apply\""
    }

    public static func currentLength(_ path: String) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: path)[.size]) as? NSNumber)?.intValue ?? 0
    }

    /// Pages an edit adds to a document of `pageCount` pages, known before it runs.
    static func pagesAdded(by operation: EditOperation, pageCount: Int) throws -> Int {
        switch operation {
        case .duplicate(let pages): try pages.resolve(pageCount: pageCount).count
        case .insertBlank: 1
        default: 0
        }
    }

    private static func apply(_ operation: EditOperation, _ script: EditScript, _ editor: inout PDFPageEditor,
                              markup: MarkupContext, date: Date) throws {
        switch operation {
        case .rotate(let pages, let degrees):
            try editor.rotate(pages.resolve(pageCount: editor.pageCount), by: degrees)
        case .delete(let pages):
            try editor.delete(pages.resolve(pageCount: editor.pageCount))
        case .move(let pages, let to):
            let indexes = try pages.resolve(pageCount: editor.pageCount)
            switch to {
            case .end: try editor.move(indexes, before: nil)
            case .before(let page):
                guard page >= 1, page <= editor.pageCount + 1 else {
                    throw EditApplyError("to = \(page): the document has \(editor.pageCount) pages")
                }
                try editor.move(indexes, before: page - 1)
            }
        case .insertBlank(let after, let size):
            guard after >= 0, after <= editor.pageCount else {
                throw EditApplyError("after = \(after): the document has \(editor.pageCount) pages")
            }
            let (width, height): (Double, Double)
            switch size {
            case .named(_, let w, let h)?: (width, height) = (w, h)
            case .custom(let w, let h)?: (width, height) = (w * script.units.points, h * script.units.points)
            case nil:
                let box = try editor.mediaBox(ofPage: max(0, after - 1))
                (width, height) = (box[2] - box[0], box[3] - box[1])
            }
            try editor.insertBlank(at: after, width: width, height: height)
        case .duplicate(let pages):
            try editor.duplicate(pages.resolve(pageCount: editor.pageCount))
        case .crop(let pages, let box):
            for index in try pages.resolve(pageCount: editor.pageCount) {
                let frame = try markup.frame(editor, page: index)
                try editor.crop([index], to: frame.toUser(frame.shown(box)).numbers)
            }
        case .metadata(let title, let author, let subject, let keywords):
            try editor.setInfo(title: title, author: author, subject: subject, keywords: keywords, modified: date)
        case .bookmark(let title, let page):
            guard page >= 1, page <= editor.pageCount else {
                throw EditApplyError("page \(page) of a \(editor.pageCount)-page document")
            }
            try editor.addBookmark(title: title, page: page - 1)
        case .extract(let pages, let into):
            let indexes = try pages.resolve(pageCount: editor.pageCount)
            try markup.planExtract(into, pages: try editor.snapshot(indexes), selection: pages)
        case .undo, .redo:
            throw EditApplyError("undo and redo stand alone in a script")
        case .markup, .signature, .erase, .change, .loupe:
            try applyMarkup(operation, markup, &editor)
        case .reframe(let page, let corners):
            try reframe(page: page, corners: corners, markup, &editor)
        }
    }
}

/// Thrown out of a commit whose work changed nothing (an edit script's, OCR's), so that no empty
/// revision is written: the store rolls back, and the caller takes it as done.
struct NothingToWrite: Error {}

struct EditApplyError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

extension EditOperation {
    /// The op's name as scripts write it.
    public var name: String {
        switch self {
        case .rotate: "rotate"
        case .delete: "delete"
        case .move: "move"
        case .insertBlank: "insert-blank"
        case .duplicate: "duplicate"
        case .extract: "extract"
        case .crop: "crop"
        case .metadata: "metadata"
        case .bookmark: "bookmark"
        case .markup(let markup): markup.op
        case .signature: "signature"
        case .erase: "erase"
        case .change: "change"
        case .loupe: "loupe"
        case .reframe: "reframe"
        case .undo: "undo"
        case .redo: "redo"
        }
    }
}
