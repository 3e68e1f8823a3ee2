import CLinux
import Foundation
import Glibc
import TrapperCore

/// One edit script applied in a process of its own (`pdftrapper edit-worker`), so that a script
/// that takes too long can be stopped at its deadline, and a stop of the daemon is honoured at
/// once, whatever the script is doing: the child is killed, and the target's journal rolls back
/// whatever it had half-written the next time the target is locked.
struct EditProcess {
    /// The daemon's pid, for the worker to check it still has that parent once it asked to die with it.
    static let parentVariable = "PDFTRAPPER_EDIT_PARENT"

    /// This program, and the environment minus systemd's own variables.
    let executable: String
    let environment: [String: String]

    enum Ending {
        /// The child finished and said what became of the script.
        case finished(EditWorkers.Finished)
        /// It ran past the deadline and was killed.
        case overran(seconds: Double)
        /// The daemon is stopping: it was killed, and the script stays claimed for the next start.
        case stopped
        /// It could not be started, or said nothing sensible.
        case failed(String)
    }

    /// Runs the worker on the claimed script at `path` until it ends, `seconds` pass, or `stopping`
    /// says so (looked at every 50 ms). The worker runs with `config`, the one the daemon runs
    /// now, handed over on its stdin: never what the file on disk says (an edit not yet reloaded).
    func run(claimed path: String, relativePath: String, config: Config, seconds: Double, stopping: () -> Bool) -> Ending {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        // A config made in memory (no bytes read) is only named: the worker reads its file.
        let handOver = !config.source.isEmpty
        process.arguments = ["edit-worker", "--config", config.file] + (handOver ? ["--config-on-stdin"] : []) + ["--", path, relativePath]
        process.environment = environment.filter { !["NOTIFY_SOCKET", "WATCHDOG_USEC", "WATCHDOG_PID"].contains($0.key) }
            .merging(CrashPoint.workerEnvironment) { $1 }
            .merging([Self.parentVariable: String(getpid())]) { $1 }
        let output = Pipe()
        process.standardOutput = output
        let input = Pipe()
        process.standardInput = input
        // What the child writes on stdout is read as it comes, so a long report never blocks it: by
        // a thread of its own blocked in read(2). Not FileHandle's readabilityHandler, whose dispatch
        // source can outlive the descriptor it watched: once that number is reused (the workspace
        // accepts connections all the time), libdispatch's event loop crashes on the stale event.
        let collected = Collected()
        do { try process.run() } catch { return .failed("cannot start \(executable): \(error)") }
        // At most 1 MiB (ConfigLoader.maxBytes): within what a pipe takes without a reader for
        // long, and the child reads it first thing.
        if handOver { try? input.fileHandleForWriting.write(contentsOf: Data(config.source)) }
        try? input.fileHandleForWriting.close()
        let reading = DispatchSemaphore(value: 0)
        let reader = Thread {
            collected.append(output.fileHandleForReading.readDataToEndOfFile())
            reading.signal()
        }
        reader.start()
        let started = Date()
        var ending: Ending?
        while process.isRunning {
            if stopping() {
                ending = .stopped
            } else if Date().timeIntervalSince(started) > seconds {
                ending = .overran(seconds: seconds)
            }
            if ending != nil {
                kill(process.processIdentifier, SIGKILL)
                break
            }
            usleep(50_000)
        }
        process.waitUntilExit()
        // The child is gone, and its end of the pipe with it: the read ends.
        reading.wait()
        if let ending { return ending }
        guard process.terminationReason == .exit,
              let finished = try? JSONDecoder().decode(EditWorkers.Finished.self, from: collected.data) else {
            return .failed("the edit worker ended with status \(process.terminationStatus) without a report")
        }
        return .finished(finished)
    }

    /// Bytes gathered from the child's stdout on the reading thread.
    private final class Collected: @unchecked Sendable {
        private let lock = NSLock()
        private var bytes = Data()

        func append(_ more: Data) {
            lock.lock()
            bytes.append(more)
            lock.unlock()
        }

        var data: Data {
            lock.lock()
            defer { lock.unlock() }
            return bytes
        }
    }
}

/// The child's side (`pdftrapper edit-worker`): applies one claimed script with the daemon's store
/// (confined to the configured folders), files it, and prints what became of it as one JSON object.
public enum EditWorker {
    /// `configOnStdin`: the config is the daemon's, read from stdin (as `configPath` held it when
    /// the daemon read it), not the file as it is now.
    public static func run(configPath: String, configOnStdin: Bool = false, claimed: String, relativePath: String,
                           environment: [String: String]) -> ExitCode {
        // Killed with the daemon (kill -9, a power cut of the service): the script stays claimed,
        // and the next start finishes it without applying it twice.
        _ = trapper_die_with_parent()
        // A daemon killed before that call left no one to signal this worker: it must not go on.
        if let parent = environment[EditProcess.parentVariable].flatMap(pid_t.init), getppid() != parent {
            return .ioError
        }
        let config: Config
        do {
            if configOnStdin {
                let bytes = FileHandle.standardInput.readDataToEndOfFile()
                config = try ConfigLoader.load(bytes: Array(bytes), file: configPath, environment: environment)
            } else {
                config = try ConfigLoader.load(file: configPath, environment: environment)
            }
        } catch {
            FileHandle.standardError.write(Data("pdftrapper edit-worker: \(error)\n".utf8))
            return .config
        }
        var finished = EditWorkers.Finished(relativePath: relativePath,
                                            outcome: EditJob.Outcome(script: relativePath, applied: nil, problems: [], filed: nil),
                                            storeLog: [])
        do {
            let store = try InboxDaemon.openStore(config)
            finished.outcome = EditJob(config: config, store: store).take(claimed, relativePath: relativePath)
            finished.storeLog = store.log
        } catch {
            finished.outcome.problems = ["\(claimed): \(error)"]
        }
        // Encoding plain Codable structs cannot fail.
        FileHandle.standardOutput.write(try! JSONEncoder().encode(finished))
        return .ok
    }
}
