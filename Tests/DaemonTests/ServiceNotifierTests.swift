import Daemon
import Foundation
import Glibc
import System
import Testing

@Suite(.serialized) struct ServiceNotifierTests {
    /// A datagram socket stands in for systemd: sd_notify must deliver exactly the state we send.
    @Test func deliversStateToNotifySocket() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("notify-\(UUID().uuidString).sock").path
        let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
        #expect(fd >= 0)
        defer { close(fd); unlink(path) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            path.utf8CString.withUnsafeBytes { raw.copyMemory(from: $0) }
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        #expect(bound == 0)

        setenv("NOTIFY_SOCKET", path, 1)
        defer { unsetenv("NOTIFY_SOCKET") }
        #expect(ServiceNotifier().notify("READY=1\nSTATUS=watching 2 folders"))

        var buffer = [UInt8](repeating: 0, count: 512)
        let count = recv(fd, &buffer, buffer.count, Int32(MSG_DONTWAIT))
        #expect(count > 0)
        #expect(String(decoding: buffer.prefix(max(count, 0)), as: UTF8.self) == "READY=1\nSTATUS=watching 2 folders")
    }

    @Test func withoutAServiceManagerNothingIsSent() {
        unsetenv("NOTIFY_SOCKET")
        #expect(!ServiceNotifier().notify("READY=1"))
    }
}
