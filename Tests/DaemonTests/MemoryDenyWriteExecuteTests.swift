import Foundation
import Testing

/// The system unit sets MemoryDenyWriteExecute=yes. The kernel's own form of that rule is
/// prctl(PR_SET_MDWE, PR_MDWE_REFUSE_EXEC_GAIN) (Linux 6.3; systemd 253 and later use it for this
/// setting, older ones a seccomp filter with the same effect): no mapping may be writable and
/// executable, nor become executable. It survives execve, so a small python3 wrapper sets it and
/// runs the real binary, which must then do its work with every C library loaded.
@Suite struct MemoryDenyWriteExecuteTests {
    static let wrapper = """
        import ctypes, os, sys
        libc = ctypes.CDLL(None, use_errno=True)
        if libc.prctl(65, 1, 0, 0, 0) != 0:  # PR_SET_MDWE, PR_MDWE_REFUSE_EXEC_GAIN
            sys.exit("PR_SET_MDWE failed: errno %d" % ctypes.get_errno())
        os.execv(sys.argv[1], sys.argv[1:])
        """

    static let python = ToolRun.tool("python3")
    /// Whether this kernel has PR_SET_MDWE (the wrapper can run anything at all).
    static let kernelHasMDWE: Bool = {
        guard let python else { return false }
        return (try? ToolRun.run(python, ["-c", wrapper, "/bin/true"]).status) == 0
    }()

    @Test(.enabled(if: kernelHasMDWE, "needs python3 and Linux 6.3 or later (prctl PR_SET_MDWE)"))
    func theBinaryWorksWithoutWritableExecutableMemory() throws {
        let folder = try UnitScratch()
        let binary = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("pdftrapper").path
        try #require(FileManager.default.isExecutableFile(atPath: binary), "no pdftrapper beside the tests at \(binary): build with --build-tests")
        var env = ProcessInfo.processInfo.environment
        env["XDG_STATE_HOME"] = folder.url.appendingPathComponent("state").path
        env.removeValue(forKey: "PDFTRAPPER_CONFIG")
        let wrapperFile = folder.url.appendingPathComponent("mdwe.py")
        try Self.wrapper.write(to: wrapperFile, atomically: true, encoding: .utf8)
        func underMDWE(_ program: String, _ arguments: [String]) throws -> ToolRun {
            try ToolRun.run(Self.python!, [wrapperFile.path, program] + arguments, environment: env)
        }

        // The wrapper really applies the rule: python3 under it cannot map W+X memory.
        let probe = try underMDWE(Self.python!, ["-c", "import mmap; mmap.mmap(-1, 4096, prot=7)"])
        #expect(probe.status != 0 && probe.stderr.contains("Permission denied"), "W+X mmap was allowed: \(probe.stderr)")

        // A colour page (zlib), a bitmap (leptonica, CCITT G4), a PDF import (qpdf), a rewrite (qpdf).
        let pixels = (0..<(64 * 48 * 3)).map { UInt8(truncatingIfNeeded: $0 * 4) }
        try (Data("P6\n64 48\n255\n".utf8) + Data(pixels)).write(to: folder.url.appendingPathComponent("page.ppm"))
        try (Data("P4\n64 8\n".utf8) + Data(repeating: 0xAA, count: 64)).write(to: folder.url.appendingPathComponent("bits.pbm"))
        let a = folder.url.appendingPathComponent("a.pdf").path, b = folder.url.appendingPathComponent("b.pdf").path
        for arguments in [
            ["--version"],
            ["ingest", "--to", a, folder.url.appendingPathComponent("page.ppm").path, folder.url.appendingPathComponent("bits.pbm").path],
            ["ingest", "--to", b, a],
            ["history", b],
            ["compact", b],
        ] {
            let run = try underMDWE(binary, arguments)
            #expect(run.status == 0, "pdftrapper \(arguments.joined(separator: " ")) under MDWE: \(run.stderr)")
        }
    }
}
