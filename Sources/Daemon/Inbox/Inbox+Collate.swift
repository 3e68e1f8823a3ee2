import Foundation
import TrapperCore

/// `collate = "double-sided"`: a feeder that scans one side at a time gives two files, the fronts
/// and then, the stack turned over, the backs last page first. The first file a rule takes is held
/// (in the claims, `.held/RULE/`, with a note of when) until the next arrives within the window;
/// then both are one capture, interleaved by the pipeline: front 1, back 1, front 2, ... Counts that
/// do not match keep both files as they are (they go in one after the other, and the log says why);
/// a front pass whose back never comes goes in alone when the window closes.
extension Inbox {
    static let heldFolderName = ".held"

    struct Held: Codable {
        var relativePath: String
        var arrived: Date
    }

    func heldFolder(_ rule: String) -> String { claims + "/" + Self.heldFolderName + "/" + StateDirectory.key(for: rule) }

    func held(_ rule: String) -> (held: Held, path: String)? {
        let folder = heldFolder(rule)
        guard let data = files.read(folder + "/held.json"),
              let held = try? JSONDecoder().decode(Held.self, from: data) else { return nil }
        return (held, folder + "/file/" + held.relativePath)
    }

    /// The front pass waits; a back pass within the window makes the pair.
    mutating func collate(_ input: CaptureInput, now: Date) -> [JobOutcome] {
        let rule = input.plan.rule, window = input.plan.collateWindow ?? 0
        var outcomes: [JobOutcome] = []
        if let (front, path) = held(rule) {
            // The pair goes where the front pass's name sends it.
            let frontInput = CaptureInput(path: path, name: front.relativePath, plan: heldPlan(path, front.relativePath, now: now) ?? input.plan)
            clearHeld(rule)
            if now.timeIntervalSince(front.arrived) <= window { return commit([frontInput, input], recovering: false, pair: true) }
            // Too late to be its back: the old front goes in alone, and this file is the new front.
            outcomes += commitAlone(frontInput, reason: "no back pass came within \(Quantities.describe(seconds: window))")
        }
        let folder = heldFolder(rule)
        do {
            _ = try files.move(input.path, to: folder + "/file/" + input.name)
            try files.replace(folder + "/held.json", with: try JSONEncoder().encode(Held(relativePath: input.name, arrived: now)))
        } catch {
            return outcomes + [JobOutcome(input: input.name, result: .retryLater, rule: rule, reason: "\(error)", date: now)]
        }
        return outcomes + [JobOutcome(input: input.name, result: .held, rule: rule,
                                      reason: "front pass; waiting up to \(Quantities.describe(seconds: window)) for the back pass",
                                      date: now)]
    }

    /// Fronts whose window has closed go in as they are: run now and then by the daemon.
    public mutating func expireHeld() -> [JobOutcome] {
        let now = clock.now()
        var outcomes: [JobOutcome] = []
        for rule in config.rules where rule.collate == .doubleSided {
            guard let (front, path) = held(rule.name), now.timeIntervalSince(front.arrived) > rule.collateWindowSeconds,
                  let plan = heldPlan(path, front.relativePath, now: now) else { continue }
            clearHeld(rule.name)
            outcomes += commitAlone(CaptureInput(path: path, name: front.relativePath, plan: plan),
                                    reason: "no back pass came within \(Quantities.describe(seconds: rule.collateWindowSeconds))")
        }
        return outcomes
    }

    private func heldPlan(_ path: String, _ relativePath: String, now: Date) -> RoutePlan? {
        guard let status = files.status(path) else { return nil }
        let files = self.files
        return router.plan(for: routeInput(path, relativePath, status, now), batches: batches) { files.exists($0) }
    }

    private func clearHeld(_ rule: String) { try? files.remove(heldFolder(rule) + "/held.json") }

    /// A front pass with no back: in alone, its line saying why.
    private mutating func commitAlone(_ input: CaptureInput, reason: String) -> [JobOutcome] {
        commit([input], recovering: false).map { outcome in
            var outcome = outcome
            if outcome.result == .ingested { outcome.reason = reason }
            return outcome
        }
    }
}
