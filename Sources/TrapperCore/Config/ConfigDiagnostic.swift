/// One problem in a config file, said the way compilers say it: `FILE:LINE:COL: message`.
public struct ConfigDiagnostic: Error, Equatable, Sendable, CustomStringConvertible {
    public var file: String
    public var location: SourceLocation
    public var message: String

    public init(file: String, location: SourceLocation, message: String) {
        self.file = file
        self.location = location
        self.message = message
    }

    public var description: String { "\(file):\(location.line):\(location.column): \(message)" }
}

/// Every problem found in a config, in source order; a config with any is not used.
public struct ConfigError: Error, Sendable, CustomStringConvertible {
    public var diagnostics: [ConfigDiagnostic]

    public init(_ diagnostics: [ConfigDiagnostic]) {
        self.diagnostics = diagnostics.sorted { $0.location < $1.location }
    }

    public var description: String { diagnostics.map(\.description).joined(separator: "\n") }
}
