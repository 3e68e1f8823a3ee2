import Foundation
import Glibc
import System
import Testing

/// System's ChildProcess, the one launcher of the project (hooks, scanner agents, edit workers):
/// what a started program gets (its pipes, exactly its environment, no other descriptor of ours,
/// fresh signals) and how it ends (its code, its signal, its whole group killed, a deadline).
@Suite struct ChildProcessTests {
    /// Everything on `output` until its end.
    func readAll(_ fd: Int32) -> String {
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = read(fd, &buffer, buffer.count)
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { break }
            bytes += buffer[0..<count]
        }
        close(fd)
        return String(decoding: bytes, as: UTF8.self)
    }

    func shell(_ script: String, environment: [String: String] = ["PATH": "/usr/bin:/bin"],
               input: ChildProcess.Input = .none, output: ChildProcess.Output = .pipeBoth) throws -> ChildProcess {
        try ChildProcess.start("/bin/sh", arguments: ["-c", script], environment: environment, input: input, output: output)
    }

    @Test func itsOutputItsErrorsAndItsExitCodeComeBack() throws {
        let child = try shell("read line; echo \"got $line\"; echo oops >&2; exit 3", input: .pipe)
        let line = Array("hello\n".utf8)
        #expect(line.withUnsafeBytes { write(child.input!, $0.baseAddress, $0.count) } == line.count)
        close(child.input!)
        #expect(readAll(child.output!) == "got hello\noops\n")
        #expect(child.ending(before: ChildProcess.monotonic() + 10, every: 0.01) == .exited(3))
    }

    @Test func itGetsExactlyTheEnvironmentItIsGiven() throws {
        let child = try ChildProcess.start("/usr/bin/env", arguments: [], environment: ["ONLY": "this one"], output: .pipe)
        #expect(readAll(child.output!) == "ONLY=this one\n")
        #expect(child.ending(before: ChildProcess.monotonic() + 10, every: 0.01) == .exited(0))
    }

    @Test func noDescriptorOfOursReachesIt() throws {
        // One opened without close-on-exec, as a careless open elsewhere in the daemon would; numbered
        // 100 or above, so it cannot be the descriptor the shell opens to list its own (3, in a test
        // process that has few open).
        let opened = open("/dev/null", O_RDONLY)
        try #require(opened >= 0)
        let leaky = fcntl(opened, F_DUPFD, 100)
        close(opened)
        try #require(leaky >= 100)
        defer { close(leaky) }
        let child = try shell("cd /proc/self/fd && echo *")
        // The shell's own listing: its three standard streams (and nothing numbered like ours).
        let listed = Set(readAll(child.output!).split(whereSeparator: \.isWhitespace).map(String.init))
        #expect(!listed.contains(String(leaky)))
        #expect(listed.isSuperset(of: ["0", "1", "2"]))
        child.kill()
    }

    @Test func itStartsWithNoSignalBlockedThatTheDaemonBlocks() throws {
        // The daemon's loop blocks these on its threads; a started program must not inherit that.
        var blocked = sigset_t(), before = sigset_t()
        sigemptyset(&blocked)
        for signal in [SIGTERM, SIGHUP, SIGINT] { sigaddset(&blocked, signal) }
        pthread_sigmask(SIG_BLOCK, &blocked, &before)
        defer { pthread_sigmask(SIG_SETMASK, &before, nil) }
        // Not through a shell: dash clears its mask itself.
        let child = try ChildProcess.start("/usr/bin/grep", arguments: ["SigBlk", "/proc/self/status"], environment: [:], output: .pipe)
        #expect(readAll(child.output!).trimmingCharacters(in: .whitespacesAndNewlines) == "SigBlk:\t0000000000000000")
        #expect(child.ending(before: ChildProcess.monotonic() + 10, every: 0.01) == .exited(0))
    }

    @Test func killingItEndsWhatItStartedToo() throws {
        let child = try shell("sleep 600 & echo $!; wait")
        // Its first line is the background sleep's pid; the output stays open while the sleep lives.
        var line: [UInt8] = []
        var byte: UInt8 = 0
        while read(child.output!, &byte, 1) == 1, byte != 10 { line.append(byte) }
        let sleeper = try #require(pid_t(String(decoding: line, as: UTF8.self)))
        #expect(child.ending() == nil)
        #expect(child.kill() == .killed(signal: SIGKILL))
        // The sleep is gone too (or a zombie waiting for init to reap it) once the kernel has
        // finished its exit.
        func state() -> Substring? {
            (try? String(contentsOfFile: "/proc/\(sleeper)/stat", encoding: .utf8))?.split(separator: ")").last?.split(separator: " ").first
        }
        let deadline = ChildProcess.monotonic() + 10
        while state() != nil, state() != "Z", ChildProcess.monotonic() < deadline { usleep(10_000) }
        #expect(state() == nil || state() == "Z", "\(String(describing: state()))")
        // Whatever happened, nothing is left behind; its output end closed with it.
        if let left = state(), left != "Z" { kill(sleeper, SIGKILL) }
        #expect(readAll(child.output!) == "")
    }

    @Test func aDeadlineLeavesItRunningForTheCallerToKill() throws {
        let child = try shell("sleep 600", output: .inherited)
        let started = ChildProcess.monotonic()
        #expect(child.ending(before: started + 0.2, every: 0.02) == nil)
        #expect(ChildProcess.monotonic() - started < 60)
        var asked = 0
        #expect(child.ending(before: started + 600, every: 0.02, giveUp: { asked += 1; return asked == 3 }) == nil)
        #expect(asked == 3)
        child.signal(SIGTERM)
        #expect(child.ending(before: ChildProcess.monotonic() + 30, every: 0.02) == .killed(signal: SIGTERM))
        // Reaped once: asking again gives the same ending.
        #expect(child.kill() == .killed(signal: SIGTERM))
    }

    @Test func aProgramThatIsNotThereIsAFailureNamingIt() {
        #expect {
            _ = try ChildProcess.start("/nonexistent/hook", arguments: [], environment: [:], output: .pipe)
        } throws: { error in
            "\(error)" == "cannot start /nonexistent/hook: No such file or directory"
        }
    }
}
