import System
import TrapperCore

/// Why a change to a target was not made. Each says what and why in one line; `exitCode` maps it to
/// sysexits for the command line and to the daemon's quarantine-or-retry choice.
public enum EngineError: Error, CustomStringConvertible {
    /// The target is encrypted: appending plain objects would corrupt it.
    case encrypted(target: String)
    /// The target is damaged and could not be repaired.
    case damaged(target: String, reason: String)
    /// An input could not be read or is not what it claims to be.
    case badInput(name: String, reason: String)
    /// The state folder or the target could not be written: worth a retry (a full disk, say).
    case io(Durable.Failure)
    /// Could not be written, and trying again cannot help: the path leads outside its configured
    /// folder, or a name is too long.
    case permanent(Durable.Failure)
    case unreadable(target: String, reason: String)
    /// Undo or redo cannot proceed, and why.
    case refused(target: String, reason: String)
    /// Another program kept replacing the target while a revision was written to it: nothing of
    /// the revision is in any file, and trying again later can succeed.
    case busy(target: String, reason: String)
    /// The folder is on a shared file system mounted so that another host's revision could be
    /// written over (SharedMount): nothing is written there until the mount is set as named.
    case incoherent(reason: String)

    public var description: String {
        switch self {
        case .encrypted(let target): "\(target): encrypted; PDFTrapper does not append to encrypted PDFs"
        case .damaged(let target, let reason): "\(target): damaged and not repairable: \(reason)"
        case .badInput(let name, let reason): "\(name): \(reason)"
        case .io(let failure), .permanent(let failure): failure.description
        case .unreadable(let target, let reason): "\(target): \(reason)"
        case .refused(let target, let reason): "\(target): \(reason)"
        case .busy(let target, let reason): "\(target): \(reason)"
        case .incoherent(let reason): "not writing there: \(reason)"
        }
    }

    /// Any error from work on `target` as an EngineError: the engine's own pass as they are, file
    /// system failures are I/O, anything else means the target could not be read.
    static func from(_ error: any Error, target: String) -> EngineError {
        switch error {
        case let error as EngineError: error
        case let error as Durable.Failure: .writing(error)
        default: .unreadable(target: target, reason: "\(error)")
        }
    }

    /// A failed write: retried later, unless it can never succeed.
    public static func writing(_ failure: Durable.Failure) -> EngineError {
        failure.isPermanent ? .permanent(failure) : .io(failure)
    }

    public var exitCode: ExitCode {
        switch self {
        case .encrypted, .damaged, .badInput: .dataError
        case .io, .busy: .ioError
        case .permanent: .cantCreate
        case .unreadable: .noInput
        case .refused: .dataError
        case .incoherent: .config
        }
    }
}
