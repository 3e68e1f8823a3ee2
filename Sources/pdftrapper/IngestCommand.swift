import Daemon
import Foundation
import System
import TrapperCore

/// `pdftrapper ingest`: pages of images and PDFs into a target PDF, as one revision.
enum IngestCommand: Command {
    static let name = "ingest"
    static let summary = "Add the pages of images and PDFs to a target PDF, as one revision."
    static let synopsis = "ingest (--to TARGET.pdf | --config FILE [--rule NAME]) [--prepend] [--state-dir DIR] INPUT..."
    static let details = """
    Appends (or with --prepend, puts in front) every page of every INPUT, in order, to
    TARGET.pdf as ONE incremental update: the bytes already in the file are never rewritten, so
    this costs the same for a 10-page and a 10,000-page target, and `pdftrapper undo` can take
    it back. TARGET is created when missing.

    Inputs, lossless where the format allows: JPEG (its bytes kept as they are), PNG, TIFF
    (every page; CCITT G4/G3 kept as they are), PNM, and PDF (every page, imported). HEIC,
    AVIF and WebP photos are decoded and stored as JPEG at quality 90 (a lossless WebP
    losslessly). A file that is not what it claims, truncated, or over the limits is refused
    (exit 65) and the target is left untouched.

    Without --to, the rules of the config (--config FILE or the usual search) choose the
    target for each input, as `pdftrapper explain` shows, and run their page steps. A rule
    with a separator makes each document between separator sheets a new file; for a rule
    with collate = "double-sided", the next input it takes is the back pass of the one
    before (last page first), and the two are interleaved.

      --to FILE        the target PDF
      --prepend        put the new pages in front
      --config FILE    the config (its rules, its state folder)
      --rule NAME      the rule NAME takes every input, whatever its match says
      --state-dir DIR  where the journal and undo history live (default: the library's
                       .pdftrapper folder, shared with the daemon)
    """
    static let arguments = ArgumentSpec(flags: ["--prepend"], options: CommandContext.engineOptions.union(["--to", "--rule"]))

    static func run(_ arguments: ParsedArguments, _ context: CommandContext) -> ExitCode {
        guard !arguments.positionals.isEmpty else {
            context.err("pdftrapper ingest: name at least one input\nusage: pdftrapper \(synopsis)")
            return .usage
        }
        let config: Config?
        switch context.optionalConfig(arguments) {
        case .failure(let code): return code
        case .success(let loaded): config = loaded
        }
        let store: TargetStore
        // Targets the rules choose are written as the daemon writes them: below the library only.
        switch context.targetStore(arguments, config: config, confined: arguments.options["--to"] == nil,
                                   target: arguments.options["--to"].map(context.absolute)) {
        case .failure(let code): return code
        case .success(let opened): store = opened
        }
        let position: PDFPagePosition = arguments.has("--prepend") ? .front : .end
        let inputs = arguments.positionals.map(context.absolute)
        if let target = arguments.options["--to"] {
            return ingest(inputs, into: context.absolute(target), position, store, context, limits: config?.limits ?? LimitsSettings())
        }
        guard let config else {
            context.err("pdftrapper ingest: name a target with --to, or a config whose rules choose one (--config)")
            return .usage
        }
        var rules = config
        if let name = arguments.options["--rule"] {
            guard var rule = config.rules.first(where: { $0.name == name }) else {
                context.err("pdftrapper ingest: --rule \(name): no rule of that name"
                            + Suggestion.hint(for: name, among: config.rules.map(\.name)))
                return .usage
            }
            rule.match = RuleMatch()
            rules.rules = [rule]
        }
        return ingestByRules(inputs, rules, position, store, context)
    }

    /// `--to`: every input, in order, into the one target, as one revision; one bad input and none go in.
    static func ingest(_ paths: [String], into target: String, _ position: PDFPagePosition, _ store: TargetStore,
                       _ context: CommandContext, limits: LimitsSettings) -> ExitCode {
        let plan = RoutePlan(rule: "--to", ruleNumber: 0, target: target, targetPath: target,
                             mode: position == .front ? .prepend : .append, original: .keep, archivePath: nil)
        var wayIn = CommandLineWayIn(context: context, library: nil, router: nil)
        var capture = Capture(paths.map { CaptureInput(path: $0, name: $0, plan: plan) })
        capture.whole = true
        return wayIn.run([capture], store: store, limits: limits)
    }

