import Foundation
import TestSupport
import Testing

/// Uploads that pause (an SMB or FTP client that closes and reopens to append, a sync tool writing
/// in pieces, a phone on a bad connection): a file not yet whole is left where it is and taken once
/// it is, one whole page; one whose writer died is quarantined as incomplete after the timeout.
/// Never two pieces. Each picture type, through the real daemon.
@Suite struct IncompleteUploadTests {
    static let kinds = ["jpg", "png", "tiff", "ppm", "pdf", "heic", "avif", "webp"]

    func world(timeout: String) throws -> (Scratch, DaemonProcess) {
        let scratch = try Scratch()
        try scratch.write("config.toml", TestConfig.folders(settle: "200ms", inbox: "incomplete_timeout = \"\(timeout)\"") + """
            [[rule]]
            name = "all"
            target = "All.pdf"

            """)
        try FileManager.default.createDirectory(atPath: scratch.path + "/inbox", withIntermediateDirectories: true)
        let daemon = try DaemonProcess(config: scratch.path + "/config.toml", in: scratch.url)
        #expect(daemon.notify.wait(for: "READY=1"), "log: \(daemon.log)")
        return (scratch, daemon)
    }

    /// Writes `source` to `destination` a tenth at a time, closing the file and pausing `pause`
    /// seconds after each (`upTo` of the ten pieces; fewer for a writer that dies).
    func upload(_ source: String, to destination: String, pause: Double, upTo pieces: Int = 10) throws {
        _ = try Python.run("""
            import sys, time
            source, destination, pause, pieces = sys.argv[1], sys.argv[2], float(sys.argv[3]), int(sys.argv[4])
            data = open(source, "rb").read()
            step = -(-len(data) // 10)
            for i in range(pieces):
                with open(destination, "ab") as f:
                    f.write(data[i * step:(i + 1) * step])
                time.sleep(pause)
            """, [source, destination, "\(pause)", "\(pieces)"])
    }

    /// Pillow writes the first five kinds; the phone formats come from their own encoders.
    static func picture(_ path: String) throws {
        if ["heic", "avif", "webp"].contains((path as NSString).pathExtension) {
            try PhotoMaker.make(path, width: 300, height: 400)
        } else {
            try TestImages.make(path, width: 300, height: 400)
        }
    }

    func quarantined(_ scratch: Scratch) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: scratch.path + "/quarantine")) ?? []).sorted()
    }

    @Test(arguments: kinds)
    func aWriterThatPausesAtEveryTenthGivesOneWholePage(_ kind: String) throws {
        let (scratch, daemon) = try world(timeout: "1m")
        try Self.picture(scratch.path + "/picture.\(kind)")
        try upload(scratch.path + "/picture.\(kind)", to: scratch.path + "/inbox/picture.\(kind)", pause: 0.4)
        let all = scratch.path + "/library/All.pdf"
        #expect(eventually { (try? PDFReaders.pdfinfoPages(all)) == 1 }, "\(kind): log: \(daemon.log)")
        #expect(daemon.log.contains("waiting: picture.\(kind) incomplete for"), "\(kind): the wait is said: \(daemon.log)")
        #expect(quarantined(scratch).isEmpty, "\(kind): nothing quarantined: \(quarantined(scratch))")
        try PDFReaders.requireAllAgree(all, pages: 1)
        #expect(daemon.stop() == 0)
    }

    @Test func anEmptyFileThatFillsLaterIsTakenOnceFull() throws {
        let (scratch, daemon) = try world(timeout: "1m")
        try TestImages.make(scratch.path + "/picture.png", width: 300, height: 400)
        FileManager.default.createFile(atPath: scratch.path + "/inbox/picture.png", contents: nil)
        #expect(eventually { daemon.log.contains("waiting: picture.png incomplete for") }, "log: \(daemon.log)")
        let status = try Binary.run(["status", "--config", "config.toml"], in: scratch.url).stdout
        #expect(status.contains("waiting: picture.png incomplete for"), "\(status)")
        sleep(1)
        try upload(scratch.path + "/picture.png", to: scratch.path + "/inbox/picture.png", pause: 0, upTo: 10)
        #expect(eventually { (try? PDFReaders.pdfinfoPages(scratch.path + "/library/All.pdf")) == 1 }, "log: \(daemon.log)")
        #expect(quarantined(scratch).isEmpty)
        #expect(daemon.stop() == 0)
    }

    @Test(arguments: kinds)
    func aWriterThatDiesHalfWayIsQuarantinedAsIncompleteAfterTheTimeout(_ kind: String) throws {
        let (scratch, daemon) = try world(timeout: "2s")
        try Self.picture(scratch.path + "/picture.\(kind)")
        try upload(scratch.path + "/picture.\(kind)", to: scratch.path + "/inbox/picture.\(kind)", pause: 0, upTo: 5)
        let note = scratch.path + "/quarantine/picture.\(kind).why.txt"
        // The note is written first, then the file moved under its name: both, once it is done.
        #expect(eventually { FileManager.default.fileExists(atPath: note) && quarantined(scratch).count == 2 },
                "\(kind): log: \(daemon.log)")
        let text = (try? String(contentsOfFile: note, encoding: .utf8)) ?? ""
        #expect(text.contains("incomplete: ") && text.contains("after 2s (inbox.incomplete_timeout)"), "\(kind): \(text)")
        #expect(quarantined(scratch) == ["picture.\(kind)", "picture.\(kind).why.txt"], "one file, whole as it was left")
        #expect(!FileManager.default.fileExists(atPath: scratch.path + "/library/All.pdf"), "no half page went in")
        #expect(daemon.stop() == 0)
    }
}
