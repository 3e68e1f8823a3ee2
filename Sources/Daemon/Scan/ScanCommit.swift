import Foundation
import PDFAccess
import System
import TrapperCore

/// The scanner as a way in: finished scan batches from the spool go through the capture pipeline
/// into their targets, each as one revision (or, split at separator sheets, one new file per
/// document): the daemon after a button press, `pdftrapper scan`, and both at start for what an
/// earlier run left. A batch goes in whole or not at all.
public struct ScanCommit {
    public let config: Config
    let store: TargetStore
    let pipeline: CapturePipeline

    public init(config: Config, store: TargetStore, opener: (any InputOpening)? = nil,
                clock: any Clock = SystemClock()) {
        self.config = config
        self.store = store
        self.pipeline = CapturePipeline(store: store, opener: opener ?? InputFiles(config.limits), clock: clock)
    }

    /// Routes a complete batch (its target is written down first), appends its pages as one
    /// revision and removes it from the spool. An I/O problem leaves it in the spool for a later
    /// try (`retryLater`); anything else sends its pages to quarantine with the reason.
    public func commit(_ batch: ScanSpool.Batch) -> JobOutcome {
        let now = pipeline.clock.now()
        let manifest = batch.manifest
        let label = manifest.name
        guard !manifest.pages.isEmpty else {
            try? batch.remove()
            return JobOutcome(input: label, result: .quarantined, reason: "no pages", date: now)
        }
        let recovering = manifest.target != nil
        var opensBatch: RoutePlan? = nil
        if manifest.target == nil {
            guard let plan = plan(manifest, pages: batch.pagePaths, batches: openBatches()) else {
                return quarantine(batch, rule: nil, reason: "no rule takes scans (add a rule with source = \"scanner\", "
                                  + "or a target to profile \"\(manifest.profile)\")")
            }
            do {
                try batch.pin(target: plan.targetPath, prepend: plan.mode == .prepend, rule: plan.rule)
            } catch {
                return JobOutcome(input: label, result: .retryLater, rule: plan.rule, reason: "\(error)", date: now)
            }
            if plan.batch != nil { opensBatch = plan }
        }
        let target = batch.manifest.target!
        let rule = batch.manifest.rule
        let note = "\(label): profile \(manifest.profile) on \(manifest.device)" + (manifest.button.map { ", button \($0)" } ?? "")
        if recovering, alreadyIn(target, note: note) {
            try? batch.remove()
            return JobOutcome(input: label, result: .duplicate, rule: rule, target: target, pages: manifest.pages.count, date: now)
        }
        // The plan as written into the batch: a recovered batch goes where it was sent before.
        var plan = RoutePlan(rule: rule ?? "", ruleNumber: 0, target: target, targetPath: target,
                             mode: batch.manifest.prepend ? .prepend : .append, original: .delete, archivePath: nil)
        plan.steps = config.profiles.first { $0.name == manifest.profile }?.steps
            ?? config.rules.first { $0.name == rule }?.steps ?? PageSteps()
        // `--to` names one file: no splitting.
        if manifest.targetOverride != nil { plan.steps.separator = nil }
        var capture = Capture(batch.pagePaths.map { CaptureInput(path: $0, name: label, plan: plan) }, label: label)
        capture.whole = true
        capture.blankIsEmpty = true
        // A recovered batch's one revision was looked for by its note above; skipping its pages by
        // digest would drop a page the same as one already there (a blank sheet, a form scanned
        // again). A split batch's documents are each found by their digest in their own new file.
        capture.recovering = recovering && plan.separator != nil
        capture.note = note
        capture.madeBy = "scan"
        capture.profile = manifest.profile
        var wayIn = ScanWayIn(commit: self, batch: batch)
        let outcome = pipeline.commit(capture, from: &wayIn).first
            ?? JobOutcome(input: label, result: .retryLater, rule: rule, reason: "nothing came of the batch", date: now)
        if let opensBatch, outcome.result == .ingested { noteBatch(opensBatch) }
        return outcome
    }

    // MARK: Scan batches (`ingest = "batch"`)

    /// The open batches, one list with the inbox's (`OpenBatches`): the next press of the profile
    /// within the window joins the file the last batch went into, and a scan routed by a rule joins
    /// the batch an inbox file opened for it.
    func openBatches() -> [String: OpenBatch] {
        OpenBatches(config: config, files: store.folders, folders: store.folders).read()
    }

    /// The batch stays open from now, for its window.
    private func noteBatch(_ plan: RoutePlan) {
        let now = pipeline.clock.now()
        OpenBatches(config: config, files: store.folders, folders: store.folders).update(now: now) {
            $0[plan.rule] = OpenBatch(target: plan.targetPath, last: now)
        }
    }

    /// What earlier runs left in the spool: finished batches go in (once: a batch whose revision
    /// is already in its target is only removed); batches whose scan was cut short, and folders
    /// that are not batches, go to quarantine whole, never half into a target.
    public func recover(_ spool: ScanSpool, now: Date = Date()) -> [JobOutcome] {
        spool.leftOver().map { folder, batch in
            guard let batch else {
                let name = (folder as NSString).lastPathComponent
                let reason = "scan batch \(name) has no readable batch.json"
                quarantineFolder(folder, name: name, rule: nil, reason: reason)
                return JobOutcome(input: name, result: .quarantined, reason: reason, date: now)
            }
            guard batch.manifest.complete else {
                let count = batch.manifest.pages.count
                return quarantine(batch, rule: nil, reason: "the scan stopped before the feeder was empty (\(count) page"
                                  + "\(count == 1 ? "" : "s") of profile \(batch.manifest.profile)); not added to any file")
            }
            return commit(batch)
        }
    }

