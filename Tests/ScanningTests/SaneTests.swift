import Foundation
import Scanning
import Testing

/// Every test that touches SANE lives under this one serialized suite: SANE's state is global, so
/// only one session may be open in the process at a time. Nested suites (in the other files) inherit
/// `.serialized`.
@Suite(.serialized) struct SaneTests {
    @Test func versionComesFromSaneInit() throws {
        SaneTestConfig.install()
        let version = try SaneLibrary.version()
        #expect(version.hasPrefix("1."), "got \(version)")
    }

    @Test func oneSessionAtATime() throws {
        do {
            let session = try SaneTestConfig.session()
            #expect(throws: ScanError.sessionAlreadyOpen) { try SaneSession() }
            #expect(throws: ScanError.sessionAlreadyOpen) { try SaneLibrary.version() }
            withExtendedLifetime(session) {}
        }
        // The first one is gone (sane_exit ran), so a new one opens.
        #expect(try SaneSession().version.hasPrefix("1."))
    }

    @Test func devicesListBothTestScanners() throws {
        let session = try SaneTestConfig.session()
        let devices = try session.devices()
        #expect(devices.map(\.name).sorted() == ["test:0", "test:1"])
        let first = try #require(devices.first { $0.name == "test:0" })
        #expect(first.vendor == "Noname")
        #expect(first.model == "frontend-tester")
        #expect(first.type == "virtual device")
    }

    @Test func openingAnUnknownDeviceSaysWhich() throws {
        let session = try SaneTestConfig.session()
        let error = try #require(throws: ScanError.self) { try session.open("test:9") }
        #expect(error.description.hasPrefix("sane_open test:9: "), "\(error)")
        #expect(error.status == .invalid)
    }
}

/// The private SANE config: dll.conf loads only `test`, whose area goes to 300 mm so A4 fits.
enum SaneTestConfig {
    static let directory: URL = {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("pdftrapper-sane-\(getpid())")
        try? FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        try? "test\n".write(to: dir.appendingPathComponent("dll.conf"), atomically: true, encoding: .utf8)
        try? "number_of_devices 2\ngeometry_max 300\n"
            .write(to: dir.appendingPathComponent("test.conf"), atomically: true, encoding: .utf8)
        // Before the first sane_init of the process; scanimage children inherit it too.
        setenv("SANE_CONFIG_DIR", dir.path, 1)
        return dir
    }()

    static func install() { _ = directory }

    static func session() throws -> SaneSession {
        install()
        return try SaneSession()
    }

    /// Opens a test device (fresh session, so options start at their defaults) for one test body.
    static func withDevice<T>(_ name: String = "test:0", _ body: (SaneDevice) throws -> T) throws -> T {
        let session = try session()
        return try withExtendedLifetime(session) { try body(try session.open(name)) }
    }
}
