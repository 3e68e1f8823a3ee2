import Foundation
import Glibc
import TrapperCore

/// The capture path, written once for every way in (the inbox, the scanner, the command line):
///
/// 1. **claim**: the way in takes the input out of reach of other takers (`Inbox`: a rename into
///    its claims; `ScanCommit`: a finished batch from the spool; `IngestCommand`: a named file);
/// 2. **plan**: the router decides everything (`RoutePlan`: target, batch joined, mode, steps,
///    collation, separators, disposal), and the way in groups inputs into captures;
/// 3. **open pages** (`InputOpening`): a bad input is refused with its reason, alone or, for a
///    capture that goes in whole, with the others;
/// 4. **split** at separator sheets into documents, or pair a front pass with its back pass;
/// 5. **one revision per document**, its targets written down first (`pin`), duplicates skipped;
/// 6. **commit** (`Ingest` into the `TargetStore`: journal, fsync, rename);
/// 7. **follow-ups**: the store tells its `RevisionFeed` of the revision once it is durable, with
///    the pages to be read by OCR when the plan asks for it; the OCR queue and the live view subscribe;
/// 8. **dispose**: the way in archives, deletes or keeps the originals, removes the batch;
/// 9. **outcome**: one per input, as the way in reports it.
public struct CapturePipeline {
    public let store: TargetStore
    public let opener: any InputOpening
    public let clock: any Clock

    public init(store: TargetStore, opener: any InputOpening, clock: any Clock = SystemClock()) {
        self.store = store
        self.opener = opener
        self.clock = clock
    }

    /// Stages 3 to 9 for one capture.
    public func commit<W: CaptureWayIn>(_ capture: Capture, from wayIn: inout W) -> [JobOutcome] {
        let plan = capture.plan
        if plan.separator == nil, let refused = wayIn.refusal(forTarget: plan.targetPath) {
            return wayIn.refuse(capture.inputs, of: capture, because: .refused(target: plan.targetPath, reason: refused))
        }
        var outcomes: [JobOutcome] = []
        var opened: [Opened] = []
        for input in capture.inputs {
            do {
                opened.append(Opened(input: input, document: try opener.open(input.path, steps: plan.steps,
                                                                             blankIsEmpty: capture.blankIsEmpty)))
            } catch {
                if capture.whole { return wayIn.refuse(capture.inputs, of: capture, because: error) }
                outcomes += wayIn.refuse([input], of: capture, because: error)
            }
        }
        guard !opened.isEmpty else { return outcomes }
        if !opened.contains(where: { $0.document.pageCount > 0 }) {
            return outcomes + wayIn.refuse(opened.map(\.input), of: capture,
                                           because: .badInput(name: capture.label, reason: "every page is blank (blank = \"drop\")"))
        }
        return outcomes + (plan.separator == nil ? revise(opened, capture, &wayIn) : split(opened, capture, &wayIn))
    }

    struct Opened {
        var input: CaptureInput
        var document: any InputDocument
    }

    /// One revision of the plan's target for all the capture's inputs (those already in it left out).
    private func revise<W: CaptureWayIn>(_ opened: [Opened], _ capture: Capture, _ wayIn: inout W) -> [JobOutcome] {
        let plan = capture.plan, target = plan.targetPath, now = clock.now()
        var finished: [(input: CaptureInput, outcome: JobOutcome)] = []
        var ready = opened
        if capture.recovering, capture.claimed {
            // Claims a crash left: one whose revision the target's state counts went in before the
            // crash, whatever another program did to the file since (saved over it, appended to
            // it), and does not go in again.
            ready = ready.filter { item in
                guard store.hasApplied(claim: Self.claim(item), to: target) else { return true }
                finished.append((item.input, JobOutcome(input: item.input.name, result: .duplicate, rule: plan.rule, target: target,
                                                        reason: "in before a restart", date: now)))
                return false
            }
        }
        if capture.recovering || capture.skipDuplicates {
            let known = store.ingestedInputs(of: target)
            var seen = Set<String>()
            ready = ready.filter { item in
                let digest = SHA256.hex(item.document.sha256)
                guard known.contains(digest) || !seen.insert(digest).inserted else { return true }
                finished.append((item.input, JobOutcome(input: item.input.name, result: .duplicate, rule: plan.rule, target: target,
                                                        date: now)))
                return false
            }
        }
        var outcomes: [JobOutcome] = []
        if !ready.isEmpty {
            do {
                try wayIn.pin([target], for: capture)
            } catch {
                wayIn.unpin(capture)
                return later(ready.map(\.input), plan, reason: "\(error)", now)
            }
        }
        while !ready.isEmpty {
            do {
                let committed = try Ingest.run(Self.pair(ready, capture), into: target, at: plan.mode == .prepend ? .front : .end,
                                               store: store, note: capture.note, date: now,
                                               origin: capture.origin, claims: capture.claimed ? ready.map(Self.claim) : [],
                                               ocr: plan.steps.ocr)
                // Said after the pages are written: what a PDF's pages had taken out is counted as they go.
                for (item, reason) in zip(ready, Self.lines(ready, capture)) {
                    finished.append((item.input, JobOutcome(input: item.input.name, result: .ingested, rule: plan.rule, target: target,
                                                            pages: item.document.pageCount, end: committed.end, reason: reason,
                                                            date: now)))
                }
                ready = []
            } catch EngineError.badInput(let name, let reason) where !capture.whole && ready.contains(where: { $0.document.name == name }) {
                // One input failed while its pages were written: it goes, the others try again.
                let bad = ready.firstIndex { $0.document.name == name }!
                outcomes += wayIn.refuse([ready[bad].input], of: capture, because: .badInput(name: name, reason: reason))
                ready.remove(at: bad)
            } catch let error as EngineError {
                if case .io = error {
                    // A full disk, say: the inputs stay where the way in keeps them, for a later try.
                    outcomes += later(ready.map(\.input), plan, target: target, reason: error.description, now)
                } else {
                    outcomes += wayIn.refuse(ready.map(\.input), of: capture, because: error)
                }
                ready = []
            } catch {
                outcomes += wayIn.refuse(ready.map(\.input), of: capture, because: .unreadable(target: target, reason: "\(error)"))
                ready = []
            }
        }
        if !finished.isEmpty { outcomes += wayIn.dispose(finished, of: capture) }
        wayIn.unpin(capture)
        return outcomes
    }

