import Foundation
import Hashing
import PDFAccess
import TrapperCore

/// Takes finished scan batches from the spool into their targets, each as one revision: the
/// daemon after a button press, `pdftrapper scan`, and both at start for what an earlier run left.
public struct ScanCommit {
    public let config: Config
    let store: TargetStore
    var inputs: InputFiles { InputFiles(config.limits) }

    public init(config: Config, store: TargetStore) {
        self.config = config
        self.store = store
    }

    /// Routes a complete batch (its target is written down first), appends its pages as one
    /// revision and removes it from the spool. An I/O problem leaves it in the spool for a later
    /// try (`retryLater`); anything else sends its pages to quarantine with the reason.
    public func commit(_ batch: ScanSpool.Batch, now: Date = Date()) -> JobOutcome {
        let manifest = batch.manifest
        let label = manifest.name
        guard !manifest.pages.isEmpty else {
            try? batch.remove()
            return JobOutcome(input: label, result: .quarantined, reason: "no pages", date: now)
        }
        let recovering = manifest.target != nil
        if manifest.target == nil {
            guard let plan = plan(manifest, firstPage: batch.pagePaths[0]) else {
                return quarantine(batch, rule: nil, reason: "no rule takes scans (add a rule with source = \"scanner\", "
                                  + "or a target to profile \"\(manifest.profile)\")")
            }
            do {
                try batch.pin(target: plan.targetPath, prepend: plan.mode == .prepend, rule: plan.rule)
            } catch {
                return JobOutcome(input: label, result: .retryLater, rule: plan.rule, reason: "\(error)", date: now)
            }
        }
        let target = batch.manifest.target!
        let rule = batch.manifest.rule
        if manifest.targetOverride == nil, !ConfinedFolders.isTarget(target, inLibrary: config.library.root) {
            return quarantine(batch, rule: rule, reason: "target \(target) would be outside the library \(config.library.root)")
        }
        let note = "\(label): profile \(manifest.profile) on \(manifest.device)" + (manifest.button.map { ", button \($0)" } ?? "")
        if recovering, alreadyIn(target, note: note) {
            try? batch.remove()
            return JobOutcome(input: label, result: .duplicate, rule: rule, target: target, pages: manifest.pages.count, date: now)
        }
        do {
            let steps = config.profiles.first { $0.name == manifest.profile }?.steps
                ?? config.rules.first { $0.name == rule }?.steps ?? PageSteps()
            let documents = try batch.pagePaths.map { path throws(EngineError) in
                try inputs.open(path, steps: steps, blankIsEmpty: true)
            }
            if steps.separator != nil, manifest.targetOverride == nil {
                return try commitSplit(batch, documents, rule: rule, note: note, ocr: steps.ocr, recovering: recovering, now: now)
            }
            guard documents.contains(where: { $0.pageCount > 0 }) else {
                return quarantine(batch, rule: rule, reason: "every scanned page is blank (blank = \"drop\")")
            }
            CrashPoint.scanSpooled.hit()
            let committed = try Ingest.run(documents, into: target, at: batch.manifest.prepend ? .front : .end,
                                           store: store, note: note, date: now)
            OCRQueue.enqueue(committed, languages: steps.ocr, store: store)
            CrashPoint.scanCommitted.hit()
            try? batch.remove()
            return JobOutcome(input: label, result: .ingested, rule: rule, target: target,
                              pages: committed.record.pagesAdded, end: committed.end, date: now)
        } catch let error as EngineError {
            if case .io = error {
                return JobOutcome(input: label, result: .retryLater, rule: rule, target: target, reason: error.description, date: now)
            }
            return quarantine(batch, rule: rule, reason: error.description)
        } catch {
            return quarantine(batch, rule: rule, reason: "\(error)")
        }
    }

