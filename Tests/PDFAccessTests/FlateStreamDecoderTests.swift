import Foundation
import PDFAccess
import TestSupport
import Testing
import TrapperCore

@Suite struct FlateStreamDecoderTests {
    let decoder = FlateStreamDecoder()
    let flate = ZlibFlate()

    @Test func inflatesFlate() throws {
        let text = Array(String(repeating: "1 0 obj << >> endobj ", count: 500).utf8)
        let packed = try flate.deflate(text)
        #expect(try decoder.decode(packed, dictionary: [.filter: .name("FlateDecode")]) == text)
        #expect(try decoder.decode(packed, dictionary: [.filter: .array([.name("Fl")])]) == text)
        #expect(try decoder.decode(text, dictionary: [:]) == text)
    }

    @Test func undoesPNGUpPredictorAsXrefStreamsUseIt() throws {
        // Three rows of 4 columns, each encoded with PNG "Up" (type 2) against the row above.
        let rows: [[UInt8]] = [[1, 0, 16, 0], [1, 0, 32, 0], [2, 5, 0, 1]]
        var encoded: [UInt8] = []
        var previous: [UInt8] = [0, 0, 0, 0]
        for row in rows {
            encoded.append(2)
            encoded += zip(row, previous).map { $0 &- $1 }
            previous = row
        }
        let dictionary: PDFDictionary = [
            .filter: .name("FlateDecode"), "DecodeParms": .dictionary(["Predictor": 12, "Columns": 4]),
        ]
        #expect(try decoder.decode(try flate.deflate(encoded), dictionary: dictionary) == rows.flatMap { $0 })
    }

    @Test func undoesEveryPNGRowType() throws {
        // Two colors (bpp 2), 3 columns: row bytes 6. Encode by hand with each type.
        let rows: [[UInt8]] = [[10, 20, 30, 40, 50, 60], [11, 22, 33, 44, 55, 66], [200, 100, 0, 255, 128, 7],
            [1, 2, 3, 4, 5, 6], [9, 9, 9, 9, 9, 9]]
        func paeth(_ a: UInt8, _ b: UInt8, _ c: UInt8) -> UInt8 {
            let p = Int(a) + Int(b) - Int(c)
            let (pa, pb, pc) = (abs(p - Int(a)), abs(p - Int(b)), abs(p - Int(c)))
            return pa <= pb && pa <= pc ? a : (pb <= pc ? b : c)
        }
        var encoded: [UInt8] = []
        var previous = [UInt8](repeating: 0, count: 6)
        for (type, row) in rows.enumerated() {
            encoded.append(UInt8(type))
            for i in 0..<6 {
                let left: UInt8 = i >= 2 ? row[i - 2] : 0
                let upLeft: UInt8 = i >= 2 ? previous[i - 2] : 0
                let predicted: UInt8
                switch type {
                case 0: predicted = 0
                case 1: predicted = left
                case 2: predicted = previous[i]
                case 3: predicted = UInt8((Int(left) + Int(previous[i])) / 2)
                default: predicted = paeth(left, previous[i], upLeft)
                }
                encoded.append(row[i] &- predicted)
            }
            previous = row
        }
        let parameters = PDFPredictor.Parameters(predictor: 15, colors: 2, bitsPerComponent: 8, columns: 3)
        #expect(try PDFPredictor.undo(encoded, parameters) == rows.flatMap { $0 })
    }

    @Test func undoesTIFFPredictor() throws {
        // 8 bits, 3 colors, 2 columns: the second pixel is stored as a difference.
        let stored: [UInt8] = [10, 20, 30, 1, 2, 3, 100, 100, 100, 255, 0, 1]
        let parameters = PDFPredictor.Parameters(predictor: 2, colors: 3, bitsPerComponent: 8, columns: 2)
        #expect(try PDFPredictor.undo(stored, parameters) == [10, 20, 30, 11, 22, 33, 100, 100, 100, 99, 100, 101])
        // 16 bits, 1 color, 2 columns.
        let wide = PDFPredictor.Parameters(predictor: 2, colors: 1, bitsPerComponent: 16, columns: 2)
        #expect(try PDFPredictor.undo([0x01, 0xFF, 0x00, 0x02], wide) == [0x01, 0xFF, 0x02, 0x01])
        // 4 bits, 1 color, 4 columns: nibbles 1, +1, +1, +15 (wraps) → 1 2 3 2.
        let narrow = PDFPredictor.Parameters(predictor: 2, colors: 1, bitsPerComponent: 4, columns: 4)
        #expect(try PDFPredictor.undo([0x11, 0x1F], narrow) == [0x12, 0x32])
    }

