import Glibc
import TrapperCore

/// Picks the event log for where the daemon runs.
public enum EventLogs {
    /// The journal when stderr is connected to it (a systemd service with the default
    /// `StandardError=journal`), so events keep their fields and priority; otherwise plain lines on
    /// stderr (a terminal, a pipe, `StandardError=file:...`).
    public static func automatic(
        environment: [String: String], minimum: LogLevel
    ) -> any EventLog {
        if isJournalStream(environment["JOURNAL_STREAM"], fileDescriptor: 2) {
            JournalLog(minimum: minimum)
        } else {
            StderrLog(minimum: minimum)
        }
    }

    /// systemd.exec(5): the service manager sets `JOURNAL_STREAM` to "DEVICE:INODE" of the stream
    /// it connected to stdout/stderr. The variable is inherited by children whose stderr may go
    /// elsewhere, so it counts only when it names the very file open on `fileDescriptor`.
    public static func isJournalStream(_ value: String?, fileDescriptor: Int32) -> Bool {
        guard let value, let (device, inode) = parseDeviceInode(value) else { return false }
        var status = stat()
        guard fstat(fileDescriptor, &status) == 0 else { return false }
        return UInt64(status.st_dev) == device && UInt64(status.st_ino) == inode
    }

    /// "DEVICE:INODE", both decimal (systemd writes them with "%lu:%lu").
    public static func parseDeviceInode(_ value: String) -> (device: UInt64, inode: UInt64)? {
        let parts = value.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, let device = UInt64(parts[0]), let inode = UInt64(parts[1]) else { return nil }
        return (device, inode)
    }
}
