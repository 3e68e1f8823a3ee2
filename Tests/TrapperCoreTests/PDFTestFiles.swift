@testable import TrapperCore

/// Builds PDF files by hand for reader tests: exact control over every byte and offset,
/// including shapes TrapperCore's own writer never makes (object streams, hybrid files, damage).
struct PDFHandBuilder {
    var bytes: [UInt8]
    var offsets: [Int: Int] = [:]

    init(header: String = "%PDF-1.5\n") { bytes = Array(header.utf8) }

    mutating func raw(_ text: String) { bytes += Array(text.utf8) }
    mutating func raw(_ data: [UInt8]) { bytes += data }

    /// `n 0 obj <body> endobj`, remembering its offset.
    mutating func object(_ number: Int, _ body: String) {
        offsets[number] = bytes.count
        raw("\(number) 0 obj\n\(body)\nendobj\n")
    }

    mutating func stream(_ number: Int, _ dictionary: String, _ data: [UInt8]) {
        offsets[number] = bytes.count
        raw("\(number) 0 obj\n\(dictionary)\nstream\n")
        raw(data)
        raw("\nendstream\nendobj\n")
    }

    /// An object stream holding `members` (number, body text), stored unfiltered.
    mutating func objectStream(_ number: Int, _ members: [(Int, String)]) {
        var header = ""
        var body = ""
        for (member, text) in members {
            header += "\(member) \(body.utf8.count) "
            body += text + "\n"
        }
        let first = header.utf8.count
        stream(number, "<</Type/ObjStm/N \(members.count)/First \(first)/Length \((header + body).utf8.count)>>",
            Array((header + body).utf8))
    }

    /// A classic table for `numbers` (each as its own subsection run), trailer, startxref, %%EOF.
    mutating func classicTail(_ numbers: [Int], trailer: String, free: [Int] = []) {
        let start = bytes.count
        raw("xref\n0 1\n0000000000 65535 f \n")
        for number in (numbers + free).sorted() {
            raw("\(number) 1\n")
            if free.contains(number) {
                raw("0000000000 00001 f \n")
            } else {
                raw(String(repeating: "0", count: 10 - String(offsets[number]!).count) + "\(offsets[number]!) 00000 n \n")
            }
        }
        raw("trailer\n\(trailer)\nstartxref\n\(start)\n%%EOF\n")
    }

    /// An uncompressed xref stream object `number` with entries (number → row), then startxref.
    mutating func xrefStreamTail(_ number: Int, size: Int, entries: [Int: (UInt8, Int, Int)], extra: String = "") {
        let start = bytes.count
        var all = entries
        all[number] = (1, start, 0)
        var rows: [UInt8] = []
        var index = ""
        for key in all.keys.sorted() {
            let (type, second, third) = all[key]!
            rows += [type, UInt8(second >> 16 & 0xFF), UInt8(second >> 8 & 0xFF), UInt8(second & 0xFF), UInt8(third)]
            index += "\(key) 1 "
        }
        stream(number, "<</Type/XRef/Size \(size)/W[1 3 1]/Index[\(index)]/Length \(rows.count)\(extra)>>", rows)
        raw("startxref\n\(start)\n%%EOF\n")
    }
}

/// A one-rectangle page, the smallest page with something visible on it.
func rectanglePage(_ label: Int = 0, width: Double = 300, height: Double = 200) -> PDFNewPage {
    let shade = Double(label % 10) / 10
    let content = "\(shade) 0 1 rg 20 20 \(40 + label * 10) 80 re f\n"
    return PDFNewPage(width: width, height: height, content: Array(content.utf8))
}

/// A source that counts what is read from it: proves the reader reads only what it needs.
final class CountingSource: PDFByteSource, @unchecked Sendable {
    let inner: PDFMemorySource
    private(set) var bytesRead = 0
    private(set) var reads = 0

    init(_ bytes: [UInt8]) { inner = PDFMemorySource(bytes) }
    var length: Int { inner.length }

    func read(offset: Int, count: Int) throws -> [UInt8] {
        let out = try inner.read(offset: offset, count: count)
        bytesRead += out.count
        reads += 1
        return out
    }
}

import Foundation

/// Temporary files for tests, each in its own fresh directory.
enum FileManagerShim {
    static func temporaryPath(_ name: String) -> String {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("pdftrapper-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory.appendingPathComponent(name).path
    }

    static func write(_ bytes: [UInt8], to path: String) throws {
        try Data(bytes).write(to: URL(fileURLWithPath: path))
    }

    static func append(_ bytes: [UInt8], to path: String) throws {
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        defer { try? handle.close() }
        try handle.seekToEnd()
        try handle.write(contentsOf: Data(bytes))
        try handle.synchronize()
    }

    static func read(_ path: String) throws -> [UInt8] {
        Array(try Data(contentsOf: URL(fileURLWithPath: path)))
    }
}
