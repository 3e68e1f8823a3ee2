/// CRC-32 as PNG (and zlib, gzip, Ethernet) use it: polynomial 0xEDB88320, reflected.
public enum CRC32 {
    static let table: [UInt32] = (0..<256).map { index in
        var value = UInt32(index)
        for _ in 0..<8 { value = value & 1 == 1 ? 0xEDB8_8320 ^ (value >> 1) : value >> 1 }
        return value
    }

    public static func checksum(_ bytes: [UInt8]) -> UInt32 { checksum(bytes[...]) }

    /// Runs over raw buffers: it sees every byte of every PNG read.
    public static func checksum(_ bytes: ArraySlice<UInt8>) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        table.withUnsafeBufferPointer { table in
            bytes.withUnsafeBufferPointer { input in
                for byte in input { crc = table[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8) }
            }
        }
        return crc ^ 0xFFFF_FFFF
    }
}
