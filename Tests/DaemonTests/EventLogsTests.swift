import Daemon
import Foundation
import Glibc
import Testing

@Suite struct EventLogsTests {
    /// "DEVICE:INODE" of an open file, as systemd would write it.
    static func deviceInode(_ fd: Int32) -> String {
        var status = stat()
        precondition(fstat(fd, &status) == 0)
        return "\(status.st_dev):\(status.st_ino)"
    }

    @Test func journalStreamMustNameTheOpenFile() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("stream-\(UUID().uuidString)").path
        let other = path + ".other"
        let fd = open(path, O_CREAT | O_RDWR, 0o600), otherFD = open(other, O_CREAT | O_RDWR, 0o600)
        defer { close(fd); close(otherFD); unlink(path); unlink(other) }
        let value = Self.deviceInode(fd)
        #expect(EventLogs.isJournalStream(value, fileDescriptor: fd))
        #expect(!EventLogs.isJournalStream(value, fileDescriptor: otherFD))
        #expect(!EventLogs.isJournalStream(nil, fileDescriptor: fd))
        for bad in ["", ":", "12", "12:", ":34", "a:b", "1:2:3", value + " "] {
            #expect(!EventLogs.isJournalStream(bad, fileDescriptor: fd), "\(bad)")
        }
        #expect(!EventLogs.isJournalStream(value, fileDescriptor: 9999), "a closed descriptor is no journal")
    }

    /// A child whose stderr is a file, with JOURNAL_STREAM naming that file, picks the journal; the
    /// same variable with stderr elsewhere (inherited by a grandchild, say) picks stderr.
    @Test(arguments: [true, false])
    func automaticChoiceInAChild(streamMatches: Bool) throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("choice-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let stderrFile = folder.appendingPathComponent("stderr"), answerFile = folder.appendingPathComponent("answer")
        let otherFile = folder.appendingPathComponent("other")
        _ = FileManager.default.createFile(atPath: stderrFile.path, contents: nil)
        _ = FileManager.default.createFile(atPath: otherFile.path, contents: nil)
        let named = open((streamMatches ? stderrFile : otherFile).path, O_RDONLY)
        defer { close(named) }

        var env = ProcessInfo.processInfo.environment
        env["JOURNAL_STREAM"] = Self.deviceInode(named)
        env["PDFTRAPPER_TEST_HELPER"] = "automaticChoice"
        env["HELPER_OUTPUT"] = answerFile.path
        let command = Helper.commandLine("automaticChoice")
        let run = try ToolRun.run(command[0], Array(command.dropFirst()), environment: env, stderrFile: stderrFile)
        #expect(run.status == 0, "\(run.stdout)")
        let answer = try String(contentsOf: answerFile, encoding: .utf8)
        #expect(answer == (streamMatches ? "journal" : "stderr"))
    }

    @Test func withoutJournalStreamPlainStderr() {
        #expect(EventLogs.automatic(environment: [:], minimum: .info) is StderrLog)
    }
}
