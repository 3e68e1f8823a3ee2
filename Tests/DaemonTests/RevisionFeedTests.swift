import Daemon
import Foundation
import PDFAccess
import TestSupport
import Testing
import TrapperCore

/// The one publish: every change a store makes is told once, after it is durable, with what made
/// it; revisions other processes (and other programs) make are found in the library through
/// inotify and told once too; nothing else below the library is.
@Suite struct RevisionFeedTests {
    final class Recorder: RevisionSubscriber, @unchecked Sendable {
        private let lock = NSLock()
        private var heard: [RevisionCommitted] = []
        var events: [RevisionCommitted] { lock.withLock { heard } }
        func revisionCommitted(_ event: RevisionCommitted) { lock.withLock { heard.append(event) } }

        /// What was told of `target`: (operation, end, found elsewhere).
        func told(_ target: String) -> [String] {
            events.filter { $0.target == target }.map { "\($0.operation) \($0.end)\($0.elsewhere ? " elsewhere" : "")" }
        }
    }

    static let rules = """
        [[rule]]
        name = "all"
        target = "All.pdf"

        """

    static func size(_ path: String) -> Int { (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? -1 }

    /// One revision that turns page 1, as an edit script's would be.
    static func turnFirstPage(_ store: TargetStore, _ target: String) throws {
        _ = try store.commit(target: target) { writer, reader in
            guard let reader else { throw EngineError.unreadable(target: target, reason: "no such file") }
            var editor = try PDFPageEditor(reader: reader)
            try editor.rotate([0], by: 90)
            _ = try editor.write(into: &writer)
            return RevisionRecord(operation: .edit, date: Date(), base: 0, pagesAdded: 0, inputs: [])
        }
    }

    @Test func everyChangeAStoreMakesIsToldOnceWithWhatMadeIt() throws {
        let setup = try InboxTests.Setup(rules: Self.rules)
        let recorder = Recorder()
        setup.rewire(revisions: RevisionFeed([recorder]))
        let target = setup.config.library.root + "/All.pdf"
        var expected: [String] = []
        func check(_ operation: String) {
            expected.append("\(operation) \(Self.size(target))")
            #expect(recorder.told(target) == expected)
        }
        _ = try setup.drop("a.jpg")
        #expect(setup.job.take([setup.arrival("a.jpg")]).map(\.result) == [.ingested])
        check("created")
        _ = try setup.drop("b.jpg", width: 321)
        #expect(setup.job.take([setup.arrival("b.jpg")]).map(\.result) == [.ingested])
        check("ingest")
        try Self.turnFirstPage(setup.store, target)
        check("edit")
        _ = try setup.store.undo(target: target)
        check("undo")
        _ = try setup.store.redo(target: target)
        check("redo")
        _ = try setup.store.rewriteWhole(target: target, .compact(linearize: false))
        check("compact")
        _ = try setup.store.undo(target: target)
        check("undo")
        // A change refused tells nothing.
        #expect(throws: EngineError.self) { try setup.store.redo(target: target, expecting: 1) }
        #expect(recorder.told(target) == expected)
        try PDFReaders.requireAllAgree(target, pages: 2)
    }

    /// A scratch library watched, told to `feed`; stopped when the test ends.
    final class Watched {
        let watch: LibraryWatch

        init(_ root: String, _ feed: RevisionFeed) throws {
            let started = LibraryWatch.start(root: root, feed: feed, log: { line in Issue.record(Comment(rawValue: line)) })
            watch = try #require(started)
        }

        deinit { watch.stop() }
    }

    /// What the watch has seen up to now: a PDF another program writes afterwards is waited for,
    /// and inotify tells of changes in the order they were made.
    static func drain(_ library: String, _ recorder: Recorder, _ mark: inout Int) throws {
        mark += 1
        let sentinel = library + "/Sentinel-\(mark).pdf"
        try TextPDF.make(sentinel, lines: [(20, 20, 12, "sentinel \(mark)")])
        #expect(eventually(timeout: 20) { !recorder.told(sentinel).isEmpty }, "the watch never saw \(sentinel)")
    }

    @Test func revisionsThisProcessMakesAreToldByTheStoreAloneThoughTheWatchSeesThem() throws {
        let setup = try InboxTests.Setup(rules: Self.rules)
        let recorder = Recorder()
        let feed = RevisionFeed([recorder])
        setup.rewire(revisions: feed)
        let library = setup.config.library.root
        let watched = try Watched(library, feed)
        let target = library + "/All.pdf"
        for (index, name) in ["a.jpg", "b.jpg", "c.jpg"].enumerated() {
            _ = try setup.drop(name, width: 200 + index)
            #expect(setup.job.take([setup.arrival(name)]).map(\.result) == [.ingested])
        }
        try Self.turnFirstPage(setup.store, target)
        _ = try setup.store.undo(target: target)
        var mark = 0
        try Self.drain(library, recorder, &mark)
        let told = recorder.told(target)
        #expect(told.count == 5 && !told.contains { $0.hasSuffix("elsewhere") }, "\(told)")
        withExtendedLifetime(watched) {}
    }

    /// The watch reads a file, then tells what it found; a change of this process may come in
    /// between (seen on a busy machine: an edit found, the store's undo told, then the edit told
    /// again as another process's, and the undo after it). What was read before the store moved the
    /// file is stale and not told; what is read after is, when it is new.
    @Test func aRevisionFoundBeforeThisProcessChangedTheFileIsNotToldAfterIt() throws {
        let setup = try InboxTests.Setup(rules: Self.rules)
        let recorder = Recorder()
        let feed = RevisionFeed([recorder])
        setup.rewire(revisions: feed)
        let target = setup.config.library.root + "/All.pdf"
        for (index, name) in ["a.jpg", "b.jpg"].enumerated() {
            _ = try setup.drop(name, width: 200 + index)
            #expect(setup.job.take([setup.arrival(name)]).map(\.result) == [.ingested])
        }
        try Self.turnFirstPage(setup.store, target)
        let edited = Self.size(target)
        // Read by the watch now, told only after the store's undo.
        let readAt = feed.moves(target)
        _ = try setup.store.undo(target: target)
        feed.publish(RevisionCommitted(target: target, base: 0, end: edited, operation: "edit", elsewhere: true), readAt: readAt)
        #expect(!recorder.told(target).contains { $0.hasSuffix("elsewhere") }, "\(recorder.told(target))")
        // Another program's save read after the undo is told.
        feed.publish(RevisionCommitted(target: target, base: 0, end: edited + 10, operation: "changed", elsewhere: true),
                     readAt: feed.moves(target))
        #expect(recorder.told(target).last == "changed \(edited + 10) elsewhere", "\(recorder.told(target))")
    }

    @Test func revisionsOtherProcessesAndProgramsMakeAreFoundOnce() throws {
        let setup = try InboxTests.Setup(rules: Self.rules)
        let library = setup.config.library.root
        let recorder = Recorder()
        let feed = RevisionFeed([recorder])
        let watched = try Watched(library, feed)
        // Another process: a store whose revisions this feed is not told of.
        let target = library + "/All.pdf"
        _ = try setup.drop("a.jpg")
        #expect(setup.job.take([setup.arrival("a.jpg")]).map(\.result) == [.ingested])
        let created = Self.size(target)
        #expect(eventually { recorder.told(target) == ["created \(created) elsewhere"] }, "\(recorder.told(target))")
        try Self.turnFirstPage(setup.store, target)
        let edited = Self.size(target)
        #expect(eventually { recorder.told(target).last == "edit \(edited) elsewhere" }, "\(recorder.told(target))")
        _ = try setup.store.undo(target: target)
        #expect(eventually { recorder.told(target).last == "undo \(created) elsewhere" }, "\(recorder.told(target))")

        // Another program: a PDF written in a folder made after the watch began, and one saved
        // anew over a document (written beside it, renamed over it).
        try FileManager.default.createDirectory(atPath: library + "/2026/12", withIntermediateDirectories: true)
        let made = library + "/2026/12/Made elsewhere.pdf"
        try TextPDF.make(made, lines: [(20, 20, 12, "made by another program")])
        #expect(eventually { recorder.told(made) == ["changed \(Self.size(made)) elsewhere"] }, "\(recorder.told(made))")
        let beside = library + "/.All.pdf.saving"
        try TextPDF.make(beside, lines: [(20, 20, 12, "saved anew")])
        #expect(rename(beside, target) == 0)
        #expect(eventually { recorder.told(target).last == "changed \(Self.size(target)) elsewhere" }, "\(recorder.told(target))")

        // Not documents: hidden files and folders (the state folder), other files, and a PDF still
        // being written (it does not end as a whole PDF does) until it is whole.
        let hidden = library + "/.hidden.pdf"
        try TextPDF.make(hidden, lines: [(20, 20, 12, "hidden")])
        try FileManager.default.createDirectory(atPath: library + "/.pdftrapper", withIntermediateDirectories: true)
        try TextPDF.make(library + "/.pdftrapper/inside.pdf", lines: [(20, 20, 12, "state")])
        try Data("not a document".utf8).write(to: URL(fileURLWithPath: library + "/notes.txt"))
        let partial = library + "/Partial.pdf"
        let whole = try Data(contentsOf: URL(fileURLWithPath: hidden))
        try whole.prefix(whole.count / 2).write(to: URL(fileURLWithPath: partial))
        var mark = 0
        try Self.drain(library, recorder, &mark)
        let names = Set(recorder.events.map { ($0.target as NSString).lastPathComponent })
        #expect(names == ["All.pdf", "Made elsewhere.pdf", "Sentinel-1.pdf"], "\(names)")
        try whole.write(to: URL(fileURLWithPath: partial))
        #expect(eventually { recorder.told(partial) == ["changed \(whole.count) elsewhere"] }, "\(recorder.told(partial))")
        withExtendedLifetime(watched) {}
    }
}
