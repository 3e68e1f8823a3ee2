// swift-tools-version:6.0
// PDFTrapper: a document-capture daemon. No dependencies beyond the toolchain: C libraries come from
// Debian through the systemLibrary shims below (module.modulemap + shim.h, nothing else).
import Foundation
import PackageDescription

/// A C library from Debian, seen through a module map. `pkgConfig` adds the include paths a
/// library's headers need; the link line lives in the module map. The heavy libraries (tesseract,
/// leptonica, poppler, zbar, qpdf, SANE, libmicrohttpd, libheif, libwebp, libcurl) are not linked at all but opened on first use, their
/// shims listing the functions to look up (Sources/CLinux/lazy.h); they take no `pkgConfig`, which
/// would link them.
func shim(_ name: String, pkgConfig: String? = nil, apt: String) -> Target {
    .systemLibrary(name: name, pkgConfig: pkgConfig, providers: [.apt([apt])])
}

/// The include folders of a pkg-config package as -Xcc -I flags, for the targets that import its
/// shim: poppler-glib's headers include glib's and cairo's, and `pkgConfig:` would link all three.
func includeFlags(_ package: String) -> [String] {
    includeFolders(package).flatMap { ["-Xcc", $0] }
}

/// The -I flags of a pkg-config package, as a C or C++ compiler takes them. Without the package the
/// manifest fails, saying so, rather than go on without them: SwiftPM caches a manifest's result
/// until Package.swift changes, so flags missing once (`swift build` run before `make deps`) would
/// stay missing after the package is installed, and every build after fail on a header not found.
/// A manifest that fails is not cached.
func includeFolders(_ package: String) -> [String] {
    let pkgConfig = Process()
    pkgConfig.executableURL = URL(fileURLWithPath: "/usr/bin/pkg-config")
    pkgConfig.arguments = ["--cflags-only-I", package]
    let output = Pipe()
    pkgConfig.standardOutput = output
    if (try? pkgConfig.run()) != nil {
        let flags = output.fileHandleForReading.readDataToEndOfFile()
        pkgConfig.waitUntilExit()
        if pkgConfig.terminationStatus == 0 {
            return String(decoding: flags, as: UTF8.self).split(whereSeparator: \.isWhitespace).map(String.init)
        }
    }
    FileHandle.standardError.write(Data("Package.swift: pkg-config knows no \(package); run `make deps` first\n".utf8))
    exit(1)
}