    @Test func decodesChainsOfGeneralFilters() throws {
        let text = Array("BT /F1 12 Tf (Hello) Tj ET".utf8)
        let hex = Array((try flate.deflate(text)).map { String(format: "%02x", $0) }.joined().utf8) + [UInt8(ascii: ">")]
        let chain: PDFDictionary = [.filter: .array([.name("ASCIIHexDecode"), .name("FlateDecode")])]
        #expect(try decoder.decode(hex, dictionary: chain) == text)
        // ASCII85 of "Man " and "sure." from the classic example.
        #expect(try decoder.decode(Array("9jqo^F*2M7/c~>".utf8), dictionary: [.filter: .name("A85")]) == Array("Man sure.".utf8))
        // Run length: 2 literal bytes, then 'z' repeated 4 times, then EOD.
        #expect(try decoder.decode([1, 0x61, 0x62, 253, 0x7A, 128], dictionary: [.filter: .name("RunLengthDecode")])
            == Array("abzzzz".utf8))
        // LZW: the §7.4.4.2 example, 45 45 45 45 45 65 45 45 45 66.
        let lzw: [UInt8] = [0x80, 0x0B, 0x60, 0x50, 0x22, 0x0C, 0x0C, 0x85, 0x01]
        #expect(try decoder.decode(lzw, dictionary: [.filter: .name("LZWDecode")]) == [45, 45, 45, 45, 45, 65, 45, 45, 45, 66])
    }

    @Test func refusesUnknownFiltersAndIndirectParameters() {
        #expect(throws: PDFError.unsupportedFilter(.decodingStream, offset: 0, "/DCTDecode")) {
            try decoder.decode([1, 2, 3], dictionary: [.filter: .name("DCTDecode")])
        }
        #expect(throws: PDFError.self) {
            try decoder.decode([1, 2, 3], dictionary: [.filter: .name("FlateDecode"), "DecodeParms": .reference(PDFReference(5))])
        }
        #expect(throws: PDFError.self) {
            try decoder.decode([1, 2, 3], dictionary: [.filter: .reference(PDFReference(5))])
        }
    }

    @Test func stopsAFlateBombAtTheLimit() throws {
        let bomb = try flate.deflate([UInt8](repeating: 0, count: 5_000_000))
        let small = FlateStreamDecoder(limit: 1_000_000)
        #expect(throws: PDFError.self) { try small.decode(bomb, dictionary: [.filter: .name("FlateDecode")]) }
        #expect(try decoder.decode(bomb, dictionary: [.filter: .name("FlateDecode")]).count == 5_000_000)
    }

    /// Two of qpdf's are encrypted (a user password, only an owner password).
    @Test func readsTheTailOfEveryProducedFile() throws {
        try readsTheTailOfEveryFile(ProducedCorpus.files(), encrypted: 2)
    }

    /// One needs a password.
    @Test(.enabled(if: PDFCorpus.isPresent, "\(PDFCorpus.missing)"))
    func readsTheTailOfEverySharedCorpusFile() throws {
        try readsTheTailOfEveryFile(PDFCorpus.files(), encrypted: 1)
    }

    /// Every file's tail opens with the Flate decoder (xref and object streams may be compressed),
    /// its catalog and page-tree root resolve, and /Count agrees with pdfinfo; the `encrypted`
    /// ones are refused as encrypted.
    func readsTheTailOfEveryFile(_ files: [String], encrypted expected: Int) throws {
        var encrypted = 0
        for path in files {
            let name = PDFCorpus.name(path)
            if try PDFCorpus.isEncrypted(path) {
                #expect(throws: PDFError.self, "\(name)") {
                    do {
                        _ = try PDFTailReader(path: path, decoder: decoder)
                    } catch let error as PDFError {
                        guard case .encrypted = error else { Issue.record("\(name): \(error)"); return }
                        throw error
                    }
                }
                encrypted += 1
                continue
            }
            let expected = try PDFReaders.pdfinfoPages(path)
            do {
                let reader = try PDFTailReader(path: path, decoder: decoder)
                let catalog = try reader.catalog()
                guard let pages = catalog[.pages]?.referenceValue,
                    case .dictionary(let root) = try reader.resolve(pages)
                else {
                    Issue.record("\(name): catalog /Pages is not a page-tree root")
                    continue
                }
                let count = try reader.resolve(root[.count] ?? .null).integerValue
                #expect(count == expected, "\(name): /Count \(String(describing: count)), pdfinfo \(expected)")
            } catch {
                Issue.record("\(name): \(error)")
            }
        }
        #expect(encrypted == expected, "\(encrypted) encrypted files")
    }

    /// qpdf's object streams.
    @Test func theProducedFilesNeedTheDecoder() throws { try needTheDecoder(ProducedCorpus.files(), atLeast: 1) }

    @Test(.enabled(if: PDFCorpus.isPresent, "\(PDFCorpus.missing)"))
    func theSharedCorpusNeedsTheDecoder() throws { try needTheDecoder(PDFCorpus.files(), atLeast: 4) }

    /// Without the decoder, files with compressed xref streams are refused: proves the corpus
    /// tests above really exercise decoding.
    func needTheDecoder(_ files: [String], atLeast minimum: Int) throws {
        var refused = 0
        for path in files where !(try PDFCorpus.isEncrypted(path)) {
            do {
                let reader = try PDFTailReader(path: path)
                _ = try reader.catalog()
            } catch PDFError.unsupportedFilter {
                refused += 1
            }
        }
        #expect(refused >= minimum)
    }
}
