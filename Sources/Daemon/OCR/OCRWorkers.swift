import Foundation
import Imaging
import TrapperCore

/// The daemon's OCR: threads (one fewer than the cores, at least one) that take requests off the
/// queue while the loop goes on capturing, so a scan or a dropped file never waits for OCR. Each
/// thread has its own tesseract engines. What they did comes back through `finished`, for the
/// loop to log. A stop does not wait: a request cut short stays queued and is done again at the
/// next start, skipping the pages whose layer was already written.
final class OCRWorkers: @unchecked Sendable {
    private let lock = NSLock()
    private let wake = DispatchSemaphore(value: 0)
    private var inFlight: Set<String> = []
    private var lines: [OCRWork.Line] = []
    private var stopping = false
    private var config: Config
    private let openStore: @Sendable (Config) throws -> TargetStore

    init(config: Config, width: Int = max(1, ProcessInfo.processInfo.activeProcessorCount - 1),
         openStore: @escaping @Sendable (Config) throws -> TargetStore) {
        self.config = config
        self.openStore = openStore
        for number in 0..<width {
            let thread = Thread { [self] in work() }
            thread.name = "pdftrapper-ocr-\(number)"
            thread.start()
        }
    }

    /// Something was queued (or the config changed): look at the queue now.
    func poke(config fresh: Config? = nil) {
        lock.withLock { if let fresh { config = fresh } }
        wake.signal()
    }

    func stop() {
        lock.withLock { stopping = true }
        wake.signal()
    }

    func finished() -> [OCRWork.Line] {
        lock.withLock {
            defer { lines = [] }
            return lines
        }
    }

    var pending: Int { lock.withLock { inFlight.count } }

    private func work() {
        var engines: [String: OCREngine] = [:]
        while true {
            let (config, stop) = lock.withLock { (self.config, stopping) }
            if stop { return }
            guard let store = try? openStore(config) else {
                _ = wake.wait(timeout: .now() + 5)
                continue
            }
            let queue = OCRQueue(state: store.state)
            let next: String? = lock.withLock {
                let path = queue.pending().first { !inFlight.contains($0) }
                if let path { inFlight.insert(path) }
                return path
            }
            guard let next else {
                // Idle: a poke, or a look every few seconds (another daemon may queue work too).
                _ = wake.wait(timeout: .now() + 5)
                continue
            }
            let line = OCRWork.take(next, queue: queue, store: store, engines: &engines)
            lock.withLock {
                inFlight.remove(next)
                if let line { lines.append(line) }
            }
            // Let a sibling thread look at the queue too.
            wake.signal()
        }
    }
}
