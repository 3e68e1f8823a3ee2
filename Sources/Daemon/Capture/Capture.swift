import Foundation
import System
import TrapperCore

/// One input a way in has taken (claimed from the inbox, a scan's page file, a file named on the
/// command line), with its plan.
public struct CaptureInput {
    /// Where the file is now: among the claims, in the scan spool, where the user named it.
    public var path: String
    /// Its name in outcomes and logs: its path below the inbox, the scan batch, the argument.
    public var name: String
    public var plan: RoutePlan

    public init(path: String, name: String, plan: RoutePlan) {
        self.path = path
        self.name = name
        self.plan = plan
    }
}

/// Inputs that go in together under one plan: one revision of its target, or, split at separator
/// sheets, one new file per document.
public struct Capture {
    public var inputs: [CaptureInput]
    /// The first input's: those of the others are the same but for their names.
    public var plan: RoutePlan
    /// A front pass and its back pass (`collate = "double-sided"`): interleaved when their page
    /// counts match, else both go in as they are.
    public var pair = false
    /// One bad input refuses them all: a scan batch or the files of one command go in whole or not at all.
    public var whole = false
    /// Blank pages count as none (a scanned sheet's blank back) instead of refusing the input.
    public var blankIsEmpty = false
    /// Taken again after a crash: an input (or a document of a split) whose content the target
    /// already holds is not added again.
    public var recovering = false
    /// The inputs are claims (the inbox's, renamed into its claims folder): each revision records
    /// them in the target's state, and after a crash a claim recorded there is not added again.
    public var claimed = false
    /// `inbox.duplicates = "skip"`: the same, always.
    public var skipDuplicates = false
    /// Goes into the history beside the revision ("scan-...: profile adf on test:0").
    public var note: String?
    /// What the documents of a split are called: "mail.tiff, document 2 of 3".
    public var label: String
    /// How it came in (a scan and its profile, an upload), for the revision's event; the rule is the plan's.
    public var madeBy = "ingest"
    public var profile: String?

    var origin: RevisionOrigin { RevisionOrigin(madeBy: madeBy, rule: plan.rule, profile: profile) }

    public init(_ inputs: [CaptureInput], label: String? = nil) {
        self.inputs = inputs
        self.plan = inputs[0].plan
        self.label = label ?? inputs[0].name
    }
}

/// A way in, as the pipeline sees it: the inbox, the scanner or the command line. Each takes its
/// inputs its own way (a rename into the claims, a finished spool batch, a path); from then on the
/// pipeline runs the same stages for all three and calls back here for what only the way in knows.
public protocol CaptureWayIn {
    /// Why `target` may not be written (outside the library, say), or nil.
    func refusal(forTarget target: String) -> String?
    /// Where one document of a split capture goes, routed with `{barcode}` from the sheet before
    /// it; `taken`: the files chosen for the documents before it.
    mutating func plan(forDocumentWith barcode: String?, of capture: Capture, taken: Set<String>) -> RoutePlan?
    /// The targets written down for the capture before a crash, in document order; empty for none.
    func pinnedTargets(_ capture: Capture) -> [String]
    /// Writes the targets down before the first revision, so that after a crash the same inputs go
    /// to the same files (where the duplicate check finds them) and nowhere new.
    mutating func pin(_ targets: [String], for capture: Capture) throws(Durable.Failure)
    /// Once every input has been disposed of.
    mutating func unpin(_ capture: Capture)
    /// The inputs' pages are durable (or were found there already): archive, delete or keep each,
    /// remove the batch, print the line; the outcomes as the way in reports them.
    mutating func dispose(_ finished: [(input: CaptureInput, outcome: JobOutcome)], of capture: Capture) -> [JobOutcome]
    /// Inputs that cannot go in: to quarantine with the reason, or reported.
    mutating func refuse(_ inputs: [CaptureInput], of capture: Capture, because error: EngineError) -> [JobOutcome]
}
