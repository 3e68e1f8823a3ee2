import Foundation
import Glibc
import System
import TrapperCore

/// Stage 8 for the inbox, and what else the pipeline asks of it as a way in: an original whose pages
/// are durable is archived, deleted or kept; one that cannot go in is quarantined with the reason.
extension Inbox: CaptureWayIn {
    /// A target's name may not put it outside the library or in the engine's own folder there. (A
    /// symlink on the way is refused when the store opens it, beneath the library.)
    public func refusal(forTarget target: String) -> String? {
        FrontDoor(config: config).refusal(forTarget: target)
    }

    public mutating func plan(forDocumentWith barcode: String?, of capture: Capture, taken: Set<String>) -> RoutePlan? {
        let input = capture.inputs[0]
        guard let status = files.status(input.path) else { return nil }
        var part = routeInput(input.path, input.name, status, clock.now())
        part.barcode = barcode
        // The name routing kept for the whole input goes to its first document (or another).
        reserved.remove(capture.plan.targetPath)
        reserved.formUnion(taken)
        return route(part)
    }

    public func pinnedTargets(_ capture: Capture) -> [String] { splitTargets(capture) }

    public mutating func pin(_ targets: [String], for capture: Capture) throws(Durable.Failure) {
        // A claim is not synced when it is made (most are quarantined or retried before anything is
        // written). Before the revision it must be on disk: a power cut that kept the revision and
        // lost the claim put the input back in the inbox, where it is a new input, and it landed
        // twice (found by the power-loss explorer: appended twice, or m9.pdf then m9-2.pdf).
        for folder in Set(capture.inputs.map { ($0.path as NSString).deletingLastPathComponent }) {
            try files.syncFolder(folder)
        }
        try writeManifest(targets, for: capture)
    }

    public mutating func unpin(_ capture: Capture) {
        removeManifest(capture)
        removeUploadRequests(capture.inputs)
    }

    public mutating func dispose(_ finished: [(input: CaptureInput, outcome: JobOutcome)], of capture: Capture) -> [JobOutcome] {
        finished.map { input, outcome in
            var outcome = outcome
            return finish(input, outcome: &outcome)
        }
    }

    public mutating func refuse(_ inputs: [CaptureInput], of capture: Capture, because error: EngineError) -> [JobOutcome] {
        removeUploadRequests(inputs)
        return inputs.map { quarantine($0.path, $0.name, capture.plan.rule, reason: error.description, now: clock.now()) }
    }

    /// After its pages are durable (or found already there): the original is archived, deleted or kept.
    mutating func finish(_ input: CaptureInput, outcome: inout JobOutcome) -> JobOutcome {
        if input.plan.original == .keep { return keep(input.path, input.name, outcome) }
        return dispose(input.path, input.name, input.plan, outcome: &outcome)
    }

    /// Archive or delete the original once its pages are durable (keep is handled by the caller).
    /// An original that cannot be archived or deleted must still leave the claims (recovery would
    /// take it again): it goes to quarantine, its note saying where its pages went.
    private func dispose(_ claimed: String, _ relativePath: String, _ plan: RoutePlan, outcome: inout JobOutcome) -> JobOutcome {
        var failure: String?
        switch plan.original {
        case .archive:
            if let archive = plan.archivePath, FolderRoot.relative(archive, to: config.inbox.archive) != nil {
                do { _ = try files.move(claimed, to: archive) } catch { failure = "archiving failed: \(error)" }
            } else {
                failure = "the archive path would be outside \(config.inbox.archive)"
            }
        case .delete:
            do { try files.remove(claimed) } catch { failure = "deleting failed: \(error)" }
        case .keep:
            break
        }
        if let failure {
            let where_ = outcome.target.map { "its pages are in \($0)" } ?? "its pages are in the target"
            _ = try? quarantineFolder.put(claimed, relativePath: relativePath, reason: "\(where_); \(failure)", rule: plan.rule)
            outcome.reason = failure
        }
        return outcome
    }

    /// `original = "keep"`: back where it was, and remembered so that seeing it again is no new job.
    private mutating func keep(_ claimed: String, _ relativePath: String, _ outcome: JobOutcome) -> JobOutcome {
        let back = config.inbox.path + "/" + relativePath
        guard let placed = try? files.move(claimed, to: back) else { return outcome }
        if let status = files.status(placed) {
            leftAlone.insert(Self.identity(placed, status))
        }
        return outcome
    }

    var quarantineFolder: Quarantine { Quarantine(folder: config.inbox.quarantine, folders: files, outbox: store.outbox) }

    func quarantine(_ claimed: String, _ relativePath: String, _ rule: String?, reason: String, now: Date,
                    event: OutboundEvent.Kind = .quarantined) -> JobOutcome {
        do {
            try quarantineFolder.put(claimed, relativePath: relativePath, reason: reason, rule: rule, date: now, event: event)
            return JobOutcome(input: relativePath, result: .quarantined, rule: rule, reason: reason, date: now)
        } catch {
            return JobOutcome(input: relativePath, result: .retryLater, rule: rule, reason: "\(reason); quarantine failed: \(error)",
                              date: now)
        }
    }
}
