import Daemon
import Foundation
import PDFAccess
import TrapperCore

/// What the commands that change targets share: the engine's folder (`--state-dir`, else the
/// config's library's `.pdftrapper`, shared with the daemon, else the default state folder), the
/// target store over it, and its recovery of anything a crash left behind.
extension CommandContext {
    static let engineOptions: Set<String> = ["--config", "--state-dir"]

    /// The config when one is named or found; nil when there is none to find (commands that name
    /// their target need none). An invalid config is an error: the daemon would not run with it.
    func optionalConfig(_ arguments: ParsedArguments) -> Result<Config?, ExitCode> {
        if let file = arguments.options["--config"] {
            return loadConfig(file).map { $0 }
        }
        let found = ConfigLocation.candidates(environment: environment).first { FileManager.default.fileExists(atPath: $0) }
        guard let found else { return .success(nil) }
        return loadConfig(found).map { $0 }
    }

    func targetStore(_ arguments: ParsedArguments, config: Config?) -> Result<TargetStore, ExitCode> {
        let folder = arguments.options["--state-dir"].map(absolute)
            ?? config.map { StateDirectory.forLibrary($0).path }
            ?? StateDirectory.fallback(environment: environment)
        do {
            let store = try TargetStore(state: StateDirectory(path: folder), decoder: FlateStreamDecoder()) { path in
                let report = try PDFRewriter.repair(path: path)
                return "\(path): damaged; repaired by a full rewrite (\(report.bytesBefore) -> \(report.bytesAfter) bytes"
                    + (report.warnings.isEmpty ? ")" : "; qpdf: \(report.warnings.joined(separator: "; ")))")
            }
            try store.recoverAll()
            store.log.forEach { err("pdftrapper: \($0)") }
            return .success(store)
        } catch {
            err("pdftrapper: state folder \(folder): \(error)")
            return .failure(error.exitCode)
        }
    }

    /// Runs an engine operation, reporting its failure in one line.
    func report(_ command: String, _ error: any Error) -> ExitCode {
        if let error = error as? EngineError {
            err("pdftrapper \(command): \(error)")
            return error.exitCode
        }
        err("pdftrapper \(command): \(error)")
        return .ioError
    }
}
