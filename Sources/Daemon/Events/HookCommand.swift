import CLinux
import Foundation
import Glibc
import TrapperCore

/// A `command` subscriber: the program run without a shell, the event's JSON on its standard input
/// and its fields as `PDFTRAPPER_*` variables, killed (with whatever it started) at the
/// subscriber's timeout. What it prints goes to the log. Exit 0 is delivered; 64 to 78 but 75
/// (sysexits.h: the input is bad, the config is wrong) refuse the event for good; any other
/// failure is tried again later.
enum HookCommand {
    static func run(_ command: [String], body: [UInt8], subscriber: Subscriber, log: any EventLog) -> DeliveryAttempt.Result {
        guard let event = try? OutboundEvent(body: body) else { return .refused("the queued event is not an event") }
        let arguments = Subscriber.arguments(command, for: event)
        let program = arguments[0]
        // A clean environment: what the hook needs is the event, not the daemon's variables.
        let environment = ["PATH": "/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8"].merging(event.environment) { $1 }
        var inputPipe: [Int32] = [-1, -1], outputPipe: [Int32] = [-1, -1]
        guard trapper_cloexec_pipe(&inputPipe) == 0 else { return .retry("cannot make a pipe: \(String(cString: strerror(errno)))") }
        guard trapper_cloexec_pipe(&outputPipe) == 0 else {
            inputPipe.forEach { close($0) }
            return .retry("cannot make a pipe: \(String(cString: strerror(errno)))")
        }
        let input = inputPipe, output = outputPipe
        let spawned = spawn(arguments, environment: environment, stdin: input[0], stdout: output[1])
        close(input[0])
        close(output[1])
        guard case .success(let pid) = spawned else {
            close(input[1])
            close(output[0])
            if case .failure(let code) = spawned { return .retry("cannot start \(program): \(String(cString: strerror(code.code.rawValue)))") }
            return .retry("cannot start \(program)")
        }
        // Written and read on threads of their own: a hook that does not read its input, or prints
        // a lot, never blocks the delivery; one that exits without reading makes the write fail
        // (EPIPE: the writing thread blocks SIGPIPE, which would otherwise end the daemon).
        let printed = Printed()
        let reading = DispatchSemaphore(value: 0)
        Thread {
            printed.read(output[0])
            close(output[0])
            reading.signal()
        }.start()
        Thread {
            var pipeSignal = sigset_t()
            sigemptyset(&pipeSignal)
            sigaddset(&pipeSignal, SIGPIPE)
            pthread_sigmask(SIG_BLOCK, &pipeSignal, nil)
            _ = body.withUnsafeBytes { Durable.writeAll(input[1], $0) }
            close(input[1])
        }.start()
        let deadline = Date().addingTimeInterval(subscriber.timeoutSeconds)
        var status: Int32 = 0
        var ended = false
        while !ended, Date() < deadline {
            ended = waitpid(pid, &status, WNOHANG) == pid
            if !ended { usleep(20_000) }
        }
        // Its process group: what it started goes with it (a shell's children, a background job
        // holding its output open), whether it ran past its time or not.
        kill(0 - pid, SIGKILL)
        if !ended { waitpid(pid, &status, 0) }
        // A child it left behind may hold the output open: its output is what came within a second.
        _ = reading.wait(timeout: .now() + 1)
        for line in printed.lines.prefix(20) {
            log.log(.info, "pdftrapper: notify \(subscriber.name): \(program): \(line)")
        }
        if !ended { return .retry("\(program) ran past \(Quantities.describe(seconds: subscriber.timeoutSeconds)) and was killed") }
        let signalled = status & 0x7f
        if signalled != 0 { return .retry("\(program) was killed by signal \(signalled)") }
        let code = (status >> 8) & 0xff
        if code == 0 { return .delivered("\(program) exited 0") }
        let said = "\(program) exited \(code)" + (printed.lines.last.map { ": \($0)" } ?? "")
        return (64...78).contains(code) && code != 75 ? .refused(said) : .retry(said)
    }

    /// posix_spawn(3) in a process group of its own, with the signal mask and dispositions a fresh
    /// program expects (the daemon blocks SIGTERM, SIGHUP and SIGINT for its own loop), its input
    /// and output on the given pipes.
    private static func spawn(_ arguments: [String], environment: [String: String], stdin: Int32, stdout: Int32)
        -> Result<pid_t, POSIXError>
    {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, stdin, 0)
        posix_spawn_file_actions_adddup2(&actions, stdout, 1)
        posix_spawn_file_actions_adddup2(&actions, stdout, 2)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t(), defaults = sigset_t()
        sigemptyset(&none)
        sigemptyset(&defaults)
        for signal in [SIGPIPE, SIGHUP, SIGTERM, SIGINT] { sigaddset(&defaults, signal) }
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setpgroup(&attributes, 0)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETPGROUP))
        let argv = arguments.map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        var pid: pid_t = 0
        let result = posix_spawn(&pid, arguments[0], &actions, &attributes, argv, envp)
        return result == 0 ? .success(pid) : .failure(POSIXError(POSIXErrorCode(rawValue: result) ?? .EIO))
    }

    /// What the hook printed, read on its own thread; the first 64 KiB.
    private final class Printed: @unchecked Sendable {
        private let lock = NSLock()
        private var bytes: [UInt8] = []

        func read(_ fd: Int32) {
            var buffer = [UInt8](repeating: 0, count: 4096)
            while true {
                let count = Glibc.read(fd, &buffer, buffer.count)
                if count < 0, errno == EINTR { continue }
                guard count > 0 else { return }
                lock.lock()
                if bytes.count < 65536 { bytes += buffer.prefix(min(count, 65536 - bytes.count)) }
                lock.unlock()
            }
        }

        var lines: [String] {
            lock.lock()
            defer { lock.unlock() }
            return String(decoding: bytes, as: UTF8.self).split(whereSeparator: \.isNewline).map { String($0).oneLine }
        }
    }
}
