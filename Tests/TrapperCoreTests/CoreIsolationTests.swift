import Foundation
import Testing

/// TrapperCore is the pure heart: it imports Foundation and nothing else, so the rules, the config and
/// the PDF writer are tested without any C library. This keeps it so.
@Suite struct CoreIsolationTests {
    static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    @Test func coreImportsOnlyFoundation() throws {
        let core = Self.packageRoot.appendingPathComponent("Sources/TrapperCore")
        let files = try #require(FileManager.default.enumerator(atPath: core.path))
            .compactMap { $0 as? String }.filter { $0.hasSuffix(".swift") }
        #expect(!files.isEmpty, "no sources found under \(core.path)")
        for file in files {
            let text = try String(contentsOf: core.appendingPathComponent(file), encoding: .utf8)
            for line in text.split(separator: "\n") {
                let words = line.split(separator: " ")
                guard let index = words.firstIndex(of: "import"), index + 1 < words.count,
                      words[..<index].allSatisfy({ $0.hasPrefix("@") || ["public", "internal", "private"].contains($0) })
                else { continue }
                #expect(words[index + 1] == "Foundation", "\(file): imports \(words[index + 1])")
            }
        }
    }

    /// Foundation brings Glibc with it on Linux, so an import line does not show everything: the
    /// core opens no library and starts no process (System and the adapters do).
    @Test func coreCallsNoLoaderOrProcessFunctions() throws {
        let core = Self.packageRoot.appendingPathComponent("Sources/TrapperCore")
        let files = try #require(FileManager.default.enumerator(atPath: core.path))
            .compactMap { $0 as? String }.filter { $0.hasSuffix(".swift") }
        for file in files {
            let text = try String(contentsOf: core.appendingPathComponent(file), encoding: .utf8)
            for call in ["dlopen(", "dlsym(", "posix_spawn(", "fork(", "execv("] {
                #expect(!text.contains(call), "\(file) calls \(call)")
            }
        }
    }

    @Test func manifestGivesCoreNoDependencies() throws {
        let manifest = try String(contentsOf: Self.packageRoot.appendingPathComponent("Package.swift"), encoding: .utf8)
        #expect(manifest.contains(#".target(name: "TrapperCore")"#),
                "Package.swift must declare TrapperCore without dependencies")
    }
}
