import CSane

/// What `sane_get_parameters` says about the next or current frame.
public struct FrameParameters: Sendable, Equatable {
    public enum Format: Sendable, Equatable { case gray, rgb, red, green, blue, other(UInt32) }
    public var format: Format
    public var lastFrame: Bool
    public var bytesPerLine: Int
    public var pixelsPerLine: Int
    /// -1 when the device does not know in advance (hand scanners, some feeders).
    public var lines: Int
    public var depth: Int
}

/// What a scan tells its device's `watcher`.
public enum ScanStep: Sendable, Equatable {
    /// About to call this SANE function; `sane_read` again every second while a frame comes in,
    /// so a slow page counts as moving.
    case calling(String)
    /// A call failed; the scan is cancelled next.
    case failed(ScanError)
}

extension SaneDevice {
    /// The frame parameters: an estimate before `sane_start`, exact after it.
    public func parameters() throws(ScanError) -> FrameParameters {
        var p = SANE_Parameters()
        try ScanError.check(sane.sane_get_parameters(handle, &p), "sane_get_parameters")
        let format: FrameParameters.Format = switch p.format {
        case SANE_FRAME_GRAY: .gray
        case SANE_FRAME_RGB: .rgb
        case SANE_FRAME_RED: .red
        case SANE_FRAME_GREEN: .green
        case SANE_FRAME_BLUE: .blue
        default: .other(p.format.rawValue)
        }
        return FrameParameters(
            format: format, lastFrame: p.last_frame != 0, bytesPerLine: Int(p.bytes_per_line),
            pixelsPerLine: Int(p.pixels_per_line), lines: Int(p.lines), depth: Int(p.depth))
    }

    /// Scans one page: every frame of it, read to EOF. Returns nil when the feeder is empty
    /// (SANE_STATUS_NO_DOCS at `sane_start`). Three-pass scanners' red, green and blue frames are
    /// joined into one RGB page. The page's height is the number of whole lines received, so
    /// hand scanners (height -1) and feeders that stop short both work. After the last page, or to
    /// stop early, call `cancel()`; on an error the scan is cancelled already.
    public func scanPage() throws(ScanError) -> ScannedPage? {
        var frames: [(FrameParameters, [UInt8])] = []
        do throws(ScanError) {
            while true {
                let before = readersOutliveFrames ? [] : ReaderThreads.running()
                watcher?(.calling("sane_start"))
                let status = sane.sane_start(handle)
                let readers = readersOutliveFrames ? nil : ReaderThreads(startedSince: before)
                if status == SANE_STATUS_NO_DOCS, frames.isEmpty {
                    cancel()
                    return nil
                }
                try ScanError.check(status, "sane_start")
                let parameters = try parameters()
                if parameters.lastFrame, frames.isEmpty, [.gray, .rgb].contains(parameters.format) {
                    try ScannedPage.checkFrame(parameters)
                    return try ScannedPage(frame: parameters, data: readFrame(parameters, readers: readers))
                }
                frames.append((parameters, try readFrame(parameters, readers: readers)))
                if parameters.lastFrame { break }
                guard frames.count < 3 else {
                    throw .unsupportedFrame("more than three frames for one page")
                }
            }
            return try ScannedPage(frames: frames)
        } catch {
            watcher?(.failed(error))
            cancel()
            throw error
        }
    }

    /// Scans until the feeder is empty (or `limit` pages), then cancels: a whole ADF batch.
    public func scanAll(limit: Int = .max) throws(ScanError) -> [ScannedPage] {
        defer { cancel() }
        var pages: [ScannedPage] = []
        while pages.count < limit, let page = try scanPage() { pages.append(page) }
        return pages
    }

    /// Ends the scan in progress, or the batch after its last page (`sane_cancel`).
    public func cancel() {
        watcher?(.calling("sane_cancel"))
        sane.sane_cancel(handle)
    }

    /// Reads the frame to EOF. Where the frame's size is known, its last byte waits until the
    /// threads `sane_start` made have ended (ReaderThreads says why); the rest is read as it comes.
    private func readFrame(_ parameters: FrameParameters, readers: ReaderThreads?) throws(ScanError) -> [UInt8] {
        let size = parameters.lines > 0 ? parameters.lines * parameters.bytesPerLine : nil
        var readers = readers
        var data: [UInt8] = []
        if let size { data.reserveCapacity(size) }
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        let clock = ContinuousClock()
        var told = clock.now
        watcher?(.calling("sane_read"))
        while true {
            if watcher != nil, clock.now - told >= .seconds(1) {
                told = clock.now
                watcher?(.calling("sane_read"))
            }
            var asked = chunk.count
            if let size, let waiting = readers {
                let left = size - data.count
                if left > 1 {
                    asked = min(asked, left - 1)
                } else {
                    readersOutliveFrames = !waiting.awaitEnd(limit: 500)
                    readers = nil
                }
            }
            var length: SANE_Int = 0
            let status = sane.sane_read(handle, &chunk, SANE_Int(asked), &length)
            if status == SANE_STATUS_EOF { break }
            try ScanError.check(status, "sane_read")
            data.append(contentsOf: chunk[0..<Int(length)])
        }
        return data
    }
}
