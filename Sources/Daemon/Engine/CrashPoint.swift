import Foundation
import Glibc

/// Named moments in a commit where a test can have the process killed (`PDFTRAPPER_CRASH_AT=name`),
/// to prove that whatever moment a real crash picks, the target ends as the old revision or the
/// new one. SIGKILL, like a power cut, gives no chance to clean up.
public enum CrashPoint: String, CaseIterable, Sendable {
    case afterJournal = "after-journal"
    case midAppend = "mid-append"
    case beforeSync = "before-sync"
    case afterSync = "after-sync"
    case afterState = "after-state"
    case afterRename = "after-rename"
    /// A scan batch is whole in the spool, its target written down, its revision not begun.
    case scanSpooled = "scan-spooled"
    /// A scan batch's revision is durable; the batch is still in the spool.
    case scanCommitted = "scan-committed"
    /// An input split at separators: its first document is durable, the others are not begun.
    case splitFirstWritten = "split-first-written"
    /// An edit script's revision is durable; the script is still among the claims, not filed.
    case editCommitted = "edit-committed"
    /// A quarantine's note is durable and its event queued; the input is still in its claim.
    case quarantineAnnounced = "quarantine-announced"

    private static let chosen = ProcessInfo.processInfo.environment["PDFTRAPPER_CRASH_AT"]
    /// Set in a worker process (an edit script's): a crash there is a crash of the whole daemon.
    static let parentVariable = "PDFTRAPPER_CRASH_PARENT"
    private static let parent = ProcessInfo.processInfo.environment[parentVariable].flatMap { pid_t($0) }

    /// The variables a worker process gets so that a crash point in it takes the daemon along.
    static var workerEnvironment: [String: String] {
        chosen == nil ? [:] : [parentVariable: String(getpid())]
    }

    public func hit() {
        guard Self.chosen == rawValue else { return }
        if let parent = Self.parent { kill(parent, SIGKILL) }
        kill(getpid(), SIGKILL)
    }
}
