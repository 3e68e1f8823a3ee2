import Foundation
import Testing
import TrapperCore

/// What the fuzz targets in fuzz/ found, each input as the target was given it (minimized), fed to
/// the same code: a parser may refuse any input, but must never crash or hang on it.
@Suite struct FuzzFindingsTests {
    static func bytes(_ base64: String) -> [UInt8] {
        [UInt8](Data(base64Encoded: base64)!)
    }

    /// FuzzConfig, timeout (spotted reading `Glob` while writing the target, which then timed out on
    /// it; the input is as `-minimize_crash` left it): a config whose `inbox.ignore` holds
    /// `*a*a*a*a*a*aa*a*a*a**b`, and a file named with 28 `a`s dropped in the inbox. `Glob` tries every split of the name at every `*`, so
    /// matching takes time exponential in the stars (5.6 s here under ASan; 15 stars and 46 `a`s take
    /// hours): any file name can stall the daemon's inbox scan against such a pattern.
    /// Without the fix this test does not end (hours); with it, each match tries each (name, pattern)
    /// position once.
    @Test func ignoreGlobWithManyStarsMatchesALongNameQuickly() throws {
        let input = Self.bytes(
            "W2xpYnJhcnldCnJvb3QgPSAiL3NydmVuIgpbaW5ib3hdCnBhdGggPSAiaW5ib3giCmlnbm9yZSA9IFsiKmEqYSphKmEqYSphYSphKmEqYSoqYiJd"
                + "CgBhYWFhYWFhYWFhYWFhYWFhYWFhYWFhYWFhYWFh")
        let nul = try #require(input.firstIndex(of: 0))
        let config = try ConfigParser.parse(Array(input[..<nul]), file: "config.toml", environment: [:])
        let name = String(decoding: input[(nul + 1)...], as: UTF8.self)
        #expect(config.inbox.ignore.map(\.pattern) == ["*a*a*a*a*a*aa*a*a*a**b"])
        #expect(!config.inbox.ignore.contains { $0.matches(relativePath: name) })
        #expect(!Glob("*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*b").matches(name: String(repeating: "a", count: 46)))
        #expect(Glob("*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*b").matches(name: String(repeating: "a", count: 46) + "b"))
    }
}
