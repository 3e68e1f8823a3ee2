import PDFAccess
import TrapperCore

extension TargetStore {
    /// The store as the daemon and every command open it: targets decoded with zlib, and a
    /// damaged one rewritten whole by qpdf, the log line saying what qpdf warned about.
    public static func open(state: StateDirectory, folders: ConfinedFolders?) throws(EngineError) -> TargetStore {
        try TargetStore(state: state, decoder: FlateStreamDecoder(), folders: folders) { path in
            let report = try PDFRewriter.repair(path: path)
            return "\(path): damaged; repaired by a full rewrite (\(report.bytesBefore) -> \(report.bytesAfter) bytes"
                + (report.warnings.isEmpty ? ")" : "; qpdf: \(report.warnings.joined(separator: "; ")))")
        }
    }
}
