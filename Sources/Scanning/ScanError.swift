import CSane

/// What went wrong talking to SANE, and in which call.
public enum ScanError: Error, Sendable, CustomStringConvertible {
    case sane(step: String, status: SANE_Status)

    public var description: String {
        switch self {
        case .sane(let step, let status):
            "\(step): \(String(cString: sane_strstatus(status)))"
        }
    }
}
