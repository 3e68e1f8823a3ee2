import CSane
import System
import TrapperCore

/// What went wrong talking to SANE, and in which call or on which option.
public enum ScanError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A SANE call failed: `sane_start: Document feeder out of documents`.
    case sane(step: String, status: SaneStatus)
    /// SANE keeps global state, so one process holds one session at a time.
    case sessionAlreadyOpen
    /// libsane.so.1 cannot be opened.
    case library(SharedLibrary.Failure)
    case noSuchOption(String)
    case optionInactive(String)
    /// The frontend may not set it (no SANE_CAP_SOFT_SELECT), or may not read it (no SANE_CAP_SOFT_DETECT).
    case optionNotSettable(String)
    case optionNotReadable(String)
    /// The value does not fit the option: wrong type, not in its list, too long.
    case invalidValue(option: String, reason: String)
    /// A frame this adapter cannot turn into a page, with the reason.
    case unsupportedFrame(String)
    /// No device in the list matches (unplugged, switched off, or a pattern that fits none).
    case noDevice(pattern: String)

    /// The SANE status behind the error, if it came from a SANE call.
    public var status: SaneStatus? {
        if case .sane(_, let status) = self { status } else { nil }
    }

    public var description: String {
        switch self {
        case .sane(let step, let status): "\(step): \(status)"
        case .sessionAlreadyOpen: "sane_init: a SANE session is already open in this process"
        case .library(let failure): "\(failure)"
        case .noSuchOption(let name): "option \(name): the device has no such option"
        case .optionInactive(let name): "option \(name): inactive in the current mode"
        case .optionNotSettable(let name): "option \(name): cannot be set by software"
        case .optionNotReadable(let name): "option \(name): cannot be read by software"
        case .invalidValue(let option, let reason): "option \(option): \(reason)"
        case .unsupportedFrame(let reason): "sane_read: \(reason)"
        case .noDevice(let pattern): "no scanner matches \"\(pattern)\" (see `pdftrapper devices`)"
        }
    }
}

/// SANE_Status as a closed Swift enum, so callers can tell a busy device from an empty feeder.
public enum SaneStatus: Sendable, Equatable, CustomStringConvertible {
    case good, unsupported, cancelled, deviceBusy, invalid, eof, jammed, noDocs, coverOpen
    case ioError, noMemory, accessDenied
    case other(UInt32)

    init(_ status: SANE_Status) {
        switch status {
        case SANE_STATUS_GOOD: self = .good
        case SANE_STATUS_UNSUPPORTED: self = .unsupported
        case SANE_STATUS_CANCELLED: self = .cancelled
        case SANE_STATUS_DEVICE_BUSY: self = .deviceBusy
        case SANE_STATUS_INVAL: self = .invalid
        case SANE_STATUS_EOF: self = .eof
        case SANE_STATUS_JAMMED: self = .jammed
        case SANE_STATUS_NO_DOCS: self = .noDocs
        case SANE_STATUS_COVER_OPEN: self = .coverOpen
        case SANE_STATUS_IO_ERROR: self = .ioError
        case SANE_STATUS_NO_MEM: self = .noMemory
        case SANE_STATUS_ACCESS_DENIED: self = .accessDenied
        default: self = .other(status.rawValue)
        }
    }

    var raw: SANE_Status {
        switch self {
        case .good: SANE_STATUS_GOOD
        case .unsupported: SANE_STATUS_UNSUPPORTED
        case .cancelled: SANE_STATUS_CANCELLED
        case .deviceBusy: SANE_STATUS_DEVICE_BUSY
        case .invalid: SANE_STATUS_INVAL
        case .eof: SANE_STATUS_EOF
        case .jammed: SANE_STATUS_JAMMED
        case .noDocs: SANE_STATUS_NO_DOCS
        case .coverOpen: SANE_STATUS_COVER_OPEN
        case .ioError: SANE_STATUS_IO_ERROR
        case .noMemory: SANE_STATUS_NO_MEM
        case .accessDenied: SANE_STATUS_ACCESS_DENIED
        case .other(let raw): SANE_Status(rawValue: raw)
        }
    }

    /// SANE's own wording (`sane_strstatus`), which frontends like scanimage print too; the bare
    /// number only if libsane.so.1 cannot be opened (a status normally comes from it).
    public var description: String {
        guard let text = (try? Sane.functions())?.sane_strstatus(raw) else { return "SANE status \(raw.rawValue)" }
        return String(cString: text)
    }
}

extension ScanError {
    /// Throws `.sane(step:status:)` unless `status` is SANE_STATUS_GOOD.
    static func check(_ status: SANE_Status, _ step: @autoclosure () -> String) throws(ScanError) {
        guard status == SANE_STATUS_GOOD else { throw .sane(step: step(), status: SaneStatus(status)) }
    }
}
