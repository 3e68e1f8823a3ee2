import Foundation
import Glibc
import System
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
        let child: ChildProcess
        do {
            child = try ChildProcess.start(program, arguments: Array(arguments.dropFirst()), environment: environment,
                                           input: .pipe, output: .pipeBoth)
        } catch {
            return .retry(error.description)
        }
        // Written and read on threads of their own: a hook that does not read its input, or prints
        // a lot, never blocks the delivery. The first 64 KiB of what it prints are kept.
        child.sendInput(body)
        let printed = child.collectOutput(limit: 65536)
        // Its process group goes with it (a shell's children, a background job holding its output
        // open), whether it ran past its time or not.
        let ending = child.ending(before: ChildProcess.monotonic() + subscriber.timeoutSeconds, every: 0.02)
        child.kill()
        // A child it left behind may hold the output open: its output is what came within a second.
        printed.waitForEnd(seconds: 1)
        let lines = String(decoding: printed.bytes, as: UTF8.self).split(whereSeparator: \.isNewline).map { String($0).oneLine }
        for line in lines.prefix(20) {
            log.log(.info, "pdftrapper: notify \(subscriber.name): \(program): \(line)")
        }
        switch ending {
        case nil: return .retry("\(program) ran past \(Quantities.describe(seconds: subscriber.timeoutSeconds)) and was killed")
        case .killed(let signal): return .retry("\(program) was killed by signal \(signal)")
        case .exited(0): return .delivered("\(program) exited 0")
        case .exited(let code):
            let said = "\(program) exited \(code)" + (lines.last.map { ": \($0)" } ?? "")
            return (64...78).contains(code) && code != 75 ? .refused(said) : .retry(said)
        }
    }
}
