import CFuzzerDriver
import TrapperCore

/// The TOML parser on arbitrary bytes: it may throw `TOMLError`, never crash, hang or run away with
/// memory (nesting is bounded by `Limits.maxDepth`).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTOML(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
    _ = try? TOML.parse(bytes)
    // A shallow limit takes the depth check down paths the default (64) leaves to long inputs.
    _ = try? TOML.parse(bytes, limits: .init(maxDepth: 3))
    return 0
}

fuzz_run_driver(CommandLine.argc, CommandLine.unsafeArgv, fuzzTOML)
