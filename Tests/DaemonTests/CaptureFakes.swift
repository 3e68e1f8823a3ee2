import Daemon
import Foundation
import Glibc
import System
import TrapperCore

/// A clock a test sets, and jumps.
final class ScriptedClock: Clock, @unchecked Sendable {
    private let lock = NSLock()
    private var current: Date

    init(_ start: Date = Date()) { current = start }

    var time: Date {
        get { lock.withLock { current } }
        set { lock.withLock { current = newValue } }
    }

    func now() -> Date { time }
    func advance(_ seconds: Double) { time = time.addingTimeInterval(seconds) }
}

/// The real folders, with faults scripted in: files that vanish once the watcher has seen them,
/// renames that fail with a given errno. Everything else passes through to `ConfinedFolders`.
final class ScriptedFiles: CaptureFileSystem, @unchecked Sendable {
    let real: ConfinedFolders
    private let lock = NSLock()
    /// Paths removed (for real) just before they are next looked at, as another program would.
    var vanishing: Set<String> = []
    /// Moves whose source ends with a key fail with its errno, as often as they are tried.
    var failingMoves: [String: Int32] = [:]
    /// Every move tried, source and destination.
    private(set) var moves: [(String, String)] = []

    init(_ real: ConfinedFolders) { self.real = real }

    func status(_ path: String) -> stat? {
        if lock.withLock({ vanishing.remove(path) }) != nil { unlink(path) }
        return real.status(path)
    }

    func exists(_ path: String) -> Bool { real.exists(path) }
    func linkTarget(_ path: String) -> String? { real.linkTarget(path) }
    func read(_ path: String) -> Data? { real.read(path) }
    func names(in folder: String) -> [String]? { real.names(in: folder) }
    func files(below folder: String) -> [String] { real.files(below: folder) }
    func replace(_ path: String, with data: Data) throws(Durable.Failure) { try real.replace(path, with: data) }
    func remove(_ path: String) throws(Durable.Failure) { try real.remove(path) }
    func syncFolder(_ path: String) throws(Durable.Failure) { try real.syncFolder(path) }

    func move(_ source: String, to destination: String, reserve: Int, durable: Bool) throws(Durable.Failure) -> String {
        lock.withLock { moves.append((source, destination)) }
        if let code = lock.withLock({ failingMoves.first { source.hasSuffix($0.key) }?.value }) {
            throw Durable.Failure(step: "rename", path: source, code: code)
        }
        return try real.move(source, to: destination, reserve: reserve, durable: durable)
    }
}
