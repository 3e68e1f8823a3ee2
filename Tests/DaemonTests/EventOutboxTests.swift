@testable import Daemon
import Foundation
import Testing
import TestSupport
import TrapperCore

/// The outbox's "once" on real folders: an event made again is not queued twice, whether it is
/// still pending or was delivered meanwhile.
@Suite struct EventOutboxTests {
    func outbox(_ scratch: Scratch) throws -> EventOutbox {
        try EventOutbox(folder: scratch.path + "/.pdftrapper/outbox",
                        subscribers: [Subscriber(name: "hook", events: [.quarantined], delivery: .url("http://127.0.0.1:9/"))],
                        libraryRoot: scratch.path, host: "here")
    }

    func quarantined(_ file: String) -> OutboundEvent {
        OutboundEvent.refused(.quarantined, file: file, reason: "\(file): not a PDF", rule: nil, quarantinedAs: "/q/\(file)",
                              identity: "1 2 3.4", time: Date(timeIntervalSince1970: 1_800_000_000), host: "here")
    }

    /// The start after a kill delivered the killed daemon's event, then quarantined the same input
    /// again and queued the event again: the receiver was sent it twice (EventsTests'
    /// aQuarantineKilledAfterItsEventIsAnnouncedOnce, now and then). Delivered, it is in `sent/`,
    /// and made again it is not queued.
    @Test func anEventMadeAgainAfterItWasDeliveredIsNotQueuedAgain() throws {
        let scratch = try Scratch()
        let outbox = try outbox(scratch)
        #expect(try outbox.emit(quarantined("junk.pdf"), once: true) == 1)
        #expect(try outbox.emit(quarantined("junk.pdf"), once: true) == 0, "still pending")
        let pending = try #require(outbox.pending().first)
        try outbox.sent(pending.path, subscriber: "hook")
        #expect(outbox.pending().isEmpty)
        #expect(try outbox.emit(quarantined("junk.pdf"), once: true) == 0, "delivered already")
        #expect(outbox.pending().isEmpty)
        #expect(try outbox.emit(quarantined("other.pdf"), once: true) == 1, "another input's event")
    }

    /// `sent/` keeps the last `sentKept` at least and never more than twice that.
    @Test func sentKeepsTheLatestAndStaysBounded() throws {
        let scratch = try Scratch()
        let outbox = try outbox(scratch)
        let count = 2 * EventOutbox.sentKept + 10
        for n in 0..<count {
            #expect(try outbox.emit(quarantined("\(n).pdf")) == 1)
            try outbox.sent(try #require(outbox.pending().first).path, subscriber: "hook")
        }
        let kept = outbox.names(outbox.sentFolder("hook"))
        #expect(kept.count >= EventOutbox.sentKept && kept.count < 2 * EventOutbox.sentKept, "\(kept.count) kept")
        // the latest is among them, so it is not queued again
        #expect(try outbox.emit(quarantined("\(count - 1).pdf"), once: true) == 0)
    }
}
