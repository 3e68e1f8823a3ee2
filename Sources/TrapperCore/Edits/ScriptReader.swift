/// Reads a script's top level: its target, how its numbers are meant, and its edits in order.
struct ScriptReader {
    let log: DiagnosticLog
    let format: EditScriptParser.Format
    /// Absolute and normalised.
    let libraryRoot: String

    func script(_ document: TOMLTable, file: String) -> EditScript? {
        var top = TableReader(document, name: "", log: log)
        let target = self.target(&top)
        let units = top.choice("units", default: LengthUnit.pt)
        let origin = top.choice("origin", default: Origin.bottomLeft)
        // A byte offset is named as one: base_end. base_revision names the revision itself (its
        // end and a hash of its last bytes, as `pdftrapper history` and the workspace show it);
        // scripts written before used it for the byte offset, which is still read.
        let what = "a byte offset (where pdftrapper history says the revision ends)"
        var baseEnd = top.integer("base_end", in: 0...Int.max, what: what)
        var baseRevision: String?
        if let node = top.node("base_revision") {
            if case .string(let text) = node.value {
                if RevisionID(text) == nil {
                    top.complain("base_revision", node, expected: "a revision as pdftrapper history shows it (END-HASH)")
                }
                baseRevision = text
            } else if baseEnd != nil {
                log.add("base_revision is the old name of base_end; write base_end only", at: node.location)
            } else {
                baseEnd = top.integer("base_revision", in: 0...Int.max, what: what)
            }
        }
        let onConflict = top.choice("on_conflict", default: ConflictPolicy.fail)
        let purge = top.bool("purge")
        let edits = self.edits(&top, units: units)
        top.finish()
        guard let target, let edits else { return nil }
        return EditScript(file: file, target: target, units: units, origin: origin, baseEnd: baseEnd,
                          baseRevision: baseRevision, onConflict: onConflict, purge: purge, edits: edits)
    }

    // MARK: target

    /// The target PDF, written relative to the library root; absolute and normalised. Nothing outside
    /// the root, and nothing hidden (the library keeps its locks, journals and history in `.pdftrapper`).
    private func target(_ top: inout TableReader) -> String? {
        guard top.table["target"] != nil else {
            top.missing("target", in: "the script")
            return nil
        }
        guard let written = top.string("target") else { return nil }
        if let problem = Self.targetProblem(written.value) {
            log.add("target \(problem)", at: written.location)
            return nil
        }
        return PathResolver.normalize(libraryRoot + "/" + written.value)
    }

    static func targetProblem(_ written: String) -> String? {
        if written.isEmpty { return "must not be empty" }
        if written.unicodeScalars.contains("\0") { return "contains a NUL character" }
        if written.hasPrefix("/") { return "must be relative to the library root, not an absolute path (\"\(written)\")" }
        if written.hasPrefix("~") { return "must be relative to the library root, not start with '~' (\"\(written)\")" }
        var depth = 0
        var name = ""
        for part in written.split(separator: "/") where part != "." {
            if part == ".." {
                depth -= 1
                if depth < 0 { return "\"\(written)\" climbs out of the library root with '..'" }
                continue
            }
            if part.hasPrefix(".") {
                return "\"\(written)\" names a hidden file or folder (\"\(part)\"), where the library keeps its own state"
            }
            depth += 1
            name = String(part)
        }
        guard depth > 0, name.lowercased().hasSuffix(".pdf") else { return "must name a .pdf file, not \"\(written)\"" }
        return nil
    }

    // MARK: edits

    private func edits(_ top: inout TableReader, units: LengthUnit) -> [Edit]? {
        let howToAdd = format == .toml ? "add an [[edit]] table with an op" : "add \"edit\": [{\"op\": …}]"
        guard let node = top.node("edit") else {
            log.add("the script has no edits: \(howToAdd)", at: top.table.location)
            return nil
        }
        guard case .array(let items) = node.value else {
            let shape = format == .toml ? "[[edit]] tables" : "an array of objects"
            top.complain("edit", node, expected: "a list of edits (\(shape))")
            return nil
        }
        guard !items.isEmpty else {
            log.add("the script has no edits: \(howToAdd)", at: node.location)
            return nil
        }
        let reader = EditReader(log: log, units: units)
        var ops: [(op: String?, location: SourceLocation)] = []
        var edits: [Edit] = []
        for (index, item) in items.enumerated() {
            guard case .table(let table) = item.value else {
                top.complain("edit", item, expected: format == .toml ? "a table" : "an object")
                continue
            }
            let (op, edit) = reader.edit(TableReader(table, name: "edit[\(index + 1)]", log: log), index: index + 1)
            ops.append((op, table.location))
            if let edit { edits.append(edit) }
        }
        checkUndoStandsAlone(ops)
        return edits.count == items.count ? edits : nil
    }

    /// Undo and redo move along the target's history rather than make a revision, so a script that
    /// has one has nothing else. Reported once: at the second edit when the first is the undo or
    /// redo, else at the first undo or redo.
    private func checkUndoStandsAlone(_ ops: [(op: String?, location: SourceLocation)]) {
        let isHistory = { (op: String?) in op == "undo" || op == "redo" }
        guard ops.count > 1, let first = ops.firstIndex(where: { isHistory($0.op) }) else { return }
        let at = first == 0 ? 1 : first
        log.add("edit[\(at + 1)]: undo and redo stand alone in a script: they are not a revision of their own",
                at: ops[at].location)
    }
}
