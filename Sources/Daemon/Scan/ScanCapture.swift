import Foundation
import Imaging
import PDFAccess
import Scanning
import System
import TrapperCore

/// Pulls every page of one scan from a device into a spooled batch. Page k is encoded and written
/// on a second thread while page k+1 scans, so a feeder runs at the device's pace; one raw page at
/// a time is with the encoder, which bounds memory whatever the batch's length.
public struct ScanCapture {
    public struct Progress: Sendable {
        public var page: Int
        /// Raw bytes of the page, as read from the device.
        public var bytes: Int
        public var seconds: Double
        public var bytesPerSecond: Double { seconds > 0 ? Double(bytes) / seconds : 0 }

        /// `page 3: 25.9 MB in 0.8 s (32.4 MB/s)`
        public var line: String {
            String(format: "page %d: %.1f MB in %.1f s (%.1f MB/s)", page, Double(bytes) / 1e6, seconds, bytesPerSecond / 1e6)
        }
    }

    public enum Failure: Error, CustomStringConvertible {
        /// The feeder had no paper when the scan started.
        case feederEmpty(String)
        /// Asked to stop between pages; the batch stays incomplete.
        case stopped(pages: Int)
        case encoding(page: Int, reason: String)

        public var description: String {
            switch self {
            case .feederEmpty(let device): "\(device): the document feeder is empty"
            case .stopped(let pages): "stopped after \(pages) page\(pages == 1 ? "" : "s")"
            case .encoding(let page, let reason): "page \(page): \(reason)"
            }
        }
    }

    public let profile: ScanProfile
    let encoder: PageEncoder
    public var flate: any FlateCoding = ZlibFlate()

    /// `encoder` is the process's encoding thread, made before the SANE session.
    public init(profile: ScanProfile, encoder: PageEncoder) {
        self.profile = profile
        self.encoder = encoder
    }

    /// Applies the profile, scans every page into `batch` and marks it complete; returns the number
    /// of pages. Flatbed scans one page; a feeder runs until it is empty. `progress` hears of each
    /// page as it arrives; `shouldStop` is asked between pages.
    public func run(on device: SaneDevice, into batch: ScanSpool.Batch,
                    progress: (Progress) -> Void = { _ in }, shouldStop: () -> Bool = { false }) throws -> AppliedProfile {
        let applied = try device.apply(profile)
        let dpi = Int(applied.resolution.rounded())
        let flatbed = profile.source == .flatbed || (applied.source?.lowercased().contains("flatbed") ?? false)
        encoder.begin()
        defer { device.cancel() }
        var count = 0
        var started = Date()
        do {
            while let page = try device.scanPage() {
                count += 1
                progress(Progress(page: count, bytes: page.samples.count, seconds: Date().timeIntervalSince(started)))
                try encoder.submit(page, number: count, batch: batch, dpi: dpi, quality: profile.jpegQuality, flate: flate)
                if flatbed { break }
                if shouldStop() { throw Failure.stopped(pages: count) }
                started = Date()
            }
        } catch {
            try? encoder.finish()
            throw error
        }
        try encoder.finish()
        guard count > 0 else { throw Failure.feederEmpty(device.name) }
        try batch.markComplete()
        return applied
    }
}

/// The second thread of a scan: encodes pages in order and spools each; the first error stops
/// the batch. One thread serves every scan of the process and is started before SANE is: some
/// backends cancel their reader threads asynchronously, which can leave the dynamic loader's lock
/// held, and a thread created after that (as a dispatch queue would) hangs forever in pthread_create.
public final class PageEncoder: @unchecked Sendable {
    private let condition = NSCondition()
    private var jobs: [() -> Void] = []
    private var running = 0
    /// One page encodes while the next scans; a third waits for the first (a 300 dpi A4 colour page
    /// is 26 MB raw and 35 MB as leptonica's 32-bit pixels).
    private let capacity = 1
    private var failure: Error?

    public init() {
        // The thread holds its encoder for the life of the process: it never ends, and a scan that
        // fails before the thread first runs must not leave it reading a freed object.
        let thread = Thread { self.work() }
        thread.name = "pdftrapper-encoder"
        thread.start()
    }

    private func work() {
        while true {
            condition.lock()
            while jobs.isEmpty { condition.wait() }
            let job = jobs.removeFirst()
            condition.unlock()
            job()
            condition.lock()
            running -= 1
            condition.broadcast()
            condition.unlock()
        }
    }

    /// Starts a batch: forgets the last one's failure.
    func begin() {
        condition.lock()
        failure = nil
        condition.unlock()
    }

    /// Queues page `number` for `batch`; waits while two pages are already waiting.
    func submit(_ page: ScannedPage, number: Int, batch: ScanSpool.Batch, dpi: Int, quality: Int,
                flate: any FlateCoding) throws {
        condition.lock()
        defer { condition.unlock() }
        while running >= capacity { condition.wait() }
        if let failure { throw failure }
        running += 1
        jobs.append { [self] in
            do {
                let encoded = try ScanEncoding.encode(page, dpi: dpi, jpegQuality: quality, flate: flate)
                guard noFailure else { return }
                try batch.addPage(encoded.bytes, fileExtension: encoded.fileExtension)
            } catch let error as Durable.Failure {
                record(error)
            } catch {
                record(ScanCapture.Failure.encoding(page: number, reason: "\(error)"))
            }
        }
        condition.broadcast()
    }

    /// Waits until every queued page is written; throws the batch's first failure.
    func finish() throws {
        condition.lock()
        defer { condition.unlock() }
        while running > 0 { condition.wait() }
        if let failure { throw failure }
    }

    private var noFailure: Bool {
        condition.lock()
        defer { condition.unlock() }
        return failure == nil
    }

    private func record(_ error: Error) {
        condition.lock()
        if failure == nil { failure = error }
        condition.unlock()
    }
}
