import Foundation
import TrapperCore

/// `collate = "double-sided"`: a feeder that scans one side at a time gives two files, the fronts
/// and then, the stack turned over, the backs last page first. The first file a rule takes is held
/// (in the claims, `.held/RULE/`, with a note of when) until the next arrives within the window;
/// then both become one document, front 1, back 1, front 2, ..., in one revision. Counts that do
/// not match keep both files as they are (they go in one after the other, and the log says why);
/// a front pass whose back never comes goes in alone when the window closes.
extension InboxJob {
    static let heldFolderName = ".held"

    struct Held: Codable {
        var relativePath: String
        var arrived: Date
    }

    func heldFolder(_ rule: String) -> String { claims + "/" + Self.heldFolderName + "/" + StateDirectory.key(for: rule) }

    func held(_ rule: String) -> (held: Held, path: String)? {
        let folder = heldFolder(rule)
        guard let data = folders.read(folder + "/held.json"),
              let held = try? JSONDecoder().decode(Held.self, from: data) else { return nil }
        return (held, folder + "/file/" + held.relativePath)
    }

    /// The front pass waits; a back pass within the window makes the pair.
    mutating func collate(_ input: Claimed, now: Date) -> [JobOutcome] {
        let rule = config.rules[input.plan.ruleNumber - 1]
        var outcomes: [JobOutcome] = []
        if let (front, path) = held(rule.name) {
            // The pair goes where the front pass's name sends it.
            let frontPlan = heldPlan(path, front.relativePath, now: now) ?? input.plan
            let pair = Claimed(path: path, relativePath: front.relativePath, plan: frontPlan)
            if now.timeIntervalSince(front.arrived) <= rule.collateWindowSeconds {
                clearHeld(rule.name)
                return ingestPair(front: pair, back: input, now: now)
            }
            // Too late to be its back: the old front goes in alone, and this file is the new front.
            clearHeld(rule.name)
            outcomes += ingestAlone(pair, reason: "no back pass came within \(Quantities.describe(seconds: rule.collateWindowSeconds))", now: now)
        }
        let folder = heldFolder(rule.name)
        do {
            _ = try folders.move(input.path, to: folder + "/file/" + input.relativePath)
            try folders.replace(folder + "/held.json", with: try JSONEncoder().encode(Held(relativePath: input.relativePath, arrived: now)))
        } catch {
            return outcomes + [JobOutcome(input: input.relativePath, result: .retryLater, rule: rule.name, reason: "\(error)", date: now)]
        }
        return outcomes + [JobOutcome(input: input.relativePath, result: .held, rule: rule.name,
                                      reason: "front pass; waiting up to \(Quantities.describe(seconds: rule.collateWindowSeconds)) for the back pass",
                                      date: now)]
    }

    /// Fronts whose window has closed go in as they are: run now and then by the daemon.
    public mutating func expireHeld(now: Date = Date()) -> [JobOutcome] {
        var outcomes: [JobOutcome] = []
        for rule in config.rules where rule.collate == .doubleSided {
            guard let (front, path) = held(rule.name), now.timeIntervalSince(front.arrived) > rule.collateWindowSeconds,
                  let plan = heldPlan(path, front.relativePath, now: now) else { continue }
            clearHeld(rule.name)
            outcomes += ingestAlone(Claimed(path: path, relativePath: front.relativePath, plan: plan),
                                    reason: "no back pass came within \(Quantities.describe(seconds: rule.collateWindowSeconds))", now: now)
        }
        return outcomes
    }

    private func heldPlan(_ path: String, _ relativePath: String, now: Date) -> RoutePlan? {
        guard let status = folders.status(path) else { return nil }
        let folders = self.folders
        return config.router().plan(for: Self.routeInput(path, relativePath, status, now)) { folders.exists($0) }
    }

    private func clearHeld(_ rule: String) { try? folders.remove(heldFolder(rule) + "/held.json") }

    private mutating func ingestPair(front: Claimed, back: Claimed, now: Date) -> [JobOutcome] {
        let plan = front.plan
        if let reason = outsideLibrary(plan.targetPath) {
            return [front, back].map { quarantine($0.path, $0.relativePath, plan.rule, reason: reason) }
        }
        let fronts: any InputDocument, backs: any InputDocument
        do { fronts = try inputs.open(front.path, steps: plan.steps) } catch {
            return [quarantine(front.path, front.relativePath, plan.rule, reason: error.description)] + collate(back, now: now)
        }
        do { backs = try inputs.open(back.path, steps: plan.steps) } catch {
            return [quarantine(back.path, back.relativePath, plan.rule, reason: error.description)] + collate(front, now: now)
        }
        let matched = fronts.pageCount == backs.pageCount
        let documents: [any InputDocument] = matched ? [InterleavedInput(front: fronts, back: backs)] : [fronts, backs]
        let reason = matched ? "double-sided with \(back.relativePath): \(fronts.pageCount * 2) pages interleaved"
            : "not collated: \(front.relativePath) has \(fronts.pageCount) pages and \(back.relativePath) \(backs.pageCount); both went in as they are"
        do {
            let committed = try Ingest.run(documents, into: plan.targetPath, at: plan.mode == .prepend ? .front : .end,
                                           store: store, date: now)
            OCRQueue.enqueue(committed, languages: plan.steps.ocr, store: store)
            // The back pass's own line says whose back it is.
            let backReason = matched ? "double-sided: the back pass of \(front.relativePath)" : reason
            return [(front, fronts, reason), (back, backs, backReason)].map { input, document, reason in
                var outcome = JobOutcome(input: input.relativePath, result: .ingested, rule: plan.rule, target: plan.targetPath,
                                         pages: document.pageCount, end: committed.end, reason: reason, date: now)
                return finish(input, outcome: &outcome)
            }
        } catch {
            return [front, back].map { quarantine($0.path, $0.relativePath, plan.rule, reason: "\(error)") }
        }
    }

    private mutating func ingestAlone(_ input: Claimed, reason: String, now: Date) -> [JobOutcome] {
        if let outside = outsideLibrary(input.plan.targetPath) {
            return [quarantine(input.path, input.relativePath, input.plan.rule, reason: outside)]
        }
        do {
            let document = try inputs.open(input.path, steps: input.plan.steps)
            let committed = try Ingest.run([document], into: input.plan.targetPath, store: store, date: now)
            OCRQueue.enqueue(committed, languages: input.plan.steps.ocr, store: store)
            var outcome = JobOutcome(input: input.relativePath, result: .ingested, rule: input.plan.rule, target: input.plan.targetPath,
                                     pages: document.pageCount, end: committed.end, reason: reason, date: now)
            return [finish(input, outcome: &outcome)]
        } catch {
            return [quarantine(input.path, input.relativePath, input.plan.rule, reason: "\(error)")]
        }
    }
}
