import Daemon
import Foundation
import Testing
import System
import TrapperCore

/// Not tests on their own: the child-process halves of the tests that need one (see `Helper`).
@Suite struct HelperTests {
    /// Sends one event with JournalLog: message and fields from the environment.
    @Test(.enabled(if: Helper.requested == "journalSend", "helper: runs only as a child of JournalLogTests"))
    func journalSend() {
        let env = ProcessInfo.processInfo.environment
        JournalLog(minimum: .debug).log(.warning, env["HELPER_MESSAGE"] ?? "", fields: [
            EventField.input: env["HELPER_INPUT"] ?? "",
            EventField.target: "line one\nline two",
            EventField.rule: "receipts",
            EventField.end: "7",
        ])
    }

    /// Writes which log `EventLogs.automatic` chose, as the process is (its stderr, its environment).
    @Test(.enabled(if: Helper.requested == "automaticChoice", "helper: runs only as a child of EventLogsTests"))
    func automaticChoice() throws {
        let log = EventLogs.automatic(environment: ProcessInfo.processInfo.environment, minimum: .info)
        let answer = log is JournalLog ? "journal" : log is StderrLog ? "stderr" : "other"
        try answer.write(toFile: ProcessInfo.processInfo.environment["HELPER_OUTPUT"]!, atomically: true, encoding: .utf8)
    }
}
