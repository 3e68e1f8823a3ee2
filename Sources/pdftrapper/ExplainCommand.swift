import Daemon
import Foundation
import TrapperCore

/// `pdftrapper explain INPUT...`: what the daemon would do with each input, without doing it.
enum ExplainCommand: Command {
    static let name = "explain"
    static let summary = "Show which rule takes each input and where its pages would go; change nothing."
    static let synopsis = "explain [--config FILE] [--source inbox|scanner] [--button NAME] INPUT... | explain --profile NAME [--button NAME]"
    static let details = """
    For each INPUT (a file in the inbox, or anywhere: then it is judged as if dropped at the
    top of the inbox), prints its type as read from its first bytes, the first rule that
    matches, the target PDF with the mode, the page steps and OCR, whether it would be held for
    a back pass (collate = "double-sided") or join an open batch, and what would happen to the
    original. With --profile and no INPUT, the same for a scan made with that profile. Nothing
    is read beyond the first kilobyte and nothing is written.

      --config FILE      the config to use (default: the usual search, see check-config)
      --source SOURCE    judge the inputs as coming from "inbox" (default) or "scanner"
      --button NAME      the scanner button that was pressed (with --source scanner)
      --profile NAME     a scan made with this profile (and --button, if one was pressed)
    """
    static let arguments = ArgumentSpec(options: ["--config", "--source", "--button", "--profile"])

    static func run(_ arguments: ParsedArguments, _ context: CommandContext) -> ExitCode {
        if let profile = arguments.options["--profile"], arguments.positionals.isEmpty {
            return explainScan(profile: profile, arguments, context)
        }
        guard !arguments.positionals.isEmpty else {
            context.err("pdftrapper explain: name at least one input\nusage: pdftrapper \(synopsis)")
            return .usage
        }
        var source = InputSource.inbox
        if let written = arguments.options["--source"] {
            guard let parsed = InputSource(rawValue: written) else {
                context.err("pdftrapper explain: --source must be \"inbox\" or \"scanner\", not \"\(written)\"")
                return .usage
            }
            source = parsed
        }
        let config: Config
        switch context.loadConfig(arguments.options["--config"]) {
        case .failure(let code): return code
        case .success(let loaded): config = loaded
        }
        let router = config.router(host: ProcessInfo.processInfo.hostName)
        // The batches the daemon has open, as it wrote them down: a file now would join one.
        let batches = OpenBatches.read(config)
        var result = ExitCode.ok
        for input in arguments.positionals {
            let path = context.absolute(input)
            // Through the front door, as the inbox and `ingest` see the file.
            guard var routeInput = FrontDoor(config: config).input(file: path) else {
                context.err("pdftrapper explain: \(input): no such file")
                result = .noInput
                continue
            }
            routeInput.source = source
            routeInput.button = arguments.options["--button"]
            let plan = router.plan(for: routeInput, batches: batches) { FileManager.default.fileExists(atPath: $0) }
            context.out(describe(input, routeInput, plan, config: config, batches: batches))
        }
        return result
    }

    /// A scan with `profile`, as the daemon would route it.
    static func explainScan(profile: String, _ arguments: ParsedArguments, _ context: CommandContext) -> ExitCode {
        let config: Config
        switch context.loadConfig(arguments.options["--config"]) {
        case .failure(let code): return code
        case .success(let loaded): config = loaded
        }
        guard let scan = config.profiles.first(where: { $0.name == profile }) else {
            context.err("pdftrapper explain: --profile \(profile): no such profile"
                        + Suggestion.hint(for: profile, among: config.profiles.map(\.name)))
            return .usage
        }
        // Rules judge a scan's size by its pages' bytes (FrontDoor), unknown before it is made: when
        // a size rule would send a small scan and a large one apart, both are shown.
        // The batches open now, the same list the inbox and the scanner keep.
        let batches = OpenBatches.read(config)
        func planned(bytes: Int64) -> (RouteInput, RoutePlan?) {
            let input = FrontDoor(config: config).input(.scanToCome(button: arguments.options["--button"], profile: profile, bytes: bytes))
            return (input, config.scanPlan(for: input, host: ProcessInfo.processInfo.hostName, batches: batches) {
                FileManager.default.fileExists(atPath: $0)
            })
        }
        let (input, plan) = planned(bytes: 0)
        let (large, largePlan) = planned(bytes: Int64(config.limits.maxInputBytes))
        let device = scan.device.map { ", device \($0)" } ?? ", the first device found"
        let source: String = switch scan.source {
        case .flatbed: "flatbed"
        case .adf: "adf"
        case .adfDuplex: "adf-duplex"
        case .named(let name): name
        }
        var text = describe("profile \(profile)", input, plan, config: config, batches: batches)
        if largePlan?.rule != plan?.rule || largePlan?.targetPath != plan?.targetPath {
            text += "\n  size:     a size rule decides by the scan's bytes (its pages as stored); a large scan goes as:\n"
                + describe("profile \(profile), \(large.bytes) bytes", large, largePlan, config: config, batches: batches)
                    .split(separator: "\n").map { "  " + $0 }.joined(separator: "\n")
        }
        context.out(text + "\n  scan:     \(source), \(scan.colorMode.rawValue), \(scan.resolution) dpi\(device)")
        return .ok
    }

