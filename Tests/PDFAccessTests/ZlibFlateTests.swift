import PDFAccess
import Testing

@Suite struct ZlibFlateTests {
    let flate = ZlibFlate()

    @Test func roundTrips() throws {
        let text = Array(String(repeating: "PDFTrapper keeps paper. ", count: 4000).utf8)
        let packed = try flate.deflate(text)
        #expect(packed.count < text.count / 10)
        #expect(try flate.inflate(packed, limit: text.count) == text)
        #expect(try flate.inflate(try flate.deflate([]), limit: 10) == [])
    }

    @Test func stopsABombAtItsLimit() throws {
        let bomb = try flate.deflate([UInt8](repeating: 0, count: 10_000_000))
        #expect(bomb.count < 20_000)
        #expect(throws: FlateError.tooLarge(limit: 1_000_000)) { try flate.inflate(bomb, limit: 1_000_000) }
    }

    @Test func refusesGarbage() {
        #expect(throws: FlateError.self) { try flate.inflate([0x12, 0x34, 0x56, 0x78], limit: 100) }
    }

    @Test func keepsWhatATruncatedStreamHolds() throws {
        let text = Array(String(repeating: "abc", count: 1000).utf8)
        let packed = try flate.deflate(text)
        let kept = try flate.inflate(Array(packed.dropLast(4)), limit: 10_000)
        #expect(text.starts(with: kept))
    }
}