    /// A batch with separator sheets: each document between them becomes a new file, routed with
    /// `{barcode}` from the sheet before it. The files are chosen and written into the batch before
    /// the first document goes in, so that a retry (or recovery) fills the same ones, skipping a
    /// file that already holds its document's first page.
    private func commitSplit(_ batch: ScanSpool.Batch, _ pages: [any InputDocument], rule: String?, note: String,
                             ocr: [String], recovering: Bool, now: Date) throws -> JobOutcome {
        let label = batch.manifest.name
        let documents = SegmentInput.split(pages, label: label)
        guard !documents.isEmpty else {
            return quarantine(batch, rule: rule, reason: "the batch holds only separator sheets (or blank pages)")
        }
        var targets = batch.manifest.targets ?? []
        for document in documents.dropFirst(targets.count) {
            let taken = Set(targets)
            guard let plan = plan(batch.manifest, firstPage: batch.pagePaths[0], barcode: document.barcode, taken: taken,
                                 newFile: true),
                  ConfinedFolders.isTarget(plan.targetPath, inLibrary: config.library.root) else {
                return quarantine(batch, rule: rule, reason: "no target inside the library \(config.library.root) for \(document.name)")
            }
            targets.append(plan.targetPath)
        }
        try batch.pin(targets: targets)
        CrashPoint.scanSpooled.hit()
        for (document, target) in zip(documents, targets) {
            if recovering, store.ingestedInputs(of: target).contains(SHA256.hex(document.sha256)) { continue }
            let committed = try Ingest.run([document], into: target, store: store, note: note, date: now)
            OCRQueue.enqueue(committed, languages: ocr, store: store)
        }
        CrashPoint.scanCommitted.hit()
        try? batch.remove()
        return JobOutcome(input: label, result: .ingested, rule: rule, target: targets[0],
                          pages: documents.reduce(0) { $0 + $1.pageCount },
                          reason: SegmentInput.summary(separators: pages.reduce(0) { $0 + $1.separators.count }, targets: targets),
                          date: now)
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
            return commit(batch, now: now)
        }
    }

    /// The plan for a batch: `--to`, else the profile's own target, else the rules, which see a
    /// scan as `scan-ID.EXT` from source "scanner" with its button and profile.
    /// For one document of a split batch, `barcode` and the files `taken` by the others; it always
    /// goes into a new file.
    func plan(_ manifest: ScanSpool.Manifest, firstPage: String, barcode: String? = nil, taken: Set<String> = [],
              newFile: Bool = false) -> RoutePlan? {
        if let override = manifest.targetOverride {
            return RoutePlan(rule: "--to", ruleNumber: 0, target: override, targetPath: override, mode: .append,
                             original: .delete, archivePath: nil)
        }
        let head = (try? PDFFileSource(path: firstPage).read(offset: 0, count: FileKind.sniffLength)) ?? []
        let input = RouteInput(relativePath: manifest.name + "." + (firstPage as NSString).pathExtension,
                               bytes: Int64(manifest.pages.count), kind: FileKind.sniff(head), source: .scanner,
                               button: manifest.button, profile: manifest.profile, date: manifest.started, barcode: barcode)
        return config.scanPlan(for: input, host: ProcessInfo.processInfo.hostName, newFile: newFile) {
            taken.contains($0) || FileManager.default.fileExists(atPath: $0)
        }
    }

    /// Whether the target's history holds this batch's revision (a run that stopped between the
    /// revision and removing the batch).
    private func alreadyIn(_ target: String, note: String) -> Bool {
        guard let source = try? PDFFileSource(path: target),
              let history = try? RevisionHistory.read(source, decoder: FlateStreamDecoder()) else { return false }
        return history.contains { $0.record?.note == note }
    }

    /// A batch whose scan failed part-way: its pages to quarantine, none to a target.
    public func discard(_ batch: ScanSpool.Batch, reason: String) -> JobOutcome {
        quarantine(batch, rule: nil, reason: reason)
    }

    private func quarantine(_ batch: ScanSpool.Batch, rule: String?, reason: String) -> JobOutcome {
        ScanSpool.quarantine(batch.folder, name: batch.manifest.name, into: config.inbox.quarantine, rule: rule, reason: reason,
                             folders: store.folders)
        return JobOutcome(input: batch.manifest.name, result: .quarantined, rule: rule, reason: reason)
    }

    private func quarantineFolder(_ folder: String, name: String, rule: String?, reason: String) {
        ScanSpool.quarantine(folder, name: name, into: config.inbox.quarantine, rule: rule, reason: reason, folders: store.folders)
    }
}