    /// The page steps and OCR, in words.
    static func describe(_ steps: PageSteps) -> String {
        var parts: [String] = []
        if let angle = steps.deskewAbove { parts.append("deskew (skew over \(angle)°)") }
        if steps.orient { parts.append("orient") }
        if steps.blank != .keep { parts.append("blank pages: \(steps.blank.rawValue)") }
        if steps.compress != .keep { parts.append("compress: \(steps.compress.rawValue)") }
        if let separator = steps.separator { parts.append("split at \(separator.kind.rawValue) sheets") }
        if steps.activeContent == .keep { parts.append("active content kept") }
        let ocr = steps.ocr.isEmpty ? "no OCR" : "OCR (\(steps.ocr.joined(separator: "+"))) after the capture"
        return (parts.isEmpty ? "none" : parts.joined(separator: ", ")) + "; " + ocr
    }

    static func describe(_ input: String, _ routeInput: RouteInput, _ plan: RoutePlan?, config: Config,
                         batches: [String: OpenBatch] = [:]) -> String {
        var lines = [input, "  as:       \(routeInput.relativePath) (\(routeInput.kind.rawValue), \(routeInput.bytes) bytes)"]
        if routeInput.kind == .unknown {
            lines.append("  note:     not a \(FileKind.readable) by its content; it would be quarantined")
        }
        guard let plan else {
            lines.append("  rule:     none matches; the file would stay in the inbox")
            return lines.joined(separator: "\n")
        }
        let exists = FileManager.default.fileExists(atPath: plan.targetPath)
        let action: String
        switch plan.mode {
        case .append: action = exists ? "append to the existing file" : "create, then append"
        case .prepend: action = exists ? "prepend to the existing file" : "create"
        case .new: action = "a new file"
        case .batch: action = plan.batch?.joins == true ? "join the batch open in it"
            : "a new file, with whatever else arrives within the batch window"
        }
        // The rule by name: a profile's own target is a rule of its own, numbered in a router of one.
        let rule = config.rules.first { $0.name == plan.rule }
        lines.append(rule == nil ? "  rule:     none: the \(plan.rule)'s own target"
                     : "  rule:     #\(plan.ruleNumber) \"\(plan.rule)\"")
        lines.append("  target:   \(plan.targetPath) (\(plan.mode.rawValue): \(action))")
        lines.append("  steps:    \(describe(plan.steps))")
        if let window = plan.collateWindow {
            lines.append("  collate:  double-sided: held as a front pass until the next file within "
                         + "\(Quantities.describe(seconds: window)), its back pass (if one is held already, this is its back pass)")
        } else if rule?.collate == .doubleSided {
            lines.append("  collate:  one-sided (its name matches one_sided): it goes in alone, not held")
        }
        if let batch = plan.batch {
            let window = Quantities.describe(seconds: batch.window)
            if batch.joins, let open = batches[plan.rule] {
                let ago = Quantities.describe(seconds: max(0, routeInput.date.timeIntervalSince(open.last).rounded()))
                lines.append("  batch:    joins the batch open for this rule: its last file came \(ago) ago, within \(window)")
            } else {
                lines.append("  batch:    opens a batch: files this rule takes within \(window) of each other join it")
            }
        }
        guard routeInput.source == .inbox else {
            lines.append("  pages:    wait in the state folder's scan spool until their revision is durable, then go")
            return lines.joined(separator: "\n")
        }
        switch plan.original {
        case .archive: lines.append("  original: archived to \(plan.archivePath ?? "")")
        case .delete: lines.append("  original: deleted once the pages are safe in the target")
        case .keep: lines.append("  original: kept in the inbox")
        }
        return lines.joined(separator: "\n")
    }
}
