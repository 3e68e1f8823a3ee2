/// A signature saved as pen strokes (`NAME.toml`, or `NAME.json` with the same structure), as a
/// signature pad or a canvas records them:
///
/// ```toml
/// origin = "top-left"      # the default: y grows downward, as on screens; or "bottom-left"
/// width = 2.5              # pen width in the strokes' own units (default 2)
/// color = "#1a237e"        # default black
/// strokes = [[[10, 40], [20, 12], [31, 40]], [[40, 30], [70, 30]]]
/// ```
///
/// Only the strokes' shape counts: the signature is scaled into the box a script gives.
public enum SignatureInkParser {
    public struct Ink: Sendable, Equatable {
        /// y up, in the file's units.
        public var strokes: [[Point]]
        public var width: Double
        public var color: RGBColor
    }

    public static func parse(_ bytes: [UInt8], file: String) throws(EditScriptError) -> Ink {
        func refuse(_ message: String, at location: SourceLocation = .start) -> EditScriptError {
            EditScriptError([ConfigDiagnostic(file: file, location: location, message: message)])
        }
        let isJSON = EditScriptParser.Format(file: file) == .json
        let document: TOMLTable
        do {
            let limits = TOML.Limits(maxBytes: EditScriptParser.maxBytes)
            document = isJSON ? try JSONReader.parse(bytes, limits: .init(maxBytes: EditScriptParser.maxBytes))
                : try TOML.parse(bytes, limits: limits)
        } catch {
            throw refuse(error.message, at: error.location)
        }
        let log = DiagnosticLog(file: file)
        var table = TableReader(document, name: "", log: log)
        let origin = table.choice("origin", default: Origin.topLeft)
        let width = table.table["width"] == nil ? 2 : table.number("width", in: 0.001...10_000, what: "a pen width")
        let color = table.table["color"] == nil ? .some(.black) : table.color("color", allowNone: false)
        var strokes: [[ScriptPoint]]?
        if let node = table.node("strokes", required: true) {
            var list: [[ScriptPoint]] = []
            if case .array(let items) = node.value, !items.isEmpty {
                for (index, item) in items.enumerated() {
                    guard case .array(let points) = item.value, !points.isEmpty else {
                        log.add("strokes[\(index + 1)] must be a list of [x, y] points", at: item.location)
                        continue
                    }
                    let read = points.enumerated().compactMap {
                        table.pointValue($1, name: "strokes[\(index + 1)][\($0 + 1)]", units: .pt)
                    }
                    if read.count == points.count { list.append(read) }
                }
                if list.count == items.count { strokes = list }
            } else {
                table.complain("strokes", node, expected: "a list of strokes, each a list of [x, y] points")
            }
        }
        table.finish()
        guard log.diagnostics.isEmpty, let strokes, let width, let color = color ?? nil else {
            throw EditScriptError(log.diagnostics)
        }
        let flip = origin == .topLeft ? -1.0 : 1.0
        return Ink(strokes: strokes.map { $0.map { Point($0.x, flip * $0.y) } }, width: width, color: color)
    }
}
