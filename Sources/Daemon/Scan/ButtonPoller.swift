import Foundation
import Scanning
import TrapperCore

/// Watches the buttons of one `[[scanner]]`: opens the device for each poll and closes it after
/// (unless `keep_open`), so other programs can scan between polls. A press is a button going from
/// up to down; it starts one job, and the same button is ignored for 2.5 s after its job, so
/// neither a held button nor a bouncing one starts a second. A busy device is left alone for
/// `busy_backoff`; an unplugged one is retried quietly, and each of these is logged once.
final class ButtonPoller {
    let binding: ScannerBinding
    private let log: (LogLevel, String) -> Void
    private var device: SaneDevice?
    private var down: [String: Bool] = [:]
    private var quietUntil: [String: Date] = [:]
    private var nextPoll = Date.distantPast
    /// What is wrong now, logged when it began; nil while the device answers.
    private(set) var trouble: Trouble?
    private var missingButtons: Set<String> = []

    enum Trouble: Equatable { case busy, unavailable }

    static let repeatGuard: TimeInterval = 2.5

    init(binding: ScannerBinding, log: @escaping (LogLevel, String) -> Void) {
        self.binding = binding
        self.log = log
    }

    struct Press {
        var button: String
        var profile: String
        /// Open, for the job; hand it back with `finished(_:at:)`.
        var device: SaneDevice
    }

    var holdsDevice: Bool { device != nil }

    func due(_ now: Date) -> Date { nextPoll }

    /// One poll, when due: reads every bound button and returns the first new press, if any.
    func poll(_ session: SaneSession, now: Date = Date()) -> Press? {
        guard now >= nextPoll else { return nil }
        nextPoll = now.addingTimeInterval(binding.pollSeconds)
        let device: SaneDevice
        do {
            device = try self.device ?? session.open(matching: binding.device)
        } catch {
            notice(error, now)
            return nil
        }
        if trouble != nil {
            log(.notice, "scanner \(binding.device): available again (\(device.name))")
            trouble = nil
        }
        var press: Press?
        for (button, profile) in binding.buttons.sorted(by: { $0.key < $1.key }) {
            let isDown: Bool
            do {
                isDown = try device.readButton(button)
            } catch ScanError.noSuchOption(let name) {
                if missingButtons.insert(name).inserted {
                    let names = device.buttons.map(\.name)
                    log(.error, "scanner \(device.name): no button \"\(name)\" (it has: \(names.isEmpty ? "none" : names.joined(separator: ", ")))")
                }
                continue
            } catch {
                self.device = nil
                notice(error, now)
                return nil
            }
            let wasDown = down[button] ?? isDown
            down[button] = isDown
            if press == nil, isDown, !wasDown, now >= quietUntil[button] ?? .distantPast {
                press = Press(button: button, profile: profile, device: device)
            }
        }
        self.device = binding.keepOpen || press != nil ? device : nil
        return press
    }

    /// After a press's job: the device is closed again (unless kept open) and the button rests.
    func finished(_ press: Press, at now: Date = Date()) {
        quietUntil[press.button] = now.addingTimeInterval(Self.repeatGuard)
        if !binding.keepOpen { device = nil }
    }

    /// Closes the device (a stop, or a new config).
    func close() { device = nil }

    private func notice(_ error: Error, _ now: Date) {
        let busy = (error as? ScanError)?.status == .deviceBusy
        if busy {
            nextPoll = now.addingTimeInterval(binding.busyBackoffSeconds)
            if trouble != .busy {
                log(.notice, "scanner \(binding.device): busy (another program is using it); "
                    + "trying again every \(Int(binding.busyBackoffSeconds)) s")
            }
            trouble = .busy
        } else {
            nextPoll = now.addingTimeInterval(max(binding.pollSeconds, 2))
            if trouble != .unavailable {
                log(.warning, "scanner \(binding.device): unavailable (\(error)); retrying quietly until it is back")
            }
            trouble = .unavailable
        }
        // What was down before the device went away says nothing about the next press.
        down = [:]
    }
}
