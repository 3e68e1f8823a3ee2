import Glibc
import Daemon
import Testing
import TrapperCore

@Suite struct StderrLogTests {
    /// Collects the lines a StderrLog would write.
    final class Lines: @unchecked Sendable {
        private let lock = TestLock()
        private var stored: [String] = []
        var all: [String] { lock.locked { stored } }
        func append(_ line: String) { lock.locked { stored.append(line) } }
    }

    let fields = [EventField.input: "/srv/scans/inbox/x.jpg", EventField.rule: "receipts"]

    @Test func plainLineWithLevelFirst() {
        #expect(StderrLog.line(.warning, "/srv/scans/inbox/x.jpg: truncated JPEG (ends at byte 18231)")
            == "warning: /srv/scans/inbox/x.jpg: truncated JPEG (ends at byte 18231)")
    }

    @Test func filtersBelowTheMinimum() {
        let lines = Lines()
        let log = StderrLog(minimum: .notice) { lines.append($0) }
        for level in LogLevel.allCases { log.log(level, "at \(level.rawValue)") }
        #expect(lines.all == ["notice: at notice", "warning: at warning", "error: at error"])
    }

    @Test func fieldsOnlyAtDebug() {
        let quiet = Lines(), chatty = Lines()
        StderrLog(minimum: .info) { quiet.append($0) }.log(.info, "x.jpg: 1 page to Receipts.pdf", fields: fields)
        StderrLog(minimum: .debug) { chatty.append($0) }.log(.info, "x.jpg: 1 page to Receipts.pdf", fields: fields)
        #expect(quiet.all == ["info: x.jpg: 1 page to Receipts.pdf"])
        #expect(chatty.all == ["info: x.jpg: 1 page to Receipts.pdf [input=/srv/scans/inbox/x.jpg rule=receipts]"])
    }

    @Test func oneEventIsOneLine() {
        let line = StderrLog.line(.error, "qpdf said:\nline 2\r\tend\u{1}", fields: [
            EventField.target: "/srv/documents/My \"Tax\" 2026.pdf", "note": "a\nb", "empty": "",
        ])
        #expect(!line.contains("\n") && !line.contains("\r"))
        #expect(line == #"error: qpdf said:\nline 2\r\tend\u{1} [empty="" note=a\nb target="/srv/documents/My \"Tax\" 2026.pdf"]"#)
    }
}

/// A tiny lock for test collectors (Synchronization's Mutex needs newer platforms on macOS).
final class TestLock: @unchecked Sendable {
    private var mutex = pthread_mutex_t()
    init() { pthread_mutex_init(&mutex, nil) }
    deinit { pthread_mutex_destroy(&mutex) }
    func locked<T>(_ body: () throws -> T) rethrows -> T {
        pthread_mutex_lock(&mutex)
        defer { pthread_mutex_unlock(&mutex) }
        return try body()
    }
}
