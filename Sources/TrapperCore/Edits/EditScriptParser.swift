/// Builds an `EditScript` from a script file's bytes, reporting every problem with its place in the
/// file. Pure: the library root comes in as a string, and no file is read or checked for existence
/// (whether the target exists, and has the pages named, is for the one who applies the script).
///
/// The format follows the name: `.toml`, or `.json` for scripts that programs write, with the same
/// structure. Both become the same tree of located values, so one reader serves both and a JSON
/// mistake is reported at its line:column as a TOML one is.
public enum EditScriptParser {
    /// Larger scripts are refused before parsing. Room for a workspace save of a million ink
    /// points (a page of dense handwriting several times over: some 16 MB as the workspace writes it).
    public static let maxBytes = 64 << 20
    /// Scripts with more edits are refused before any edit is read. More belong in several scripts
    /// (a script is one revision, and undo takes back a whole one). The workspace saves each
    /// stroke as an ink edit of its own (the eraser takes them one by one): a million points of
    /// handwriting are some 20,000 of them.
    public static let maxEdits = 100_000

    public enum Format: String, Sendable {
        case toml, json

        /// From the file name's extension, in any case; nil for any other.
        public init?(file: String) {
            let name = file.split(separator: "/").last.map(String.init) ?? file
            guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return nil }
            self.init(rawValue: name[name.index(after: dot)...].lowercased())
        }
    }

    /// The file a script's `target = "written"` names, as the parsed script's `target` has it.
    public static func target(_ written: String, libraryRoot: String) -> String {
        PathResolver.normalize(PathResolver.normalize(libraryRoot) + "/" + written)
    }

    public static func parse(_ bytes: [UInt8], file: String, libraryRoot: String) throws(EditScriptError) -> EditScript {
        func refuse(_ message: String, at location: SourceLocation = .start) -> EditScriptError {
            EditScriptError([ConfigDiagnostic(file: file, location: location, message: message)])
        }
        guard let format = Format(file: file) else {
            throw refuse("an edit script's name must end in .toml or .json")
        }
        guard bytes.count <= maxBytes else {
            throw refuse("the script is \(bytes.count) bytes, more than the limit of \(maxBytes) (64 MiB)")
        }
        let document: TOMLTable
        do {
            switch format {
            case .toml: document = try TOML.parse(bytes, limits: .init(maxBytes: maxBytes))
            case .json: document = try JSONReader.parse(bytes, limits: .init(maxBytes: maxBytes))
            }
        } catch {
            throw refuse(error.message, at: error.location)
        }
        if let edits = document.entry("edit"), case .array(let items) = edits.node.value, items.count > maxEdits {
            throw refuse("the script has \(items.count) edits, more than the limit of \(maxEdits); split it into several scripts",
                         at: edits.keyLocation)
        }
        let log = DiagnosticLog(file: file)
        let root = PathResolver.normalize(libraryRoot)
        let script = ScriptReader(log: log, format: format, libraryRoot: root).script(document, file: file)
        guard log.diagnostics.isEmpty, let script else { throw EditScriptError(log.diagnostics) }
        return script
    }
}

/// Every problem found in an edit script, in source order, each one line `FILE:LINE:COL: message`;
/// a script with any is not applied. Its own type (not `ConfigError`), so the command line can tell
/// bad input data (a script) from a bad configuration.
public struct EditScriptError: Error, Sendable, CustomStringConvertible {
    public var diagnostics: [ConfigDiagnostic]

    public init(_ diagnostics: [ConfigDiagnostic]) {
        self.diagnostics = diagnostics.sorted { $0.location < $1.location }
    }

    public var description: String { diagnostics.map(\.description).joined(separator: "\n") }
}
