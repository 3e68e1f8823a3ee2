import Foundation
import PDFAccess
import TestSupport
import Testing
import TrapperCore

/// Ways to damage a copy of a good file, as crashes and bad tools do.
enum Damage: String, CaseIterable {
    case truncatedTail = "truncate the last 40 bytes"
    case wrongStartxref = "corrupt the startxref number"
    case zeroedXrefLine = "zero out the catalog's xref table line"

    /// The damaged bytes, or nil when this damage does not apply (no classic table).
    func apply(to bytes: [UInt8]) -> [UInt8]? {
        switch self {
        case .truncatedTail:
            return Array(bytes.dropLast(40))
        case .wrongStartxref:
            guard let keyword = lastRange(of: "startxref", in: bytes) else { return nil }
            var damaged = bytes
            var index = keyword.upperBound
            while index < damaged.count, !(0x30...0x39).contains(damaged[index]) { index += 1 }
            var digits = 0
            while index < damaged.count, (0x30...0x39).contains(damaged[index]) {
                // Shift every digit: points into the middle of some object.
                damaged[index] = damaged[index] == 0x39 ? 0x31 : damaged[index] + 1
                index += 1
                digits += 1
            }
            return digits > 0 ? damaged : nil
        case .zeroedXrefLine:
            // The catalog's entry in the last classic table becomes `0000000000 00000 n`.
            guard let xref = lastRange(of: "\nxref", in: bytes), let trailer = lastRange(of: "trailer", in: bytes),
                trailer.lowerBound > xref.upperBound
            else { return nil }
            let text = String(decoding: bytes[trailer.upperBound...], as: UTF8.self)
            guard let match = text.firstMatch(of: /\/Root\s+(\d+)\s+\d+\s+R/), let root = Int(match.1) else { return nil }
            let table = String(decoding: bytes[xref.upperBound..<trailer.lowerBound], as: UTF8.self)
            var offset = xref.upperBound
            var current: Int? = nil
            for line in table.split(separator: "\n", omittingEmptySubsequences: false) {
                let fields = line.split(separator: " ")
                defer { offset += line.utf8.count + 1 }
                if fields.count == 2, let first = Int(fields[0]) {
                    current = first
                } else if fields.count >= 3, fields[0].count == 10, let number = current {
                    if number == root {
                        var damaged = bytes
                        let zero = Array("0000000000 00000 n".utf8)
                        damaged.replaceSubrange(offset..<(offset + zero.count), with: zero)
                        return damaged
                    }
                    current = number + 1
                }
            }
            return nil
        }
    }

    private func lastRange(of text: String, in bytes: [UInt8]) -> Range<Int>? {
        let needle = Array(text.utf8)
        guard bytes.count >= needle.count else { return nil }
        for start in stride(from: bytes.count - needle.count, through: 0, by: -1)
        where bytes[start..<(start + needle.count)].elementsEqual(needle) {
            return start..<(start + needle.count)
        }
        return nil
    }
}

/// Every stream of a file as stored (filters and raw bytes), xref, object and hint streams aside: what
/// a rewrite must keep unchanged when it promises not to re-encode.
func storedStreams(_ path: String) throws -> [PDFStream] {
    let reader = try PDFTailReader(path: path, decoder: FlateStreamDecoder())
    var streams: [PDFStream] = []
    for number in 1..<reader.tail.size {
        guard case .stream(var stream)? = try reader.object(number: number) else { continue }
        let type = stream.dictionary[.type]?.nameValue
        if type == "XRef" || type == "ObjStm" { continue }
        // A linearized file's hint stream (/S: where its shared-object table starts), which a
        // rewrite that does not linearize drops.
        if type == nil && stream.dictionary["S"] != nil { continue }
        stream.dictionary = [.filter: stream.dictionary[.filter] ?? .null]
        streams.append(stream)
    }
    return streams.sorted { $0.data.lexicographicallyPrecedes($1.data) }
}

