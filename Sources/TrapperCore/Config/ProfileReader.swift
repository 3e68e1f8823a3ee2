/// Reads one `[profile.NAME]` table: how to scan, and where the pages go.
struct ProfileReader {
    let log: DiagnosticLog
    let ruleNames: [String]

    /// Paper sizes by name, in millimetres.
    static let pageSizes: [String: (Double, Double)] = [
        "A3": (297, 420), "A4": (210, 297), "A5": (148, 210), "Letter": (215.9, 279.4), "Legal": (215.9, 355.6),
    ]

    func profile(named name: String, _ table: inout TableReader) -> ScanProfile? {
        let device = table.string("device")?.value
        let source = table.string("source").map { sourceValue($0.value) } ?? .flatbed
        let colorMode = table.choice("mode", default: ColorMode.color)
        let resolution = table.integer("resolution", in: 50...4800) ?? 300
        let pageSize = self.pageSize(&table) ?? (210, 297)
        let quality = table.integer("jpeg_quality", in: 1...100) ?? 85
        let options = self.options(&table)
        let target = RuleReader(log: log).template(&table, "target", required: false, pdf: true)
        let ingest = table.choice("ingest", default: IngestMode.append)
        let rule = table.string("rule")
        if let rule {
            if target != nil {
                log.add("\(table.qualified("rule")): give a profile a target or a rule, not both", at: rule.location)
            } else if !ruleNames.contains(rule.value) {
                log.add("\(table.qualified("rule")): no rule named \"\(rule.value)\""
                        + Suggestion.hint(for: rule.value, among: ruleNames), at: rule.location)
            }
        }
        var profile = ScanProfile(name: name, device: device, source: source, colorMode: colorMode, resolution: Int(resolution),
                                  pageSize: pageSize, jpegQuality: Int(quality), options: options, target: target,
                                  ingestMode: ingest)
        profile.rule = rule?.value
        if table.node("batch_window") != nil, let window = table.seconds("batch_window") {
            profile.batchWindowSeconds = window
            if ingest != .batch, let node = table.table["batch_window"] {
                log.add("\(table.qualified("batch_window")) applies only when ingest = \"batch\"", at: node.location)
            }
        }
        let stepKeys = ["find_page", "clean", "deskew", "orient", "blank", "blank_threshold", "compress", "ocr", "separator",
                        "separator_prefix"]
        if stepKeys.contains(where: { table.table[$0] != nil }) {
            var steps = table.pageSteps()
            steps.jpegQuality = Int(quality)
            profile.steps = steps
            if steps.separator != nil, target != nil, ingest != .new, ingest != .batch, let node = table.table["separator"] {
                log.add("\(table.qualified("separator")) splits a batch into new files: it needs ingest = \"new\"", at: node.location)
            }
        }
        return profile
    }

    private func sourceValue(_ text: String) -> ScanSource {
        switch text {
        case "flatbed": .flatbed
        case "adf": .adf
        case "adf-duplex": .adfDuplex
        default: .named(text)
        }
    }

    /// `"A4"`, `"Letter"`..., or `[width_mm, height_mm]`.
    private func pageSize(_ table: inout TableReader) -> (Double, Double)? {
        guard let node = table.node("page_size") else { return nil }
        switch node.value {
        case .string(let name):
            if let size = Self.pageSizes[name] { return size }
            let names = Self.pageSizes.keys.sorted()
            log.add("\(table.qualified("page_size")): unknown page size \"\(name)\" (known: \(names.joined(separator: ", ")), "
                    + "or [width_mm, height_mm])" + Suggestion.hint(for: name, among: names), at: node.location)
        case .array(let items) where items.count == 2:
            let numbers = items.compactMap { item -> Double? in
                switch item.value {
                case .integer(let value): Double(value)
                case .float(let value): value
                default: nil
                }
            }
            if numbers.count == 2, numbers.allSatisfy({ $0 > 0 && $0 <= 5000 }) { return (numbers[0], numbers[1]) }
            table.complain("page_size", node, expected: "[width_mm, height_mm] with sizes from 0 to 5000")
        default:
            table.complain("page_size", node, expected: "a paper name such as \"A4\" or [width_mm, height_mm]")
        }
        return nil
    }

    /// `[profile.NAME.options]`: device options by their SANE names, with plain values.
    private func options(_ table: inout TableReader) -> [(name: String, value: TOMLValue)] {
        guard let options = table.subtable("options") else { return [] }
        return options.table.entries.compactMap { entry in
            switch entry.node.value {
            case .string, .integer, .float, .boolean:
                return (entry.key, entry.node.value)
            default:
                options.complain(entry.key, entry.node, expected: "a string, number or boolean")
                return nil
            }
        }
    }
}
