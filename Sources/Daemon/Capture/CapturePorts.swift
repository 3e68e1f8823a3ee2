import Foundation
import Glibc
import System
import TrapperCore

// The pipeline's ways of touching the world, each small enough to fake in a test: scripted files
// that vanish, renames that fail, clocks that jump.

/// Opens an input's pages. The real one is `InputFiles` (images through Imaging, PDFs through PDFAccess).
public protocol InputOpening: Sendable {
    func open(_ path: String, steps: PageSteps, blankIsEmpty: Bool) throws(EngineError) -> any InputDocument
}

extension InputFiles: InputOpening {}

/// The folders a way in claims from and disposes into. The real one is `ConfinedFolders`: every
/// path resolved beneath its configured folder by the kernel.
public protocol CaptureFileSystem: Sendable {
    /// lstat(2): links are never followed.
    func status(_ path: String) -> stat?
    func exists(_ path: String) -> Bool
    /// Where a symbolic link points (for a note), without following it.
    func linkTarget(_ path: String) -> String?
    func read(_ path: String) -> Data?
    func names(in folder: String) -> [String]?
    func files(below folder: String) -> [String]
    /// Written whole and durable, or not at all.
    func replace(_ path: String, with data: Data) throws(Durable.Failure)
    func remove(_ path: String) throws(Durable.Failure)
    /// Makes the names in the folder at `path` durable (a claim's rename, say).
    func syncFolder(_ path: String) throws(Durable.Failure)
    /// rename(2), never replacing a name there: a taken name is numbered; returns where it went.
    func move(_ source: String, to destination: String, reserve: Int, durable: Bool) throws(Durable.Failure) -> String
}

extension CaptureFileSystem {
    func move(_ source: String, to destination: String, durable: Bool = true) throws(Durable.Failure) -> String {
        try move(source, to: destination, reserve: 0, durable: durable)
    }

    /// `reserve` bytes of the name kept free for a suffix (a quarantine note's).
    func move(_ source: String, to destination: String, reserve: Int) throws(Durable.Failure) -> String {
        try move(source, to: destination, reserve: reserve, durable: true)
    }
}

extension ConfinedFolders: CaptureFileSystem {}

/// What time it is, for windows (batches, collation, uploads left incomplete) and the history.
public protocol Clock: Sendable {
    func now() -> Date
}

public struct SystemClock: Clock {
    public init() {}
    public func now() -> Date { Date() }
}