@Suite struct PDFRewriterTests {
    /// The files a rewrite may take: readable, and not encrypted (those are refused, below).
    static func rewritable(_ files: [String]) throws -> [(path: String, pages: Int)] {
        try PDFCorpus.readable(files.filter { !(try PDFCorpus.isEncrypted($0)) })
    }

    @Test func repairsDamagedCopiesOfProducedFiles() throws {
        try repairsDamagedCopies(of: Self.rewritable(ProducedCorpus.files()), atLeast: 25)
    }

    @Test(.enabled(if: PDFCorpus.isPresent, "\(PDFCorpus.missing)"))
    func repairsDamagedCopiesOfTheSharedCorpus() throws {
        try repairsDamagedCopies(of: Self.rewritable(PDFCorpus.files()), atLeast: 25)
    }

    /// Damaged copies of every file (that each damage applies to): the tail reader says "repair",
    /// repair rewrites it with a classic table and no object streams, and then the tail reader
    /// opens it, every independent reader agrees on the page count, and each page renders and
    /// reads as the undamaged original.
    func repairsDamagedCopies(of files: [(path: String, pages: Int)], atLeast minimum: Int) throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        var repaired = 0
        var scanned = 0
        for (source, pages) in files {
            let original = try TemporaryFolder.read(source)
            for damage in Damage.allCases {
                guard let damagedBytes = damage.apply(to: original) else { continue }
                let name = "\(PDFCorpus.name(source)) (\(damage.rawValue))"
                let path = folder.file("damaged-\(repaired).pdf")
                try TemporaryFolder.write(damagedBytes, to: path)
                do {
                    // A zeroed table line may go unnoticed by a lenient reader; the others may not.
                    if damage != .zeroedXrefLine {
                        do {
                            let reader = try PDFTailReader(path: path, decoder: FlateStreamDecoder())
                            _ = try reader.resolve(reader.catalog()[.pages] ?? .null)
                            Issue.record("\(name): the tail reader did not notice the damage")
                        } catch let error as PDFError {
                            #expect(error.needsRepair, "\(name): \(error)")
                        }
                    }
                    let report = try PDFRewriter.repair(path: path)
                    #expect(!report.warnings.isEmpty, "\(name): qpdf reported nothing about the damage")
                    #expect(report.bytesBefore == damagedBytes.count)
                    if report.warnings.contains(where: { $0.contains("rebuilt from a scan") }) { scanned += 1 }
                    let reader = try PDFTailReader(path: path, decoder: FlateStreamDecoder())
                    #expect(reader.tail.form == .table, "\(name)")
                    #expect(!(try TemporaryFolder.read(path)).containsBytes("/ObjStm"), "\(name)")
                    try PDFReaders.requireAllAgree(path, pages: pages)
                    for page in 1...pages {
                        #expect(try PDFReaders.renderPPM(path, page: page) == PDFReaders.renderPPM(source, page: page),
                            "\(name) page \(page) renders differently")
                        #expect(try PDFReaders.text(path, page: page) == PDFReaders.text(source, page: page),
                            "\(name) page \(page) text differs")
                    }
                    repaired += 1
                } catch {
                    Issue.record("\(name): \(error)")
                }
            }
        }
        #expect(repaired >= minimum)
        // Both paths ran: qpdf's own reconstruction, and the object scan where qpdf 11 gives up.
        #expect(scanned > 0 && scanned < repaired, "\(scanned) of \(repaired) needed the scan")
    }

    @Test func repairKeepsStreamsOfProducedFilesAsStored() throws {
        try repairKeepsStreamsAsStored(["img2pdf-images.pdf", "mutool-create-images.pdf", "reportlab-form.pdf",
                                        "qpdf-object-streams.pdf"].map(ProducedCorpus.file))
    }

    @Test(.enabled(if: PDFCorpus.isPresent, "\(PDFCorpus.missing)"))
    func repairKeepsStreamsOfSharedCorpusFilesAsStored() throws {
        try repairKeepsStreamsAsStored(["pdflatex-image.pdf", "google-doc-document.pdf", "imagemagick-images.pdf"]
            .map(PDFCorpus.file))
    }

    /// Repair keeps streams as stored: same filters, same bytes, nothing decoded or re-encoded.
    func repairKeepsStreamsAsStored(_ sources: [String]) throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        for source in sources {
            let name = PDFCorpus.name(source)
            let path = try folder.copy(source)
            try PDFRewriter.repair(path: path)
            #expect(try storedStreams(path) == storedStreams(source), "\(name)")
        }
    }

    /// After a repair the target takes incremental updates again: a classic table appended.
    @Test func aRepairedFileTakesUpdates() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let source = try ProducedCorpus.file("ghostscript-4-pages.pdf")
        let path = folder.file("target.pdf")
        try TemporaryFolder.write(Array(try TemporaryFolder.read(source).dropLast(40)), to: path)
        try PDFRewriter.repair(path: path)
        let reader = try PDFTailReader(path: path, decoder: FlateStreamDecoder())
        var revision = PDFRevision(appendingTo: reader.tail)
        let square = PDFNewPage(width: 200, height: 200, content: Array("0 0 1 rg 10 10 100 100 re f".utf8))
        try PDFPageTree.addPages([square], at: .end, reader: reader, to: &revision)
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data(revision.serialized()))
        try handle.close()
        try PDFReaders.requireAllAgree(path, pages: 5)
        #expect(try PDFTailReader(path: path, decoder: FlateStreamDecoder()).tail.form == .table)
    }

    /// A target with many revisions compacts to one: smaller, same pages, same renders; the
    /// result has object streams (read back by the tail reader through the Flate decoder).
    @Test(arguments: [false, true]) func compactsAFileWithManyRevisions(linearize: Bool) throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = folder.file("history.pdf")
        let page = { (n: Int) in
            PDFNewPage(width: 300, height: 200, content: Array("\(Double(n % 10) / 10) 0 1 rg 20 20 \(40 + n * 5) 80 re f".utf8))
        }
        try TemporaryFolder.write(PDFPageTree.newDocument([page(0)]).serialized(), to: path)
        for n in 1..<30 {
            let reader = try PDFTailReader(path: path, decoder: FlateStreamDecoder())
            var revision = PDFRevision(appendingTo: reader.tail)
            try PDFPageTree.addPages([page(n)], at: .end, reader: reader, to: &revision)
            let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
            try handle.seekToEnd()
            try handle.write(contentsOf: Data(revision.serialized()))
            try handle.close()
        }
        let before = try TemporaryFolder.read(path)
        let original = try folder.copy(path, as: "original.pdf")
        try PDFRewriter.compact(path: path, linearize: linearize)
        let after = try TemporaryFolder.read(path)
        #expect(after.count <= before.count, "compacted \(before.count) → \(after.count) bytes")
        try PDFReaders.requireAllAgree(path, pages: 30)
        for page in [1, 2, 15, 30] {
            #expect(try PDFReaders.renderPPM(path, page: page) == PDFReaders.renderPPM(original, page: page))
        }
        let reader = try PDFTailReader(path: path, decoder: FlateStreamDecoder())
        #expect(reader.tail.form == .stream)
        #expect(after.containsBytes("/ObjStm"))
        let check = try PDFReaders.run("qpdf", ["--check-linearization", path])
        #expect(check.status == 0)
        #expect(check.text.contains("no linearization errors") == linearize, "\(check.text)")
    }

    @Test func compactsProducedFilesWithoutChangingTheirPages() throws {
        try compactsWithoutChangingTheirPages(Self.rewritable(ProducedCorpus.files()))
    }

    @Test(.enabled(if: PDFCorpus.isPresent, "\(PDFCorpus.missing)"))
    func compactsSharedCorpusFilesWithoutChangingTheirPages() throws {
        try compactsWithoutChangingTheirPages(Self.rewritable(PDFCorpus.files()))
    }

    /// `files` compact without changing how any page looks.
    func compactsWithoutChangingTheirPages(_ files: [(path: String, pages: Int)]) throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        for (source, pages) in files {
            let name = PDFCorpus.name(source)
            do {
                let path = try folder.copy(source)
                try PDFRewriter.compact(path: path)
                try PDFReaders.requireAllAgree(path, pages: pages)
                for page in 1...pages {
                    #expect(try PDFReaders.renderPPM(path, page: page) == PDFReaders.renderPPM(source, page: page),
                        "\(name) page \(page)")
                }
                _ = try PDFTailReader(path: path, decoder: FlateStreamDecoder()).catalog()
            } catch {
                Issue.record("\(name): \(error)")
            }
        }
    }

    /// qpdf's: one needs a user password, the other has only an owner password.
    @Test func refusesEncryptedProducedFiles() throws {
        let encrypted = try ProducedCorpus.files().filter(PDFCorpus.isEncrypted)
        #expect(encrypted.map(PDFCorpus.name) == ["qpdf-owner-password.pdf", "qpdf-password.pdf"])
        try refusesEncryptedFiles(encrypted)
    }

    @Test(.enabled(if: PDFCorpus.isPresent, "\(PDFCorpus.missing)"))
    func refusesEncryptedSharedCorpusFiles() throws {
        let encrypted = try PDFCorpus.files().filter(PDFCorpus.isEncrypted)
        #expect(!encrypted.isEmpty)
        try refusesEncryptedFiles(encrypted)
    }

    /// Encrypted files are never rewritten, whether they need a user password or only have an
    /// owner password; the file is left byte for byte as it was.
    func refusesEncryptedFiles(_ files: [String]) throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let locked = try files.map { try folder.copy($0) }
        for path in locked {
            let bytes = try TemporaryFolder.read(path)
            #expect(throws: PDFRewriteError.encrypted(path: path)) { try PDFRewriter.repair(path: path) }
            #expect(throws: PDFRewriteError.encrypted(path: path)) { try PDFRewriter.compact(path: path) }
            #expect(try TemporaryFolder.read(path) == bytes)
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).count == locked.count)
    }

    /// A file qpdf cannot make sense of is left alone, with no temporary file behind; a rewrite
    /// keeps the target's permissions.
    @Test func stagesSafely() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let garbage = folder.file("garbage.pdf")
        try TemporaryFolder.write(Array("not a pdf\n".utf8), to: garbage)
        #expect(throws: PDFRewriteError.self) { try PDFRewriter.repair(path: garbage) }
        #expect(try TemporaryFolder.read(garbage) == Array("not a pdf\n".utf8))
        do {
            try PDFRewriter.repair(path: garbage)
        } catch {
            #expect(error.description.hasPrefix("rewrite \(garbage): read: "))
            #expect(!error.description.contains("\n"))
        }

        let path = try folder.copy(try ProducedCorpus.file("mutool-create-images.pdf"))
        try FileManager.default.setAttributes([.posixPermissions: 0o640], ofItemAtPath: path)
        try PDFRewriter.compact(path: path)
        let mode = try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int
        #expect(mode == 0o640)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted() == ["garbage.pdf", "mutool-create-images.pdf"])
    }
}

extension Array where Element == UInt8 {
    func containsBytes(_ text: String) -> Bool {
        let needle = Array(text.utf8)
        guard count >= needle.count else { return false }
        for start in 0...(count - needle.count) where self[start..<(start + needle.count)].elementsEqual(needle) {
            return true
        }
        return false
    }
}

/// The rewrites in place, as the store makes them (beside the file, checked, renamed over it),
/// without the store's journal and kept copy: what these tests look at is the rewritten file.
extension PDFRewriter {
    @discardableResult
    static func repair(path: String) throws(PDFRewriteError) -> Report { try inPlace(path, .repair) }

    @discardableResult
    static func compact(path: String, linearize: Bool = false) throws(PDFRewriteError) -> Report {
        try inPlace(path, .compact(linearize: linearize))
    }

    private static func inPlace(_ path: String, _ purpose: Purpose) throws(PDFRewriteError) -> Report {
        let temporary = path + ".rewritten"
        let report = try rewrite(path, to: temporary, purpose: purpose) { _ in [:] }
        guard rename(temporary, path) == 0 else { throw .staging(path: path, step: "rename", errno: errno) }
        return report
    }
}