let package = Package(
    name: "PDFTrapper",
    platforms: [.macOS(.v13)],
    products: [
        .executable(name: "pdftrapper", targets: ["pdftrapper"]),
        // For the fuzz targets in fuzz/, a package of their own (they only link with -sanitize=fuzzer).
        .library(name: "TrapperCore", targets: ["TrapperCore"]),
        // The sheet finder's OpenCV half, which Imaging opens on first use (Sources/CSheetVision):
        // beside the binary in .build, in PREFIX/lib/pdftrapper when installed.
        .library(name: "PDFTrapperVision", type: .dynamic, targets: ["SheetVision"]),
    ],
    targets: [
        // Foundation only: TOML, config, rules and templates, the PDF writer, history, journal records.
        .target(name: "TrapperCore"),

        shim("CSane", apt: "libsane-dev"),
        shim("CInotifyTools", apt: "libinotifytools0-dev"),
        shim("CPoppler", apt: "libpoppler-glib-dev"),
        shim("CQPDF", apt: "libqpdf-dev"),
        shim("CLeptonica", apt: "libleptonica-dev"),
        shim("CTesseract", apt: "libtesseract-dev"),
        shim("CZbar", apt: "libzbar-dev"),
        shim("CSystemd", apt: "libsystemd-dev"),
        shim("CZlib", pkgConfig: "zlib", apt: "zlib1g-dev"),
        shim("CCrypto", pkgConfig: "libcrypto", apt: "libssl-dev"),
        shim("CMicroHTTPD", apt: "libmicrohttpd-dev"),
        shim("CCurl", apt: "libcurl4-openssl-dev"),
        shim("CHeif", apt: "libheif-dev"),
        shim("CWebP", apt: "libwebp-dev"),
        shim("CSheetVision", apt: "libopencv-dev"),
        shim("CSQLite", apt: "libsqlite3-dev"),
        // openat2(2) and renameat2(2), which glibc 2.36 does not wrap: the kernel confines paths beneath a folder.
        shim("CLinux", apt: "linux-libc-dev"),

        // The operating system's part: file identity, the one file lock, shared mounts, inotify for
        // the library, and dlopen for every library opened on first use (kept out of the pure core).
        .target(name: "System", dependencies: ["TrapperCore", "CLinux", "CSystemd"]),

        // Adapters: each owns its C handles and maps C errors to Swift errors.
        .target(name: "Scanning", dependencies: ["TrapperCore", "System", "CSane"]),
        .target(name: "Watching", dependencies: ["TrapperCore", "System", "CInotifyTools"]),
        .target(name: "PDFAccess", dependencies: ["TrapperCore", "System", "CQPDF", "CPoppler", "CZlib"],
                swiftSettings: [.unsafeFlags(includeFlags("poppler-glib"))]),
        .target(name: "Imaging", dependencies: ["TrapperCore", "System", "CLeptonica", "CTesseract", "CZbar", "CHeif", "CWebP", "CSheetVision"]),
        // C++ over OpenCV's core and imgproc behind a C interface (include/sheet_vision.h): candidate
        // sheets in a photo and the evidence for each. Linked into its own library only (above).
        .target(name: "SheetVision", cxxSettings: [.unsafeFlags(includeFolders("opencv4"))],
                linkerSettings: [.linkedLibrary("opencv_imgproc"), .linkedLibrary("opencv_core")]),
        .target(name: "Hashing", dependencies: ["CCrypto"]),
        // Webhook delivery: HTTP POSTs through libcurl.
        .target(name: "HTTPClient", dependencies: ["TrapperCore", "System", "CCurl"]),
        // HTTP served through libmicrohttpd: requests handed over as plain values, so the workspace's
        // gate and routes are tested without a socket.
        .target(name: "HTTPServer", dependencies: ["TrapperCore", "System", "CMicroHTTPD"]),
        // The library's search index: SQLite with FTS5.
        .target(name: "Search", dependencies: ["System", "CSQLite"]),
        .target(name: "Daemon", dependencies: ["TrapperCore", "System", "CLinux", "Scanning", "Watching", "PDFAccess", "Imaging", "Hashing", "HTTPClient", "Search"]),

        // The workspace: sessions, routes, live events, over HTTPServer; its pages are in web/.
        .target(name: "Web", dependencies: ["TrapperCore", "System", "Daemon", "PDFAccess", "Imaging", "Hashing", "HTTPServer", "Search", "CLinux"]),

        .executableTarget(name: "pdftrapper", dependencies: ["TrapperCore", "Daemon", "PDFAccess", "Imaging", "Scanning", "Search", "Web"]),

        // Test helpers every test target shares: the independent PDF readers, the corpus, processes.
        .target(name: "TestSupport", path: "Tests/TestSupport"),
        .testTarget(name: "TrapperCoreTests", dependencies: ["TrapperCore", "TestSupport"]),
        .testTarget(name: "ScanningTests", dependencies: ["Scanning", "TrapperCore"]),
        .testTarget(name: "WatchingTests", dependencies: ["Watching", "System"]),
        .testTarget(name: "PDFAccessTests", dependencies: ["PDFAccess", "TestSupport"]),
        .testTarget(name: "ImagingTests", dependencies: ["Imaging", "PDFAccess", "TestSupport"]),
        .testTarget(name: "DaemonTests", dependencies: ["Daemon", "System", "PDFAccess", "TestSupport"]),
        .testTarget(name: "WebTests", dependencies: ["Web", "HTTPServer", "Daemon", "TrapperCore", "TestSupport"]),
        .testTarget(name: "HashingTests", dependencies: ["Hashing", "TrapperCore"]),
        .testTarget(name: "HTTPClientTests", dependencies: ["HTTPClient"]),
        .testTarget(name: "SearchTests", dependencies: ["Search", "Daemon", "PDFAccess", "TrapperCore", "TestSupport"]),
        // Runs the real binary, as a user would.
        .testTarget(name: "EndToEndTests", dependencies: ["TrapperCore", "System", "TestSupport"]),
    ],
    swiftLanguageModes: [.v6],
    cxxLanguageStandard: .cxx17
)
