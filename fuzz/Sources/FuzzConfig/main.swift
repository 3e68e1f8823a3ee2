import CFuzzerDriver
import Foundation
import TrapperCore

/// The config schema on arbitrary bytes: TOML, then every section, rule and profile, which may
/// throw `ConfigError`, never crash. A config that passes is then used as the daemon would: its
/// rules route a few inputs (globs, regexes, path templates) and its ignore globs are tried.
///
/// Bytes after a NUL (which TOML never holds) are one more input's path in the inbox, so the fuzzer
/// chooses file names too. That input is routed with the rules' regexes left out: a config's own
/// regex may backtrack for as long as its author wrote it to, which is no bug of ours.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzConfig(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let whole = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
    let nul = whole.firstIndex(of: 0)
    let bytes = Array(whole[..<(nul ?? whole.endIndex)])
    guard let config = try? ConfigParser.parse(bytes, file: "/etc/pdftrapper/config.toml", environment: Fixtures.environment)
    else { return 0 }
    let router = Router(rules: config.rules, libraryRoot: config.library.root, archiveRoot: config.inbox.archive,
                        timeZone: Fixtures.utc, host: "fuzzhost")
    for input in Fixtures.inputs {
        _ = router.plan(for: input)
        _ = router.plan(for: input, exists: { $0.count % 3 != 0 })
        _ = config.inbox.ignore.contains { $0.matches(relativePath: input.relativePath) }
    }
    if let nul {
        let path = String(decoding: whole[(nul + 1)...], as: UTF8.self)
        var withoutRegexes = router
        for index in withoutRegexes.rules.indices { withoutRegexes.rules[index].match.regex = nil }
        let chosen = RouteInput(relativePath: path, bytes: Int64(size), kind: .jpeg, date: Fixtures.date)
        _ = withoutRegexes.plan(for: chosen)
        _ = config.inbox.ignore.contains { $0.matches(relativePath: path) }
    }
    return 0
}

/// Fixed, so that a crash replays the same way.
enum Fixtures {
    static let environment = ["HOME": "/home/fuzz", "XDG_STATE_HOME": "/home/fuzz/.state", "USER": "fuzz"]
    static let utc = TimeZone(identifier: "UTC")!
    static let date = Date(timeIntervalSince1970: 1_700_000_000)
    static let inputs = [
        RouteInput(relativePath: "receipts/IMG_0001.JPG", bytes: 123_456, kind: .jpeg, date: date),
        RouteInput(relativePath: "letters/2024/acme/Scan 03.PDF", bytes: 9_999_999, kind: .pdf, date: date),
        RouteInput(relativePath: "scan.pnm", bytes: 10, kind: .pnm, source: .scanner, button: "scan", profile: "duplex",
                   date: date),
    ]
}

fuzz_run_driver(CommandLine.argc, CommandLine.unsafeArgv, fuzzConfig)
