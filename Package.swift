// swift-tools-version:6.0
// PDFTrapper: a document-capture daemon. No dependencies beyond the toolchain: C libraries come from
// Debian through the systemLibrary shims below (module.modulemap + shim.h, nothing else).
import PackageDescription

/// A C library from Debian, seen through a module map. `pkgConfig` adds the include paths a
/// library's headers need (poppler-glib needs glib's); the link line lives in the module map.
func shim(_ name: String, pkgConfig: String? = nil, apt: String) -> Target {
    .systemLibrary(name: name, pkgConfig: pkgConfig, providers: [.apt([apt])])
}

let package = Package(
    name: "PDFTrapper",
    platforms: [.macOS(.v13)],
    products: [
        .executable(name: "pdftrapper", targets: ["pdftrapper"]),
        // For the fuzz targets in fuzz/, a package of their own (they only link with -sanitize=fuzzer).
        .library(name: "TrapperCore", targets: ["TrapperCore"]),
    ],
    targets: [
        // Foundation only: TOML, config, rules and templates, the PDF writer, history, journal records.
        .target(name: "TrapperCore"),

        shim("CSane", pkgConfig: "sane-backends", apt: "libsane-dev"),
        shim("CInotifyTools", apt: "libinotifytools0-dev"),
        shim("CPoppler", pkgConfig: "poppler-glib", apt: "libpoppler-glib-dev"),
        shim("CQPDF", pkgConfig: "libqpdf", apt: "libqpdf-dev"),
        shim("CLeptonica", pkgConfig: "lept", apt: "libleptonica-dev"),
        shim("CTesseract", pkgConfig: "tesseract", apt: "libtesseract-dev"),
        shim("CZbar", pkgConfig: "zbar", apt: "libzbar-dev"),
        shim("CSystemd", pkgConfig: "libsystemd", apt: "libsystemd-dev"),
        shim("CZlib", pkgConfig: "zlib", apt: "zlib1g-dev"),
        shim("CCrypto", pkgConfig: "libcrypto", apt: "libssl-dev"),
        // openat2(2) and renameat2(2), which glibc 2.36 does not wrap: the kernel confines paths beneath a folder.
        shim("CLinux", apt: "linux-libc-dev"),

        // Adapters: each owns its C handles and maps C errors to Swift errors.
        .target(name: "Scanning", dependencies: ["TrapperCore", "CSane"]),
        .target(name: "Watching", dependencies: ["TrapperCore", "CInotifyTools"]),
        .target(name: "PDFAccess", dependencies: ["TrapperCore", "CQPDF", "CPoppler", "CZlib"]),
        .target(name: "Imaging", dependencies: ["TrapperCore", "CLeptonica", "CTesseract", "CZbar"]),
        .target(name: "Hashing", dependencies: ["CCrypto"]),
        .target(name: "Daemon", dependencies: ["TrapperCore", "CSystemd", "CLinux", "Scanning", "Watching", "PDFAccess", "Imaging", "Hashing"]),

        .executableTarget(name: "pdftrapper", dependencies: ["TrapperCore", "Daemon", "PDFAccess", "Imaging", "Scanning"]),

        // Test helpers every test target shares: the independent PDF readers, the corpus, processes.
        .target(name: "TestSupport", path: "Tests/TestSupport"),
        .testTarget(name: "TrapperCoreTests", dependencies: ["TrapperCore", "TestSupport"]),
        .testTarget(name: "ScanningTests", dependencies: ["Scanning", "TrapperCore"]),
        .testTarget(name: "WatchingTests", dependencies: ["Watching"]),
        .testTarget(name: "PDFAccessTests", dependencies: ["PDFAccess", "TestSupport"]),
        .testTarget(name: "ImagingTests", dependencies: ["Imaging", "PDFAccess", "TestSupport"]),
        .testTarget(name: "DaemonTests", dependencies: ["Daemon", "PDFAccess", "TestSupport"]),
        .testTarget(name: "HashingTests", dependencies: ["Hashing", "TrapperCore"]),
        // Runs the real binary, as a user would.
        .testTarget(name: "EndToEndTests", dependencies: ["TrapperCore", "TestSupport"]),
    ],
    swiftLanguageModes: [.v6]
)
