import Foundation
import Glibc
import TrapperCore

/// The daemon's side of the scanner agent: starts `pdftrapper scanner-agent` when the config has
/// `[[scanner]]` entries, reads what it says without ever blocking, and restarts it (1 s, 2 s, ... up
/// to 60 s apart) when it exits, or kills it when it has said nothing for `stallSeconds` (a backend
/// that hung). Batches it reports are handed to the daemon's loop, which appends them between
/// inbox jobs, so a scan and an inbox file never write one target at the same time.
final class ScannerSupervisor {
    private let executable: String
    private let configPath: String
    private let environment: [String: String]
    private let log: (LogLevel, String) -> Void
    private var pid: pid_t = 0
    private var output: Int32 = -1
    private var pending = Data()
    private var lastHeard = Date()
    private var started = Date()
    private var restartAt: Date?
    private var restartDelay: TimeInterval = 1

    /// A page at 1200 dpi on a slow flatbed stays well under this; a hung backend does not.
    static let stallSeconds: TimeInterval = 300

    enum Event: Equatable {
        case status(String)
        case idle
        case batch(String)
    }

    init(executable: String, configPath: String, environment: [String: String], log: @escaping (LogLevel, String) -> Void) {
        self.executable = executable
        self.configPath = configPath
        self.environment = environment
        self.log = log
    }

    deinit { stop() }

    var isRunning: Bool { pid > 0 }

    func start() {
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else {
            log(.error, "pdftrapper: scanner agent: pipe: \(String(cString: strerror(errno)))")
            scheduleRestart()
            return
        }
        for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, fds[1], STDOUT_FILENO)
        posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0)
        // The agent is no service of its own: systemd hears only from the daemon.
        let childEnvironment = environment.filter { !["NOTIFY_SOCKET", "WATCHDOG_USEC", "WATCHDOG_PID"].contains($0.key) }
            .map { "\($0.key)=\($0.value)" }
        let arguments = [executable, "scanner-agent", "--config", configPath]
        var child: pid_t = 0
        let status = withCStrings(arguments) { argv in
            withCStrings(childEnvironment) { envp in posix_spawn(&child, executable, &actions, nil, argv, envp) }
        }
        close(fds[1])
        guard status == 0 else {
            close(fds[0])
            log(.error, "pdftrapper: scanner agent: cannot start \(executable): \(String(cString: strerror(status)))")
            scheduleRestart()
            return
        }
        _ = fcntl(fds[0], F_SETFL, fcntl(fds[0], F_GETFL) | O_NONBLOCK)
        pid = child
        output = fds[0]
        lastHeard = Date()
        started = Date()
        restartAt = nil
    }

    /// What the agent said since the last call; restarts it when it died or hung.
    func events(now: Date = Date()) -> [Event] {
        if pid == 0 {
            if let restartAt, now >= restartAt { start() }
            return []
        }
        var events: [Event] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = read(output, &buffer, buffer.count)
            if count > 0 {
                pending.append(contentsOf: buffer[0..<count])
                lastHeard = now
                continue
            }
            break
        }
        while let newline = pending.firstIndex(of: 0x0A) {
            let line = String(decoding: pending[pending.startIndex..<newline], as: UTF8.self)
            pending.removeSubrange(pending.startIndex...newline)
            if line.hasPrefix("batch ") { events.append(.batch(String(line.dropFirst(6)))) }
            if line.hasPrefix("status ") { events.append(.status(String(line.dropFirst(7)))) }
            if line == "idle" { events.append(.idle) }
        }
        var status: Int32 = 0
        if waitpid(pid, &status, WNOHANG) == pid {
            let how = status & 0x7f == 0 ? "exited with \(status >> 8 & 0xff)" : "killed by signal \(status & 0x7f)"
            log(.warning, "pdftrapper: scanner agent \(how); restarting it in \(Int(nextDelay(now))) s")
            forget()
            scheduleRestart(now)
        } else if now.timeIntervalSince(lastHeard) > Self.stallSeconds {
            log(.error, "pdftrapper: scanner agent silent for \(Int(Self.stallSeconds)) s (a scanner backend hung?); killing it")
            kill(pid, SIGKILL)
            _ = waitpid(pid, &status, 0)
            forget()
            scheduleRestart(now)
        }
        return events
    }

    /// Passes a reload on; the agent takes it between polls.
    func reload() {
        if pid > 0 { kill(pid, SIGHUP) }
    }

    /// Asks the agent to stop (between pages), and kills it if it has not within 10 s.
    func stop() {
        guard pid > 0 else { return }
        kill(pid, SIGTERM)
        var status: Int32 = 0
        let deadline = Date().addingTimeInterval(10)
        while waitpid(pid, &status, WNOHANG) == 0 {
            if Date() > deadline {
                kill(pid, SIGKILL)
                _ = waitpid(pid, &status, 0)
                break
            }
            usleep(20_000)
        }
        forget()
    }

    private func forget() {
        if output >= 0 { close(output) }
        output = -1
        pid = 0
        pending.removeAll()
    }

    private func nextDelay(_ now: Date) -> TimeInterval {
        // An agent that ran a minute was healthy: start the backoff again.
        now.timeIntervalSince(started) > 60 ? 1 : restartDelay
    }

    private func scheduleRestart(_ now: Date = Date()) {
        let delay = nextDelay(now)
        restartAt = now.addingTimeInterval(delay)
        restartDelay = min(60, delay * 2)
    }
}

/// `body` gets a NULL-terminated array of C strings that live as long as the call.
private func withCStrings<R>(_ strings: [String], _ body: ([UnsafeMutablePointer<CChar>?]) -> R) -> R {
    var pointers = strings.map { strdup($0) }
    pointers.append(nil)
    defer { pointers.forEach { free($0) } }
    return body(pointers)
}
