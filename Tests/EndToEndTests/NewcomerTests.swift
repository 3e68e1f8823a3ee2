import Foundation
import Glibc
import TestSupport
import Testing

/// What a newcomer tripped over, set up from the README and the man pages alone.
@Suite struct NewcomerTests {
    static let config = TestConfig.folders() + """
        [[rule]]
        name = "all"
        target = "All.pdf"

        """

    /// Two daemons on one config: the second is refused, naming the first, and `status` asks the
    /// state folder's lock, so it says the first runs whatever the second did.
    @Test func oneDaemonPerStateFolder() throws {
        let scratch = try Scratch()
        try scratch.write("config.toml", Self.config)
        let first = try DaemonProcess(config: scratch.path + "/config.toml", in: scratch.url)
        #expect(first.notify.wait(for: "READY=1"), "log: \(first.log)")
        let pid = first.process.processIdentifier
        let second = try DaemonProcess(config: scratch.path + "/config.toml", in: scratch.url)
        #expect(eventually(timeout: 10) { !second.process.isRunning }, "a second daemon ran beside the first: \(second.log)")
        #expect(second.process.terminationStatus == 75)
        #expect(second.log.contains("another pdftrapper daemon (pid \(pid)) runs on the state folder \(scratch.path)/state"),
                "\(second.log)")
        let status = try Binary.run(["status", "--config", "config.toml"], in: scratch.url)
        #expect(status.status == 0 && status.stdout.contains("running (pid \(pid)"), "\(status.stdout)")
        // The first still serves.
        try TestImages.make(scratch.path + "/inbox/a.png", width: 100)
        #expect(eventually { (try? PDFReaders.pdfinfoPages(scratch.path + "/library/All.pdf")) == 1 }, "log: \(first.log)")
        first.signal(SIGKILL)
        first.process.waitUntilExit()
        // Killed, it wrote nothing; the lock went with it.
        let after = try Binary.run(["status", "--config", "config.toml"], in: scratch.url)
        #expect(after.status == 3 && after.stdout.contains("not running"), "\(after.stdout)")
    }
}
