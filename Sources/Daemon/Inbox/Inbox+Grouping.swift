import Foundation
import TrapperCore

/// Stage 2's second half for the inbox: claimed inputs, in order, become captures. Consecutive
/// inputs for the same target and mode share one revision (up to `revisionLimit`); a new file, or
/// an input split at separator sheets, is a capture of its own; front and back passes wait for each
/// other (`+Collate`).
extension Inbox {
    mutating func process(_ claimed: [CaptureInput], recovering: Bool, now: Date) -> [JobOutcome] {
        var outcomes: [JobOutcome] = []
        for input in claimed where input.plan.collateWindow != nil { outcomes += collate(input, now: now) }
        var group: [CaptureInput] = []
        func flush() {
            if !group.isEmpty { outcomes += commit(group, recovering: recovering) }
            group = []
        }
        for input in claimed where input.plan.collateWindow == nil {
            if let first = group.first,
               first.plan.targetPath != input.plan.targetPath || first.plan.mode != input.plan.mode || input.plan.mode == .new
                || first.plan.separator != nil || input.plan.separator != nil || group.count >= Self.revisionLimit {
                flush()
            }
            group.append(input)
        }
        flush()
        return outcomes
    }

    /// One capture through the pipeline, with the inbox as its way in.
    mutating func commit(_ inputs: [CaptureInput], recovering: Bool, pair: Bool = false) -> [JobOutcome] {
        var capture = Capture(inputs)
        capture.recovering = recovering
        capture.claimed = true
        capture.skipDuplicates = config.inbox.duplicates == .skip
        capture.pair = pair
        if inputs.contains(where: { uploadRequest($0.name) != nil }) {
            capture.note = "uploaded in the workspace"
            capture.madeBy = "upload"
        }
        let pipeline = self.pipeline
        return pipeline.commit(capture, from: &self)
    }
}
