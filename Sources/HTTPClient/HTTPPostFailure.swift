import CCurl

/// Why a post got no answer.
public enum HTTPPostFailure: Error, Sendable, CustomStringConvertible {
    /// libcurl could not be opened or started: no post can work until it is installed.
    case library(String)
    /// The transfer failed (connection refused, timeout, TLS, a URL that is not http or https):
    /// curl's code, and its message with the error buffer's detail after it.
    case transfer(code: Int, reason: String)

    /// Worth telling apart: a receiver that is slow may take the same post later.
    public var timedOut: Bool {
        if case .transfer(let code, _) = self { return code == Int(CURLE_OPERATION_TIMEDOUT.rawValue) }
        return false
    }

    public var description: String {
        switch self {
        case .library(let reason): reason
        case .transfer(let code, let reason): "\(reason) (curl error \(code))"
        }
    }
}