    /// Each input goes where its rule says; inputs no rule takes are reported and left alone. For
    /// a rule with `collate = "double-sided"`, the next input it takes on the command line is the
    /// back pass of the one before.
    static func ingestByRules(_ paths: [String], _ config: Config, _ position: PDFPagePosition, _ store: TargetStore,
                              _ context: CommandContext) -> ExitCode {
        var wayIn = CommandLineWayIn(context: context, library: config.library.root, router: config.router(host: ProcessInfo.processInfo.hostName))
        var routed: [CaptureInput] = []
        for path in paths {
            guard let input = FrontDoor(config: config).input(file: path) else {
                context.err("pdftrapper ingest: \(path): no such file")
                wayIn.result = .noInput
                continue
            }
            guard var plan = wayIn.route(input, path: path) else {
                context.err("pdftrapper ingest: \(path): no rule matches; not ingested")
                wayIn.result = .dataError
                continue
            }
            if position == .front { plan.mode = .prepend }
            routed.append(CaptureInput(path: path, name: path, plan: plan))
        }
        var captures: [Capture] = []
        var index = 0
        while index < routed.count {
            let input = routed[index]
            index += 1
            var pair = [input]
            if input.plan.collateWindow != nil {
                if index < routed.count, routed[index].plan.ruleNumber == input.plan.ruleNumber {
                    pair.append(routed[index])
                    index += 1
                } else {
                    context.err("pdftrapper ingest: \(input.path): no back pass follows it for rule \(input.plan.rule); it goes in alone")
                }
            }
            var capture = Capture(pair)
            capture.pair = pair.count == 2
            capture.whole = true
            captures.append(capture)
        }
        return wayIn.run(captures, store: store, limits: config.limits)
    }
}

/// The command line as a way in: the files named, each capture whole or not at all; nothing is
/// moved or removed (the inputs are the user's), a refusal is a line on stderr and an exit code,
/// and each revision a line on stdout as it is committed.
struct CommandLineWayIn: CaptureWayIn {
    let context: CommandContext
    /// The library a rule's targets must stay in; nil for `--to`, which writes where it is told.
    let library: String?
    let router: Router?
    /// How each input was seen by the router, for routing its documents with their barcodes.
    var routed: [String: RouteInput] = [:]
    /// New files chosen on this command line, so that two inputs never pick the same name.
    var taken: Set<String> = []
    var result = ExitCode.ok

    init(context: CommandContext, library: String?, router: Router?) {
        self.context = context
        self.library = library
        self.router = router
    }

    mutating func route(_ input: RouteInput, path: String) -> RoutePlan? {
        routed[path] = input
        let taken = self.taken
        let plan = router?.plan(for: input) { taken.contains($0) || FileManager.default.fileExists(atPath: $0) }
        if let plan, plan.mode == .new || plan.mode == .batch { self.taken.insert(plan.targetPath) }
        return plan
    }

    /// The captures through the pipeline, each revision printed by the follow-up that hears of it.
    mutating func run(_ captures: [Capture], store: TargetStore, limits: LimitsSettings) -> ExitCode {
        store.revisions.subscribe(RevisionLine(context: context))
        let pipeline = CapturePipeline(store: store, opener: InputFiles(limits))
        for capture in captures {
            for outcome in pipeline.commit(capture, from: &self) where outcome.result == .retryLater {
                context.err("pdftrapper ingest: \(outcome.reason ?? outcome.input)")
                result = .ioError
            }
        }
        store.log.forEach { context.err("pdftrapper: \($0)") }
        return result
    }

    func refusal(forTarget target: String) -> String? {
        library.flatMap { ConfinedFolders.targetRefusal(target, library: $0) }
    }

    mutating func plan(forDocumentWith barcode: String?, of capture: Capture, taken: Set<String>) -> RoutePlan? {
        guard var input = routed[capture.inputs[0].path] else { return nil }
        input.barcode = barcode
        // The name routing kept for the whole input goes to its first document (or another).
        self.taken.remove(capture.plan.targetPath)
        self.taken.formUnion(taken)
        return route(input, path: capture.inputs[0].path)
    }

    func pinnedTargets(_ capture: Capture) -> [String] { [] }
    func pin(_ targets: [String], for capture: Capture) throws(Durable.Failure) {}
    func unpin(_ capture: Capture) {}

    func dispose(_ finished: [(input: CaptureInput, outcome: JobOutcome)], of capture: Capture) -> [JobOutcome] {
        // A front and back pass whose page counts differ went in as they are: say why.
        if capture.pair, let reason = finished.first?.outcome.reason, reason.hasPrefix("not collated") {
            context.err("pdftrapper ingest: \(reason)")
        }
        for (input, outcome) in finished where outcome.result == .duplicate {
            context.err("pdftrapper ingest: \(input.path): already in \(outcome.target ?? "the target"); not added again")
        }
        return finished.map(\.outcome)
    }

    mutating func refuse(_ inputs: [CaptureInput], of capture: Capture, because error: EngineError) -> [JobOutcome] {
        context.err("pdftrapper ingest: \(error)")
        result = error.exitCode
        return inputs.map { JobOutcome(input: $0.name, result: .quarantined, rule: capture.plan.rule, reason: error.description) }
    }
}

/// "T.pdf: appended 2 pages (revision of 1234 bytes)", for each revision as it is committed.
struct RevisionLine: RevisionSubscriber {
    let context: CommandContext

    func revisionCommitted(_ event: RevisionCommitted) {
        let pages = event.pagesAdded
        let verb = event.base == 0 ? "created with" : event.position == .front ? "prepended" : "appended"
        let languages = event.toRead.first?.languages ?? []
        context.out("\(event.target): \(verb) \(pages) page\(pages == 1 ? "" : "s") (revision of \(event.end - event.base) bytes)"
                    + (event.note.map { "; \($0)" } ?? "")
                    + (languages.isEmpty ? "" : "; OCR (\(languages.joined(separator: "+"))) queued: the daemon, "
                       + "or pdftrapper ocr --queued, does it"))
    }
}
