import Foundation
import TrapperCore

/// The daemon's side of the events outbox: it delivers (no other process does), rings the worker
/// when its own store queues an event, and says when it starts and stops.
extension InboxDaemon {
    /// Starts delivering (`started` is queued already): events left pending by the last run go
    /// first. It delivers the outbox the daemon's own store queues into (`openStore`), and rings for it.
    func startDelivery() {
        guard let outbox = store.outbox else { return }
        let delivery = EventDelivery(outbox: outbox, log: log)
        self.delivery = delivery
        store.outbox?.bell = { delivery.ring() }
        delivery.start()
    }

    /// After a reload (the new store in place): its subscribers, none when the config has none left.
    func updateDelivery() {
        guard let delivery else { return startDelivery() }
        let none = try? EventOutbox(folder: EventOutbox.folder(config), subscribers: [], libraryRoot: config.library.root)
        guard let outbox = store.outbox ?? none else { return }
        delivery.update(outbox, log: log)
        store.outbox?.bell = { delivery.ring() }
    }

    /// A moment (two seconds at most) for `stopping`, queued when the stop began, and anything
    /// else pending to go out.
    func stopDelivery() {
        delivery?.stop(grace: 2)
    }

    /// The daemon's own events; a pid and this host, keyed by both and the start time.
    func announce(_ kind: OutboundEvent.Kind) {
        guard let outbox = store.outbox else { return }
        var event = OutboundEvent(event: kind, time: clock.now(), host: outbox.host)
        event.pid = Int(getpid())
        event.summary = kind == .started ? "PDFTrapper started on \(outbox.host)" : "PDFTrapper stopping on \(outbox.host)"
        event.key = OutboundEvent.key(kind, [outbox.host, String(getpid()), OutboundEvent.timestamp(machine.status.started)])
        if let problem = outbox.emitOrSay(event) { log.log(.warning, "pdftrapper: \(problem)") }
        delivery?.ring()
    }
}