    /// The plan for a batch: `--to`, else the profile's own target, else the rules, which see a
    /// scan as `scan-ID.EXT` from source "scanner" with its button and profile, its size the bytes
    /// of its pages as stored (`FrontDoor`).
    /// For one document of a split batch, `barcode` and the files `taken` by the others; it always
    /// goes into a new file.
    func plan(_ manifest: ScanSpool.Manifest, pages: [String], barcode: String? = nil, taken: Set<String> = [],
              newFile: Bool = false, batches: [String: OpenBatch] = [:]) -> RoutePlan? {
        if let override = manifest.targetOverride {
            return RoutePlan(rule: "--to", ruleNumber: 0, target: override, targetPath: override, mode: .append,
                             original: .delete, archivePath: nil)
        }
        var input = FrontDoor(config: config).input(.scan(name: manifest.name, pages: pages, button: manifest.button,
                                                          profile: manifest.profile, started: manifest.started))
        input.barcode = barcode
        func planned(_ batches: [String: OpenBatch]) -> RoutePlan? {
            config.scanPlan(for: input, host: ProcessInfo.processInfo.hostName, newFile: newFile, batches: batches) {
                taken.contains($0) || FileManager.default.fileExists(atPath: $0)
            }
        }
        let plan = planned(batches)
        // A batch split at separator sheets makes new files; it joins none.
        if plan?.separator != nil, plan?.batch?.joins == true { return planned([:]) }
        return plan
    }

    /// Whether the target's history holds this batch's revision (a run that stopped between the
    /// revision and removing the batch).
    private func alreadyIn(_ target: String, note: String) -> Bool {
        guard let source = try? PDFFileSource(path: target),
              let history = try? RevisionHistory.read(source, decoder: FlateStreamDecoder()) else { return false }
        return history.contains { $0.record?.note == note }
    }

    /// A batch whose scan failed part-way: its pages to quarantine, none to a target.
    /// A batch whose scan failed part-way (`ScanSpool.failed`): `problem` hears of an event that
    /// could not be queued.
    public func failed(_ batch: ScanSpool.Batch, profile: String, reason: String, problem: (String) -> Void) -> JobOutcome {
        if let line = ScanSpool.failed(batch, profile: profile, device: batch.manifest.device, reason: reason,
                                       quarantine: config.inbox.quarantine, folders: store.folders, outbox: store.outbox) {
            problem(line)
        }
        return JobOutcome(input: batch.manifest.name, result: .quarantined, reason: "the scan failed: \(reason)")
    }

    func quarantine(_ batch: ScanSpool.Batch, rule: String?, reason: String) -> JobOutcome {
        ScanSpool.quarantine(batch.folder, name: batch.manifest.name, into: config.inbox.quarantine, rule: rule, reason: reason,
                             folders: store.folders, outbox: store.outbox)
        return JobOutcome(input: batch.manifest.name, result: .quarantined, rule: rule, reason: reason)
    }

    private func quarantineFolder(_ folder: String, name: String, rule: String?, reason: String) {
        ScanSpool.quarantine(folder, name: name, into: config.inbox.quarantine, rule: rule, reason: reason, folders: store.folders,
                             outbox: store.outbox)
    }
}

/// What the pipeline asks of a scan batch: its targets live in its batch.json, its pages are
/// removed from the spool once durable, and a refusal sends the whole batch to quarantine.
struct ScanWayIn: CaptureWayIn {
    let commit: ScanCommit
    let batch: ScanSpool.Batch

    func refusal(forTarget target: String) -> String? {
        // a target given with `scan --to` is the person's own choice, anywhere
        batch.manifest.targetOverride != nil ? nil : ConfinedFolders.targetRefusal(target, library: commit.config.library.root)
    }

    func plan(forDocumentWith barcode: String?, of capture: Capture, taken: Set<String>) -> RoutePlan? {
        commit.plan(batch.manifest, pages: batch.pagePaths, barcode: barcode, taken: taken, newFile: true)
    }

    func pinnedTargets(_ capture: Capture) -> [String] { batch.manifest.targets ?? [] }

    func pin(_ targets: [String], for capture: Capture) throws(Durable.Failure) {
        // One target was written down when the batch was routed; a split's are written now.
        if capture.plan.separator != nil { try batch.pin(targets: targets) }
        CrashPoint.scanSpooled.hit()
    }

    func unpin(_ capture: Capture) {}

    func dispose(_ finished: [(input: CaptureInput, outcome: JobOutcome)], of capture: Capture) -> [JobOutcome] {
        CrashPoint.scanCommitted.hit()
        try? batch.remove()
        // The batch is one line, its pages counted once (a split's outcome counts them already).
        guard var outcome = finished.first?.outcome else { return [] }
        outcome.rule = batch.manifest.rule
        if capture.plan.separator == nil {
            outcome.pages = finished.reduce(0) { $0 + ($1.outcome.pages ?? 0) }
            outcome.reason = nil
        }
        return [outcome]
    }

    func refuse(_ inputs: [CaptureInput], of capture: Capture, because error: EngineError) -> [JobOutcome] {
        [commit.quarantine(batch, rule: batch.manifest.rule, reason: error.description)]
    }
}
