import Foundation
import TrapperCore

/// One subcommand: its name and help, the arguments it accepts, and what it does.
protocol Command: Sendable {
    static var name: String { get }
    /// One line for the command list.
    static var summary: String { get }
    /// The synopsis, without the leading `pdftrapper `.
    static var synopsis: String { get }
    /// What it does and what its options mean.
    static var details: String { get }
    static var arguments: ArgumentSpec { get }
    static func run(_ arguments: ParsedArguments, _ context: CommandContext) -> ExitCode
}

/// What a command may touch of the outside world, so that tests and the daemon can supply their own.
struct CommandContext {
    var environment: [String: String] = ProcessInfo.processInfo.environment
    var currentDirectory: String = FileManager.default.currentDirectoryPath

    func out(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }

    /// Errors and diagnostics, one line each.
    func err(_ line: String) {
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }

    func absolute(_ path: String) -> String {
        path.hasPrefix("/") ? path : currentDirectory + "/" + path
    }

    /// The config: `--config FILE` when given, else found by the usual search.
    func loadConfig(_ explicit: String?) -> Result<Config, ExitCode> {
        let file = explicit ?? ConfigLocation.find(environment: environment) {
            FileManager.default.fileExists(atPath: $0)
        }
        do throws(ConfigLoader.Failure) {
            return .success(try ConfigLoader.load(file: file, environment: environment))
        } catch {
            switch error {
            case .unreadable(let file, let reason):
                err("pdftrapper: config \(file): \(reason)")
                if explicit == nil {
                    err("pdftrapper: looked for a config at: "
                        + ConfigLocation.candidates(environment: environment).joined(separator: ", ")
                        + " (name one with --config FILE or $PDFTRAPPER_CONFIG)")
                }
                return .failure(.noInput)
            case .invalid(let problems):
                problems.diagnostics.forEach { err($0.description) }
                return .failure(.config)
            }
        }
    }
}
