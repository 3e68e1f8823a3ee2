import Foundation

/// Readers and writers that share no code with the adapter: Pillow, and SANE's own scanimage.
enum Independent {
    /// Pillow's reading of a PNM: "WIDTH HEIGHT MODE EXTREMA".
    static func pillow(_ pnm: [UInt8]) throws -> String {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("scan-\(UUID().uuidString).pnm")
        try Data(pnm).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let script = "import sys; from PIL import Image; im = Image.open(sys.argv[1]); im.load(); "
            + "print(im.size[0], im.size[1], im.mode, im.getextrema())"
        // python3 from PATH: the one Pillow is installed for.
        return try run("/usr/bin/env", ["python3", "-c", script, file.path]).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// scanimage's PNM of the same settings on the test backend (a separate process, its own sane_init).
    static func scanimage(_ arguments: [String]) throws -> [UInt8] {
        Array(try runData("/usr/bin/scanimage", ["-d", "test:0", "--format=pnm"] + arguments))
    }

    /// A PNM's header fields (comments skipped) and its pixel bytes.
    static func split(_ pnm: [UInt8]) -> (fields: [String], pixels: [UInt8]) {
        var fields: [String] = [], i = 0
        let wanted = pnm.starts(with: Array("P4".utf8)) ? 3 : 4
        while fields.count < wanted && i < pnm.count {
            if pnm[i] == UInt8(ascii: "#") {
                while i < pnm.count && pnm[i] != 10 { i += 1 }
            } else if pnm[i] == 32 || pnm[i] == 10 || pnm[i] == 9 || pnm[i] == 13 {
                i += 1
            } else {
                let start = i
                while i < pnm.count && ![32, 10, 9, 13].contains(pnm[i]) { i += 1 }
                fields.append(String(decoding: pnm[start..<i], as: UTF8.self))
            }
        }
        return (fields, Array(pnm[(i + 1)...]))  // one whitespace byte ends the header
    }

    private static func run(_ tool: String, _ arguments: [String]) throws -> String {
        String(decoding: try runData(tool, arguments), as: UTF8.self)
    }

    private static func runData(_ tool: String, _ arguments: [String]) throws -> Data {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = arguments
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw CocoaError(.fileReadUnknown, userInfo: [NSLocalizedDescriptionKey: "\(tool) \(arguments) exited \(process.terminationStatus)"])
        }
        return data
    }
}
