import Foundation
import Scanning
import TrapperCore

/// `pdftrapper devices`: the scanners SANE sees, and what a profile or `[[scanner]]` can ask of each.
enum DevicesCommand: Command {
    static let name = "devices"
    static let summary = "List the scanners SANE finds: sources, modes, resolutions and buttons."
    static let synopsis = "devices"
    static let details = """
    Lists every device SANE's backends find (name, vendor, model, type) and, for each one that
    opens, the values a scan profile can use: its sources (flatbed, feeder, duplex feeder), its
    colour modes, its resolutions, and its button sensors: the names to bind to profiles under
    [scanner.buttons] in the config. A device that is busy (another program scans) or refuses to
    open is listed with the reason.

    Exit codes: 0 at least one device, 69 none found.
    """
    static let arguments = ArgumentSpec()

    static func run(_ arguments: ParsedArguments, _ context: CommandContext) -> ExitCode {
        guard arguments.positionals.isEmpty else {
            context.err("pdftrapper devices: takes no arguments\nusage: pdftrapper \(synopsis)")
            return .usage
        }
        do {
            let session = try SaneSession()
            let devices = try session.devices()
            guard !devices.isEmpty else {
                context.err("pdftrapper devices: no scanners found (SANE \(session.version); check `scanimage -L`, "
                            + "the backend's .conf file and the device's permissions)")
                return .unavailable
            }
            for device in devices {
                context.out("\(device.name)\t\(device.vendor) \(device.model) (\(device.type))")
                do {
                    let opened = try session.open(device.name)
                    for line in describe(opened) { context.out("  " + line) }
                } catch {
                    context.out("  cannot open: \(error)")
                }
            }
            return .ok
        } catch {
            context.err("pdftrapper devices: \(error)")
            return .ioError
        }
    }

    static func describe(_ device: SaneDevice) -> [String] {
        let buttons = device.buttons.map { button in
            button.title.isEmpty || button.title == button.name ? button.name : "\(button.name) (\(button.title))"
        }
        return [
            "sources: " + list(device.sources, empty: "one (no source option)"),
            "modes: " + list(device.modes, empty: "none listed"),
            "resolutions: " + resolutions(device.resolutions),
            "buttons: " + list(buttons, empty: "none"),
        ]
    }

    static func list(_ items: [String], empty: String) -> String {
        items.isEmpty ? empty : items.joined(separator: ", ")
    }

    static func resolutions(_ constraint: OptionConstraint) -> String {
        func dpi(_ value: Double) -> String { value == value.rounded() ? String(Int(value)) : String(value) }
        switch constraint {
        case .range(let low, let high, let step):
            return "\(dpi(low))-\(dpi(high)) dpi" + (step > 0 ? " in steps of \(dpi(step))" : "")
        case .words(let values):
            return values.map(dpi).joined(separator: ", ") + " dpi"
        default:
            return "not settable"
        }
    }
}
