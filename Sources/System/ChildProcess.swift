import CLinux
import Glibc

/// Another program started by this one: the one way PDFTrapper starts a process (a `command`
/// subscriber, a scanner agent, an edit worker). posix_spawn(3) with:
/// - a process group of its own, so that ending it ends whatever it started (a shell's children,
///   a SANE backend's helper);
/// - descriptors 0, 1 and 2 only: nothing else of the daemon's (a target's lock, a connection, the
///   listening socket) is held open by a child that outlives its purpose;
/// - the signal mask and dispositions a fresh program expects (the daemon blocks SIGTERM, SIGHUP
///   and SIGINT for its own loop, and ignores SIGPIPE).
///
/// Its pipes are the caller's to read, write and close; the process is reaped here, once, after its
/// group is killed: until it is reaped its id cannot become another group's.
public final class ChildProcess: @unchecked Sendable {
    public enum Input: Sendable {
        /// /dev/null.
        case none
        /// A pipe: `input` is its write end.
        case pipe
    }

    public enum Output: Sendable {
        /// Where this process writes.
        case inherited
        /// A pipe: `output` is its read end.
        case pipe
        /// Standard output and standard error on one pipe.
        case pipeBoth
    }

    /// How it ended.
    public enum Ending: Equatable, Sendable, CustomStringConvertible {
        case exited(Int32)
        case killed(signal: Int32)

        public var description: String {
            switch self {
            case .exited(let code): "exited with \(code)"
            case .killed(let signal): "killed by signal \(signal)"
            }
        }

        init(status: Int32) {
            self = status & 0x7f == 0 ? .exited(status >> 8 & 0xff) : .killed(signal: status & 0x7f)
        }
    }

    public struct StartFailure: Error, CustomStringConvertible {
        public var description: String
    }

    public let pid: pid_t
    /// The write end of its standard input (`Input.pipe`), close-on-exec.
    public let input: Int32?
    /// The read end of its standard output (`Output.pipe`, `.pipeBoth`), close-on-exec.
    public let output: Int32?
    private var status: Int32?

    private init(pid: pid_t, input: Int32?, output: Int32?) {
        self.pid = pid
        self.input = input
        self.output = output
    }

    /// Starts `program` (a path; no search of PATH) with `arguments` after its name and exactly
    /// `environment`.
    public static func start(_ program: String, arguments: [String], environment: [String: String],
                             input: Input = .none, output: Output = .inherited)
        throws(StartFailure) -> ChildProcess
    {
        var inputPipe: [Int32] = [-1, -1], outputPipe: [Int32] = [-1, -1]
        func closeAll() { (inputPipe + outputPipe).filter { $0 >= 0 }.forEach { close($0) } }
        // Close-on-exec from the start: a program another thread starts meanwhile never holds them.
        if input == .pipe, trapper_cloexec_pipe(&inputPipe) != 0 {
            throw StartFailure(description: "cannot make a pipe: \(String(cString: strerror(errno)))")
        }
        if output != .inherited, trapper_cloexec_pipe(&outputPipe) != 0 {
            let failure = StartFailure(description: "cannot make a pipe: \(String(cString: strerror(errno)))")
            closeAll()
            throw failure
        }

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        if input == .pipe {
            posix_spawn_file_actions_adddup2(&actions, inputPipe[0], STDIN_FILENO)
        } else {
            posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0)
        }
        if output != .inherited { posix_spawn_file_actions_adddup2(&actions, outputPipe[1], STDOUT_FILENO) }
        if output == .pipeBoth { posix_spawn_file_actions_adddup2(&actions, outputPipe[1], STDERR_FILENO) }
        trapper_spawn_close_from(&actions, 3)

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        posix_spawnattr_setpgroup(&attributes, 0)
        var none = sigset_t(), defaults = sigset_t()
        sigemptyset(&none)
        sigemptyset(&defaults)
        for signal in [SIGPIPE, SIGHUP, SIGTERM, SIGINT, SIGCHLD] { sigaddset(&defaults, signal) }
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

        var pid: pid_t = 0
        let result = withCStrings([program] + arguments) { argv in
            withCStrings(environment.map { "\($0.key)=\($0.value)" }.sorted()) { envp in
                posix_spawn(&pid, program, &actions, &attributes, argv, envp)
            }
        }
        // The child's ends are the child's now.
        if inputPipe[0] >= 0 { close(inputPipe[0]) }
        if outputPipe[1] >= 0 { close(outputPipe[1]) }
        guard result == 0 else {
            if inputPipe[1] >= 0 { close(inputPipe[1]) }
            if outputPipe[0] >= 0 { close(outputPipe[0]) }
            throw StartFailure(description: "cannot start \(program): \(String(cString: strerror(result)))")
        }
        return ChildProcess(pid: pid, input: input == .pipe ? inputPipe[1] : nil,
                            output: output == .inherited ? nil : outputPipe[0])
    }

    /// How it ended, once it has; nil while it runs. What it started in its group is killed
    /// before it is reaped.
    public func ending() -> Ending? {
        if status == nil {
            var info = siginfo_t()
            guard waitid(P_PID, id_t(pid), &info, WEXITED | WNOHANG | WNOWAIT) == 0, info.si_signo == SIGCHLD else { return nil }
            Glibc.kill(0 - pid, SIGKILL)
            reap()
        }
        return status.map(Ending.init(status:))
    }

    /// Waits for its end, looking every `interval` seconds, until `deadline` (a `monotonic` reading)
    /// passes or `giveUp` says so; nil when it still runs then.
    public func ending(before deadline: Double, every interval: Double, giveUp: () -> Bool = { false }) -> Ending? {
        while true {
            if let ended = ending() { return ended }
            if giveUp() || Self.monotonic() >= deadline { return nil }
            usleep(useconds_t(interval * 1_000_000))
        }
    }

    /// A signal to it alone (SIGTERM: an agent stops between pages).
    public func signal(_ number: Int32) {
        if status == nil { Glibc.kill(pid, number) }
    }

    /// SIGKILL to its whole process group, then reaps it.
    @discardableResult
    public func kill() -> Ending {
        if status == nil {
            Glibc.kill(0 - pid, SIGKILL)
            reap()
        }
        return Ending(status: status ?? 0)
    }

    /// Seconds on CLOCK_MONOTONIC, for deadlines that a change of the wall clock does not move.
    public static func monotonic() -> Double {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
    }

    private func reap() {
        var raw: Int32 = 0
        while waitpid(pid, &raw, 0) < 0 && errno == EINTR {}
        status = raw
    }
}

/// `body` gets a NULL-terminated array of C strings that live as long as the call.
private func withCStrings<R>(_ strings: [String], _ body: ([UnsafeMutablePointer<CChar>?]) -> R) -> R {
    var pointers = strings.map { strdup($0) }
    pointers.append(nil)
    defer { pointers.forEach { free($0) } }
    return body(pointers)
}