    /// The claim of an input, for the store to keep with the revision it goes into: the file as
    /// it was claimed (its name, device and inode, which a rename keeps) and its content. The
    /// same after a restart, never the same for another file dropped later; no clock in it.
    static func claim(_ item: Opened) -> String {
        var status = stat()
        let file = lstat(item.input.path, &status) == 0 ? "\(status.st_dev) \(status.st_ino)" : "-"
        let text = "\(item.input.name)\n\(file)\n\(SHA256.hex(item.document.sha256))"
        return String(SHA256.hex(SHA256.hash(Array(text.utf8))).prefix(32))
    }

    /// What goes into the revision: a front and back pass interleaved when their page counts match;
    /// everything else as it is.
    static func pair(_ ready: [Opened], _ capture: Capture) -> [any InputDocument] {
        guard capture.pair, ready.count == 2, ready[0].document.pageCount == ready[1].document.pageCount else {
            return ready.map(\.document)
        }
        return [InterleavedInput(front: ready[0].document, back: ready[1].document)]
    }

    /// Each input's line: what its page steps did, or how it was paired.
    static func lines(_ ready: [Opened], _ capture: Capture) -> [String?] {
        guard capture.pair, ready.count == 2 else { return ready.map(\.document.stepsNote) }
        let (front, back) = (ready[0], ready[1])
        guard front.document.pageCount == back.document.pageCount else {
            let reason = "not collated: \(front.input.name) has \(front.document.pageCount) pages and \(back.input.name) "
                + "\(back.document.pageCount); both went in as they are"
            return [reason, reason]
        }
        return ["double-sided with \(back.input.name): \(front.document.pageCount * 2) pages interleaved",
                "double-sided: the back pass of \(front.input.name)"]
    }

    /// A new file for each document between the inputs' separator sheets, each a revision of its
    /// own. Every target is written down before the first document goes in; a retry or recovery
    /// sends each document to the same file and skips a file that already holds it.
    private func split<W: CaptureWayIn>(_ opened: [Opened], _ capture: Capture, _ wayIn: inout W) -> [JobOutcome] {
        let plan = capture.plan, now = clock.now()
        let inputs = opened.map(\.input)
        let documents = SegmentInput.split(opened.map(\.document), label: capture.label)
        guard !documents.isEmpty else {
            return wayIn.refuse(inputs, of: capture, because: .badInput(name: capture.label, reason: "holds only separator sheets"))
        }
        var targets = wayIn.pinnedTargets(capture)
        for document in documents.dropFirst(targets.count) {
            guard let documentPlan = wayIn.plan(forDocumentWith: document.barcode, of: capture, taken: Set(targets)) else {
                return wayIn.refuse(inputs, of: capture, because: .badInput(name: document.name, reason: "the rule no longer takes it"))
            }
            if let refused = wayIn.refusal(forTarget: documentPlan.targetPath) {
                return wayIn.refuse(inputs, of: capture, because: .refused(target: documentPlan.targetPath, reason: refused))
            }
            targets.append(documentPlan.targetPath)
        }
        do {
            try wayIn.pin(targets, for: capture)
        } catch {
            return later(inputs, plan, reason: "\(error)", now)
        }
        var written: [String] = []
        for (document, target) in zip(documents, targets) {
            if capture.recovering, store.ingestedInputs(of: target).contains(SHA256.hex(document.sha256)) {
                written.append(target)
                continue
            }
            do {
                _ = try Ingest.run([document], into: target, store: store, note: capture.note, date: now,
                                   origin: capture.origin, ocr: plan.steps.ocr)
                written.append(target)
                if written.count == 1, documents.count > 1 { CrashPoint.splitFirstWritten.hit() }
            } catch {
                let error = EngineError.from(error, target: target)
                let done = written.isEmpty ? "" : "; documents 1 to \(written.count) are in \(written.joined(separator: ", "))"
                if case .io = error {
                    // The targets stay written down: the next try writes the rest to the same files.
                    return later(inputs, plan, target: target, reason: error.description + done, now)
                }
                wayIn.unpin(capture)
                return wayIn.refuse(inputs, of: capture, because: .badInput(name: document.name, reason: "\(error)" + done))
            }
        }
        let summary = SegmentInput.summary(separators: opened.reduce(0) { $0 + $1.document.separators.count }, targets: targets)
        let pages = documents.reduce(0) { $0 + $1.pageCount }
        let outcomes = wayIn.dispose(inputs.map {
            ($0, JobOutcome(input: $0.name, result: .ingested, rule: plan.rule, target: targets[0], pages: pages, reason: summary,
                            date: now))
        }, of: capture)
        wayIn.unpin(capture)
        return outcomes
    }

    /// A temporary problem (a full disk, say): the inputs stay where the way in keeps them (the
    /// claims, the spool) and are tried again later.
    private func later(_ inputs: [CaptureInput], _ plan: RoutePlan, target: String? = nil, reason: String, _ now: Date)
        -> [JobOutcome]
    {
        inputs.map { JobOutcome(input: $0.name, result: .retryLater, rule: plan.rule, target: target, reason: reason, date: now) }
    }
}
