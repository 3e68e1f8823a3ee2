// swift-tools-version:6.0
// libFuzzer targets for PDFTrapper's parsers. A package of its own, beside the root one, because each
// target is an executable that runs libFuzzer and links only when built with `-sanitize=fuzzer`; the
// root package keeps building and testing as usual. Build and run with `scripts/fuzz.sh` (README.md).
import PackageDescription

/// One fuzz target: `Sources/NAME/main.swift` defines `LLVMFuzzerTestOneInput` and hands the process
/// to libFuzzer's driver (see CFuzzerDriver.h for why not libFuzzer's own `main`).
func fuzzer(_ name: String) -> Target {
    .executableTarget(
        name: name, dependencies: ["CFuzzerDriver", .product(name: "TrapperCore", package: "PDFTrapper")])
}

let package = Package(
    name: "PDFTrapperFuzz",
    // Named, so the product is found whatever the checkout's folder is called (a path dependency's
    // identity is otherwise its folder name).
    dependencies: [.package(name: "PDFTrapper", path: "..")],
    targets: [
        .target(name: "CFuzzerDriver"),
        fuzzer("FuzzTOML"),
        fuzzer("FuzzConfig"),
        fuzzer("FuzzEditScript"),
        fuzzer("FuzzPDFTail"),
        fuzzer("FuzzImageHeaders"),
    ],
    swiftLanguageModes: [.v6]
)
