import Daemon
import Foundation
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
    (every page; CCITT G4/G3 kept as they are), PNM, and PDF (every page, imported). A file
    that is not what it claims, truncated, or over the limits is refused (exit 65) and the
    target is left untouched.

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

    static func ingest(_ paths: [String], into target: String, _ position: PDFPagePosition, _ store: TargetStore,
                       _ context: CommandContext, steps: PageSteps = PageSteps(),
                       limits: LimitsSettings = LimitsSettings(), collate: Bool = false) -> ExitCode {
        do {
            let files = InputFiles(limits)
            var inputs = try paths.map { path throws(EngineError) in try files.open(path, steps: steps) }
            if collate, inputs.count == 2 {
                // A front pass and its back pass, last page first: interleaved when the counts match.
                if inputs[0].pageCount == inputs[1].pageCount {
                    inputs = [InterleavedInput(front: inputs[0], back: inputs[1])]
                } else {
                    context.err("pdftrapper ingest: not collated: \(inputs[0].name) has \(inputs[0].pageCount) pages and "
                                + "\(inputs[1].name) \(inputs[1].pageCount); both go in as they are")
                }
            }
            let committed = try Ingest.run(inputs, into: target, at: position, store: store)
            OCRQueue.enqueue(committed, languages: steps.ocr, store: store)
            store.log.forEach { context.err("pdftrapper: \($0)") }
            let pages = committed.record.pagesAdded
            context.out("\(target): \(committed.created ? "created with" : position == .end ? "appended" : "prepended") "
                        + "\(pages) page\(pages == 1 ? "" : "s") (revision of \(committed.end - committed.base) bytes)"
                        + (committed.record.note.map { "; \($0)" } ?? "")
                        + (steps.ocr.isEmpty ? "" : "; OCR (\(steps.ocr.joined(separator: "+"))) queued: the daemon, "
                           + "or pdftrapper ocr --queued, does it"))
            return .ok
        } catch {
            return context.report("ingest", error)
        }
    }

    /// A rule with `separator`: each document between the input's separator sheets into a new file
    /// of its own, routed with `{barcode}` from the sheet before it.
    static func ingestSplit(_ path: String, _ input: RouteInput, _ router: Router, _ store: TargetStore, _ context: CommandContext,
                            steps: PageSteps, limits: LimitsSettings) -> ExitCode {
        do {
            let document = try InputFiles(limits).open(path, steps: steps)
            var taken = Set<String>()
            for segment in SegmentInput.split([document], label: document.name) {
                var part = input
                part.barcode = segment.barcode
                guard let plan = router.plan(for: part, exists: { taken.contains($0) || FileManager.default.fileExists(atPath: $0) })
                else { continue }
                taken.insert(plan.targetPath)
                let committed = try Ingest.run([segment], into: plan.targetPath, store: store)
                OCRQueue.enqueue(committed, languages: steps.ocr, store: store)
                context.out("\(plan.targetPath): created with \(segment.pageCount) page\(segment.pageCount == 1 ? "" : "s") "
                            + "(\(segment.name)" + (segment.barcode.map { ", barcode \"\($0)\"" } ?? "") + ")")
            }
            store.log.forEach { context.err("pdftrapper: \($0)") }
            return .ok
        } catch {
            return context.report("ingest", error)
        }
    }

    /// Each input goes where its rule says; inputs no rule takes are reported and left alone. For
    /// a rule with `collate = "double-sided"`, the next input it takes on the command line is the
    /// back pass of the one before.
    static func ingestByRules(_ paths: [String], _ config: Config, _ position: PDFPagePosition, _ store: TargetStore,
                              _ context: CommandContext) -> ExitCode {
        let router = config.router(host: ProcessInfo.processInfo.hostName)
        var result = ExitCode.ok
        func route(_ path: String) -> (input: RouteInput, plan: RoutePlan)? {
            guard let facts = InputFacts(path: path) else {
                context.err("pdftrapper ingest: \(path): no such file")
                result = .noInput
                return nil
            }
            let input = RouteInput(relativePath: ExplainCommand.relativePath(path, inbox: config.inbox.path),
                                   bytes: facts.bytes, kind: facts.kind, date: Date())
            guard let plan = router.plan(for: input, exists: { FileManager.default.fileExists(atPath: $0) }) else {
                context.err("pdftrapper ingest: \(path): no rule matches; not ingested")
                result = .dataError
                return nil
            }
            return (input, plan)
        }
        var index = 0
        while index < paths.count {
            let path = paths[index]
            index += 1
            guard let (input, plan) = route(path) else { continue }
            var inputs = [path]
            if config.rules[plan.ruleNumber - 1].collate == .doubleSided {
                if index < paths.count, let back = route(paths[index]), back.plan.ruleNumber == plan.ruleNumber {
                    inputs.append(paths[index])
                    index += 1
                } else {
                    context.err("pdftrapper ingest: \(path): no back pass follows it for rule \(plan.rule); it goes in alone")
                }
            }
            let code = plan.steps.separator != nil
                ? ingestSplit(path, input, router, store, context, steps: plan.steps, limits: config.limits)
                : ingest(inputs, into: plan.targetPath, plan.mode == .prepend ? .front : position, store, context,
                         steps: plan.steps, limits: config.limits, collate: inputs.count == 2)
            if code != .ok { result = code }
        }
        return result
    }
}
