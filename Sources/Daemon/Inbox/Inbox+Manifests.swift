import Foundation
import Glibc
import Hashing
import TrapperCore

/// `separator = ...` on a rule: one input becomes several new documents, split at its separator
/// sheets, each routed by the rule's target (with `{barcode}` from the sheet before it) and written
/// as a revision of its own. Every document's target is written down before the first one is, and
/// kept until the input has left the claims: after a crash, recovery sends each document to the
/// same file and skips those whose file already holds the input.
extension InboxJob {
    struct SplitManifest: Codable {
        var input: String
        var targets: [String]
    }

    static let splitSuffix = ".split.json"

    private func splitManifestPath(_ relativePath: String) -> String {
        manifestFolder + "/" + StateDirectory.key(for: relativePath) + Self.splitSuffix
    }

    /// The targets written down for a claimed input, in document order; empty when none are.
    func splitTargets(_ relativePath: String) -> [String] {
        guard let data = folders.read(splitManifestPath(relativePath)),
              let manifest = try? JSONDecoder().decode(SplitManifest.self, from: data), manifest.input == relativePath else { return [] }
        return manifest.targets
    }

    /// Split manifests whose input is no longer among the claims (it was finished, or went back).
    func removeStaleSplitManifests() {
        for name in folders.names(in: manifestFolder) ?? [] where name.hasSuffix(Self.splitSuffix) {
            let path = manifestFolder + "/" + name
            guard let data = folders.read(path), let manifest = try? JSONDecoder().decode(SplitManifest.self, from: data) else {
                try? folders.remove(path)
                continue
            }
            if !folders.exists(claims + "/" + manifest.input) { try? folders.remove(path) }
        }
    }

    mutating func ingestSplit(_ input: Claimed, recovering: Bool, now: Date) -> [JobOutcome] {
        let plan = input.plan
        let document: any InputDocument
        do {
            document = try inputs.open(input.path, steps: plan.steps)
        } catch {
            return [quarantine(input.path, input.relativePath, plan.rule, reason: error.description)]
        }
        let documents = SegmentInput.split([document], label: document.name)
        // The name routing kept for the whole input goes to its first document (or another).
        reserved.remove(plan.targetPath)
        let status = folders.status(input.path) ?? stat()
        let routeInput = Self.routeInput(input.path, input.relativePath, status, now)
        var targets = splitTargets(input.relativePath)
        for segment in documents.dropFirst(targets.count) {
            var part = routeInput
            part.barcode = segment.barcode
            guard let partPlan = route(part) else {
                return [quarantine(input.path, input.relativePath, plan.rule, reason: "the rule no longer takes it")]
            }
            targets.append(partPlan.targetPath)
        }
        if let reason = targets.lazy.compactMap(outsideLibrary).first {
            return [quarantine(input.path, input.relativePath, plan.rule, reason: reason)]
        }
        do {
            try folders.replace(splitManifestPath(input.relativePath),
                                with: JSONEncoder().encode(SplitManifest(input: input.relativePath, targets: targets)))
        } catch {
            return [JobOutcome(input: input.relativePath, result: .retryLater, rule: plan.rule, reason: "\(error)", date: now)]
        }
        let digest = SHA256.hex(document.sha256)
        var written: [String] = []
        for (segment, target) in zip(documents, targets) {
            if recovering, store.ingestedInputs(of: target).contains(digest) {
                written.append(target)
                continue
            }
            do {
                let committed = try Ingest.run([segment], into: target, store: store, date: now)
                OCRQueue.enqueue(committed, languages: plan.steps.ocr, store: store)
                written.append(target)
                if written.count == 1, documents.count > 1 { CrashPoint.splitFirstWritten.hit() }
            } catch let error as EngineError {
                let done = written.isEmpty ? "" : "; documents 1 to \(written.count) are in \(written.joined(separator: ", "))"
                if case .io = error {
                    // The claim and its manifest stay: the next try writes the rest to the same files.
                    return [JobOutcome(input: input.relativePath, result: .retryLater, rule: plan.rule, target: target,
                                       reason: error.description + done, date: now)]
                }
                return [quarantine(input.path, input.relativePath, plan.rule, reason: "\(segment.name): \(error)" + done)]
            } catch {
                return [quarantine(input.path, input.relativePath, plan.rule, reason: "\(segment.name): \(error)")]
            }
        }
        var outcome = JobOutcome(input: input.relativePath, result: .ingested, rule: plan.rule, target: targets.first,
                                 pages: document.pageCount,
                                 reason: SegmentInput.summary(separators: document.separators.count, targets: targets), date: now)
        let finished = finish(input, outcome: &outcome)
        try? folders.remove(splitManifestPath(input.relativePath))
        return [finished]
    }
}
