/// Exit codes from sysexits(3), so that scripts and systemd's RestartPreventExitStatus= can tell a
/// bad config (never worth a restart) from a temporary failure (worth one).
public enum ExitCode: Int32, Error, Sendable {
    case ok = 0
    case failure = 1
    /// `status`: the daemon is not running (as LSB init scripts and systemctl say it).
    case notRunning = 3
    case usage = 64
    case dataError = 65
    case noInput = 66
    /// A service the command needs is not there now (no scanner attached).
    case unavailable = 69
    case cantCreate = 73
    case ioError = 74
    case temporaryFailure = 75
    case config = 78
}
