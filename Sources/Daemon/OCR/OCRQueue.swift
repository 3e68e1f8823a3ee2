import Foundation
import Glibc
import System
import TrapperCore

/// OCR waiting to be done, kept in the library's state folder (`ocr/ID.json`) so that it survives
/// a restart: which target, which page objects, which languages. A request is removed once its
/// text layer is a durable revision (or there is nothing left to do), never before, so a crash
/// means doing it again, and doing it again finds the layer there and skips the page.
public struct OCRQueue: Sendable {
    public struct Request: Codable, Sendable, Equatable {
        public var target: String
        /// Page objects as [number, generation]: they stay the same wherever an edit moves the page.
        public var pages: [[Int]]
        public var languages: [String]
        public var queued: Date

        public var references: [PDFReference] { pages.map { PDFReference($0[0], $0.count > 1 ? $0[1] : 0) } }
    }

    public let folder: String
    /// Names the target inside the library, so that a request another host queued names the
    /// file as this host mounts it.
    let state: StateDirectory

    public init(state: StateDirectory) {
        self.state = state
        folder = state.path + "/ocr"
    }

    /// Queues OCR of `pages` of `target`; returns the request's file.
    @discardableResult
    public func enqueue(target: String, pages: [PDFReference], languages: [String], now: Date = Date()) throws -> String {
        try Durable.makeFolder(folder)
        let request = Request(target: state.name(of: target), pages: pages.map { [$0.number, $0.generation] }, languages: languages, queued: now)
        // Time first, so that a listing sorted by name is the order they were queued in.
        let name = String(format: "%013.0f-%08x.json", now.timeIntervalSince1970 * 1000, UInt32.random(in: 0...UInt32.max))
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        try Durable.replace(folder + "/" + name, with: try encoder.encode(request))
        return folder + "/" + name
    }

    /// The requests waiting, oldest first.
    public func pending() -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [])
            .filter { $0.hasSuffix(".json") && !$0.hasPrefix(".") }.sorted().map { folder + "/" + $0 }
    }

    public func read(_ path: String) -> Request? {
        guard let data = FileManager.default.contents(atPath: path) else { return nil }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        guard var request = try? decoder.decode(Request.self, from: data) else { return nil }
        request.target = state.path(named: request.target)
        return request
    }

    public func remove(_ path: String) { try? Durable.remove(path) }

    /// An exclusive, non-blocking claim on a request while it is worked on, so two daemons sharing
    /// the library never OCR the same pages at once; nil when another holds it.
    public func claim(_ path: String) -> Claim? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        guard FileLock.take(fd, wait: false) == .taken else {
            close(fd)
            return nil
        }
        return Claim(fd: fd)
    }

    public final class Claim {
        let fd: Int32
        init(fd: Int32) { self.fd = fd }
        deinit { close(fd) }
    }
}
