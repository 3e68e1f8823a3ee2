import CLinux
import Foundation
import Glibc
import System
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
        // A config made in memory (no bytes read) is only named: the worker reads its file.
        let handOver = !config.source.isEmpty
        let arguments = ["edit-worker", "--config", config.file] + (handOver ? ["--config-on-stdin"] : []) + ["--", path, relativePath]
        let childEnvironment = environment.filter { !ServiceNotifier.variables.contains($0.key) }
            .merging(CrashPoint.workerEnvironment) { $1 }
            .merging([Self.parentVariable: String(getpid())]) { $1 }
        let child: ChildProcess
        do {
            child = try ChildProcess.start(executable, arguments: arguments, environment: childEnvironment, input: .pipe, output: .pipe)
        } catch {
            return .failed(error.description)
        }
        // What the child writes on stdout is read as it comes, so a long report never blocks it.
        let report = child.collectOutput()
        // The config, at most 1 MiB (ConfigLoader.maxBytes); the child reads it first thing.
        child.sendInput(handOver ? config.source : [])
        let deadline = ChildProcess.monotonic() + seconds
        var stopped = false
        let ended = child.ending(before: deadline, every: 0.05) {
            stopped = stopping()
            return stopped
        }
        child.kill()
        // The child is gone, and its end of the pipe with it: the read ends.
        report.waitForEnd()
        guard let ended else { return stopped ? .stopped : .overran(seconds: seconds) }
        guard case .exited = ended, let finished = try? JSONDecoder().decode(EditWorkers.Finished.self, from: Data(report.bytes)) else {
            return .failed("the edit worker \(ended) without a report")
        }
        return .finished(finished)
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
            let store = try DaemonParts.openStore(config)
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
