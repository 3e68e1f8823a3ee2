/// What a subcommand declares it accepts: flags (`--prepend`) and options with a value
/// (`--config FILE`, `--config=FILE`). Anything else that starts with `-` is a usage error.
public struct ArgumentSpec: Sendable {
    public var flags: Set<String>
    public var options: Set<String>

    public init(flags: Set<String> = [], options: Set<String> = []) {
        self.flags = flags
        self.options = options
    }
}

public enum ArgumentError: Error, Equatable, Sendable, CustomStringConvertible {
    /// An option the command does not take, with the nearest it does as a hint ("" when none is near).
    case unknownOption(String, hint: String = "")
    case missingValue(option: String)
    case unexpectedValue(flag: String)
    case repeatedOption(String)

    public var description: String {
        switch self {
        case .unknownOption(let name, let hint): "unknown option \(name)\(hint)"
        case .missingValue(let name): "option \(name) needs a value"
        case .unexpectedValue(let name): "option \(name) takes no value"
        case .repeatedOption(let name): "option \(name) given more than once"
        }
    }
}

/// A subcommand's arguments split into flags, option values and positionals. `--` ends options.
public struct ParsedArguments: Equatable, Sendable {
    public var flags: Set<String> = []
    public var options: [String: String] = [:]
    public var positionals: [String] = []

    public init(_ arguments: [String], spec: ArgumentSpec) throws(ArgumentError) {
        var rest = arguments[...]
        while let argument = rest.popFirst() {
            if argument == "--" {
                positionals += rest
                break
            }
            guard argument.hasPrefix("-"), argument != "-" else {
                positionals.append(argument)
                continue
            }
            let (name, inlineValue) = Self.split(argument)
            if spec.flags.contains(name) {
                guard inlineValue == nil else { throw .unexpectedValue(flag: name) }
                flags.insert(name)
            } else if spec.options.contains(name) {
                guard let value = inlineValue ?? rest.popFirst() else { throw .missingValue(option: name) }
                guard options[name] == nil else { throw .repeatedOption(name) }
                options[name] = value
            } else {
                throw .unknownOption(name, hint: Suggestion.hint(for: name, among: (spec.flags.union(spec.options)).sorted()))
            }
        }
    }

    public func has(_ flag: String) -> Bool { flags.contains(flag) }

    private static func split(_ argument: String) -> (String, String?) {
        guard argument.hasPrefix("--"), let equals = argument.firstIndex(of: "=") else { return (argument, nil) }
        return (String(argument[..<equals]), String(argument[argument.index(after: equals)...]))
    }
}
