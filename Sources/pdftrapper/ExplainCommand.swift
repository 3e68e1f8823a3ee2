import Foundation
import TrapperCore

/// `pdftrapper explain INPUT...`: what the daemon would do with each input, without doing it.
enum ExplainCommand: Command {
    static let name = "explain"
    static let summary = "Show which rule takes each input and where its pages would go; change nothing."
    static let synopsis = "explain [--config FILE] [--source inbox|scanner] [--button NAME] INPUT..."
    static let details = """
    For each INPUT (a file in the inbox, or anywhere: then it is judged as if dropped at the
    top of the inbox), prints its type as read from its first bytes, the first rule that
    matches, the target PDF with the mode, and what would happen to the original. Nothing is
    read beyond the first kilobyte and nothing is written.

      --config FILE      the config to use (default: the usual search, see check-config)
      --source SOURCE    judge the inputs as coming from "inbox" (default) or "scanner"
      --button NAME      the scanner button that was pressed (with --source scanner)
    """
    static let arguments = ArgumentSpec(options: ["--config", "--source", "--button"])

    static func run(_ arguments: ParsedArguments, _ context: CommandContext) -> ExitCode {
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
        var result = ExitCode.ok
        for input in arguments.positionals {
            let path = context.absolute(input)
            guard let facts = InputFacts(path: path) else {
                context.err("pdftrapper explain: \(input): no such file")
                result = .noInput
                continue
            }
            let routeInput = RouteInput(relativePath: relativePath(path, inbox: config.inbox.path), bytes: facts.bytes,
                                        kind: facts.kind, source: source, button: arguments.options["--button"], date: Date())
            context.out(describe(input, routeInput, router.plan(for: routeInput) { FileManager.default.fileExists(atPath: $0) }))
        }
        return result
    }

    /// Inside the inbox, the path below it; elsewhere, just the name.
    static func relativePath(_ path: String, inbox: String) -> String {
        path.hasPrefix(inbox + "/") ? String(path.dropFirst(inbox.count + 1)) : (path as NSString).lastPathComponent
    }

    static func describe(_ input: String, _ routeInput: RouteInput, _ plan: RoutePlan?) -> String {
        var lines = [input, "  as:       \(routeInput.relativePath) (\(routeInput.kind.rawValue), \(routeInput.bytes) bytes)"]
        if routeInput.kind == .unknown {
            lines.append("  note:     not a JPEG, PNG, TIFF, PNM or PDF by its content; it would be quarantined")
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
        case .batch: action = "a new file, with whatever else arrives within the batch window"
        }
        lines.append("  rule:     #\(plan.ruleNumber) \"\(plan.rule)\"")
        lines.append("  target:   \(plan.targetPath) (\(plan.mode.rawValue): \(action))")
        switch plan.original {
        case .archive: lines.append("  original: archived to \(plan.archivePath ?? "")")
        case .delete: lines.append("  original: deleted once the pages are safe in the target")
        case .keep: lines.append("  original: kept in the inbox")
        }
        return lines.joined(separator: "\n")
    }
}

/// What explain reads of an input: its size and its first bytes.
struct InputFacts {
    var bytes: Int64
    var kind: FileKind

    init?(path: String) {
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: path),
              let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        bytes = (attributes[.size] as? NSNumber)?.int64Value ?? 0
        kind = FileKind.sniff((try? handle.read(upToCount: FileKind.sniffLength)) ?? Data())
    }
}
