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

    private static let chosen = ProcessInfo.processInfo.environment["PDFTRAPPER_CRASH_AT"]

    public func hit() {
        guard Self.chosen == rawValue else { return }
        kill(getpid(), SIGKILL)
    }
}
