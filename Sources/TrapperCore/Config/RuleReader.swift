/// Reads `[[rule]]` tables: what each takes (`[rule.match]`) and where its pages go.
struct RuleReader {
    let log: DiagnosticLog

    func rules(_ tables: [TableReader]) -> [Rule] {
        var seen: [String: String] = [:]
        return tables.compactMap { table in
            var table = table
            defer { table.finish() }
            let name = table.string("name", required: true)
            if let name, let earlier = seen[name.value] {
                log.add("\(table.name).name: \"\(name.value)\" is already the name of \(earlier)", at: name.location)
            } else if let name {
                seen[name.value] = table.name
            }
            var matchTable = table.subtable("match")
            let match = matchTable.map { _ in self.match(&matchTable!) } ?? RuleMatch()
            matchTable?.finish()
            let target = template(&table, "target", required: true, pdf: true)
            let mode = table.choice("mode", default: IngestMode.append)
            let window = table.node("batch_window").flatMap { _ in table.seconds("batch_window") }
            if window != nil, mode != .batch, let node = table.table["batch_window"] {
                log.add("\(table.qualified("batch_window")) applies only when mode = \"batch\"", at: node.location)
            }
            let original = table.choice("original", default: OriginalDisposition.archive)
            let archiveAs = template(&table, "archive_as", required: false, pdf: false)
            let collate = table.choice("collate", default: Collation.none)
            let collateWindow = table.node("collate_window").flatMap { _ in table.seconds("collate_window") }
            let oneSided = table.strings("one_sided")
            if oneSided != nil, collate != .doubleSided, let node = table.table["one_sided"] {
                log.add("\(table.qualified("one_sided")) names one-sided inputs of a double-sided rule: it needs "
                        + "collate = \"double-sided\"", at: node.location)
            }
            var steps = table.pageSteps()
            if steps.separator != nil, mode != .new, let node = table.table["separator"] {
                log.add("\(table.qualified("separator")) splits an input into new files: it needs mode = \"new\"", at: node.location)
            }
            if table.table["jpeg_quality"] != nil { steps.jpegQuality = table.integer("jpeg_quality", in: 1...100).map { Int($0) } }
            guard let name, let target else { return nil }
            var rule = Rule(name: name.value, match: match, target: target, mode: mode, batchWindowSeconds: window ?? 120,
                            original: original, archiveAs: archiveAs ?? Rule.defaultArchiveAs)
            rule.steps = steps
            if table.table["active_content"] != nil {
                let choice = table.choice("active_content", default: ActiveContent.strip)
                rule.activeContent = choice
                rule.steps.activeContent = choice
            }
            rule.collate = collate
            rule.oneSided = oneSided?.map { Glob($0.value) } ?? []
            rule.collateWindowSeconds = collateWindow ?? 1800
            return rule
        }
    }

    private func match(_ table: inout TableReader) -> RuleMatch {
        var match = RuleMatch()
        if let folder = table.string("folder") {
            let parts = folder.value.split(separator: "/")
            if folder.value.hasPrefix("/") || parts.contains("..") {
                log.add("\(table.qualified("folder")) is a folder inside the inbox, written relative to it, without '..'",
                        at: folder.location)
            }
            match.folder = parts.joined(separator: "/")
        }
        match.globs = table.strings("glob")?.map { Glob($0.value) } ?? []
        if let regex = table.string("regex") {
            do {
                _ = try Regex(regex.value)
                match.regex = regex.value
            } catch {
                log.add("\(table.qualified("regex")) is not a valid regular expression: \(error)", at: regex.location)
            }
        }
        if let kinds = table.strings("type") {
            match.kinds = Set(kinds.flatMap { kind(named: $0.value, at: $0.location, in: table) })
        }
        match.minBytes = table.bytes("min_size")
        match.maxBytes = table.bytes("max_size")
        if table.table["source"] != nil { match.source = table.choice("source", default: InputSource.inbox) }
        match.button = table.string("button")?.value
        match.profile = table.string("profile")?.value
        return match
    }

    private func kind(named name: String, at location: SourceLocation, in table: TableReader) -> [FileKind] {
        if name == "image" { return FileKind.allCases.filter(\.isImage) }
        if let kind = FileKind(rawValue: name), kind != .unknown { return [kind] }
        let names = FileKind.allCases.filter { $0 != .unknown }.map(\.rawValue) + ["image"]
        log.add("\(table.qualified("type")): unknown file type \"\(name)\" (known: \(names.joined(separator: ", ")))"
                + Suggestion.hint(for: name, among: names), at: location)
        return []
    }

    /// A path template; `pdf` requires it to name a `.pdf` file.
    func template(_ table: inout TableReader, _ key: String, required: Bool, pdf: Bool) -> PathTemplate? {
        guard let written = table.string(key, required: required) else { return nil }
        do {
            let template = try PathTemplate(written.value)
            if pdf, !written.value.lowercased().hasSuffix(".pdf") {
                log.add("\(table.qualified(key)) must name a .pdf file, as in \"\(written.value).pdf\"", at: written.location)
                return nil
            }
            return template
        } catch {
            // Point at the character inside the string: one past the opening quote.
            for problem in [error] + error.others {
                let at = SourceLocation(line: written.location.line, column: written.location.column + 1 + problem.offset)
                log.add("\(table.qualified(key)): \(problem.message)", at: at)
            }
            return nil
        }
    }
}
