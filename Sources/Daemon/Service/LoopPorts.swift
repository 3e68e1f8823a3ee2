import System

/// Where the daemon loop's runner hears that it is asked to stop or reload: `Signals` (SIGTERM,
/// SIGINT, SIGHUP, blocked and collected between jobs), or a test's script.
protocol SignalSource {
    /// The requests that arrived since the last call.
    mutating func pending() -> [Signals.Request]
    /// Whether a stop is waiting, without taking it.
    func peekStop() -> Bool
}

extension Signals: SignalSource {}

/// What the runner tells the service manager (`READY=1`, `STATUS=...`, `WATCHDOG=1`): systemd
/// through `ServiceNotifier`, or a test's record.
protocol ServiceManager {
    @discardableResult
    func notify(_ state: String) -> Bool
    /// The watchdog interval the unit asked for, in microseconds, or nil when it asked for none.
    var watchdogMicroseconds: UInt64? { get }
}

extension ServiceNotifier: ServiceManager {}

/// Everything the daemon's runner reaches the world through besides files and folders: the
/// signals it hears, the service manager it tells, the clock it reads, and how it starts a
/// scanner agent. `system` is the real set; `DaemonRunnerTests` scripts them.
struct DaemonPorts {
    var signals: any SignalSource
    var notifier: any ServiceManager
    var clock: any Clock
    /// Starts `pdftrapper scanner-agent` with these arguments; nil starts this program.
    var launchScannerAgent: ScannerSupervisor.Launch? = nil

    static func system() -> DaemonPorts {
        DaemonPorts(signals: Signals(), notifier: ServiceNotifier(), clock: SystemClock(), launchScannerAgent: nil)
    }
}
