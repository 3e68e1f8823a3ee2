import Foundation
import TrapperCore

/// `pdftrapper scan`'s side of its scan: SANE runs in a scanner agent started as the daemon starts
/// its own (ScannerAgentProcess), `pdftrapper scanner-agent --profile NAME`, which scans into the
/// spool and says how it goes. The command waits for it within bounds: an agent that says nothing
/// for `stallSeconds`, or that dies, is ended with its process group, and the scan is reported in
/// one line naming the device and the step it was in. So a backend that hangs or crashes (some
/// cancel their reader threads unsafely, see ReaderThreads) never hangs or crashes the command.
public struct AgentScan {
    public enum Ending: Equatable {
        /// A whole batch, released in the spool for the caller to take; `summary` says what it holds.
        case scanned(batch: String, summary: String)
        /// Nothing to append: the exit code, why in one line, and the batch begun (cut short), if one was.
        case failed(ExitCode, reason: String, batch: String?)
    }

    /// How long a scan may say nothing by default: as long as the daemon gives its agent. The
    /// agent speaks before each SANE call and every second while a page comes in, so this is a
    /// backend stuck in one call, far longer than a lamp warming up or a slow flatbed's page.
    public static let defaultStallSeconds = ScannerSupervisor.stallSeconds
    /// Once the outcome is known, or a SANE call has failed, how long cancelling and closing may
    /// take: the pages are written by then, and a backend that hangs there hangs for good.
    static let cleanupSeconds: TimeInterval = 20

    public var executable: String
    public var configPath: String
    public var profile: ScanProfile
    public var targetOverride: String?
    public var environment: [String: String]
    public var stallSeconds: TimeInterval

    public init(executable: String, configPath: String, profile: ScanProfile, targetOverride: String?,
                environment: [String: String], stallSeconds: TimeInterval = AgentScan.defaultStallSeconds) {
        self.executable = executable
        self.configPath = configPath
        self.profile = profile
        self.targetOverride = targetOverride
        self.environment = environment
        self.stallSeconds = stallSeconds
    }

    /// Runs the scan to its end; `progress` hears of each page as the agent reads it.
    public func run(progress: (ScanCapture.Progress) -> Void) -> Ending {
        var arguments = ["--config", configPath, "--profile", profile.name]
        if let targetOverride { arguments += ["--to", targetOverride] }
        let agent: ScannerAgentProcess
        do {
            agent = try ScannerAgentProcess.start(executable: executable, arguments: arguments, environment: environment)
        } catch {
            return .failed(.ioError, reason: "scanner agent: \(error)", batch: nil)
        }
        var heard = Heard(device: profile.device ?? "the scanner")
        var ending: ScannerAgentProcess.Ending?
        var stalled: TimeInterval?
        while ending == nil {
            heard.take(agent.messages(), progress: progress)
            if let ended = agent.ending() {
                ending = ended
                break
            }
            let limit = heard.outcome != nil || heard.trouble != nil ? Self.cleanupSeconds : stallSeconds
            if Date().timeIntervalSince(agent.lastHeard) > limit {
                stalled = limit
                ending = agent.kill()
                break
            }
            agent.awaitOutput(seconds: 0.2)
        }
        // What it said before it ended.
        heard.take(agent.messages(), progress: progress)
        return heard.ending(stalled: stalled, ended: ending)
    }

    /// What the agent said so far.
    private struct Heard {
        var device: String
        var step = "starting"
        var batch: String?
        var summary: String?
        var trouble: (code: ExitCode, reason: String)?
        /// `batch` or `failed`: the scan's own end.
        var outcome: AgentMessage?

        init(device: String) {
            self.device = device
        }

        mutating func take(_ messages: [AgentMessage], progress: (ScanCapture.Progress) -> Void) {
            for message in messages {
                switch message {
                case .device(let name): device = name
                case .step(let text): step = text
                case .spooling(let folder): batch = folder
                case .page(let page): progress(page)
                case .trouble(let code, let reason): trouble = (code, reason)
                case .scanned(let text): summary = text
                case .batch, .failed: outcome = message
                case .alive, .status, .idle: break
                }
            }
        }

        /// The scan's end as the agent said it; else why it said nothing more, after whatever
        /// SANE call failed first.
        func ending(stalled: TimeInterval?, ended: ScannerAgentProcess.Ending?) -> Ending {
            switch outcome {
            case .batch(let folder)?: return .scanned(batch: folder, summary: summary ?? "a batch from \(device)")
            case .failed(let code, let reason)?: return .failed(code, reason: reason, batch: batch)
            default: break
            }
            let what = if let stalled {
                "no progress for \(Quantities.describe(seconds: stalled)) during \(step); the scan was stopped"
            } else {
                switch ended {
                case .killed(let signal)?: "the scan's process was killed by signal \(signal) during \(step)"
                case .exited(let code)?: "the scan's process exited with status \(code) during \(step)"
                case nil: "the scan's process ended during \(step)"
                }
            }
            guard let trouble else { return .failed(.ioError, reason: "\(device): \(what)", batch: batch) }
            return .failed(trouble.code, reason: "\(trouble.reason); then \(device): \(what)", batch: batch)
        }
    }
}
