import Glibc

/// Names in a watched folder that are not UTF-8 (a Latin-1 name from an old scanner's SMB client,
/// say) cannot be held in a Swift String without losing bytes, so such a file could never be
/// opened again by its name. They are renamed in place first: each byte that is not part of valid
/// UTF-8 becomes `%XX` (`caf\xe9.jpg` becomes `caf%E9.jpg`), with `-2`, `-3`... when that is taken.
enum FileNames {
    /// The name to use for the entry `raw` (its bytes, without the NUL) in `folder`: the name
    /// itself when it is UTF-8, else the name it was renamed to; nil if renaming failed.
    static func usable(_ raw: [UInt8], in folder: String) -> String? {
        if let name = String(validating: raw, as: UTF8.self) { return name }
        let escaped = escape(raw)
        let (stem, ext) = split(escaped)
        for attempt in 1...100 {
            let candidate = attempt == 1 ? escaped : "\(stem)-\(attempt)\(ext)"
            let target = folder + "/" + candidate
            var status = stat()
            guard lstat(target, &status) != 0 else { continue }
            let source = Array(folder.utf8) + [UInt8(ascii: "/")] + raw + [0]
            let renamed = source.withUnsafeBufferPointer { buffer in
                buffer.baseAddress!.withMemoryRebound(to: CChar.self, capacity: buffer.count) { rename($0, target) }
            }
            return renamed == 0 ? candidate : nil
        }
        return nil
    }

    /// Valid UTF-8 sequences as they are, every other byte as `%XX`.
    static func escape(_ raw: [UInt8]) -> String {
        var output = ""
        var index = 0
        while index < raw.count {
            let length = sequenceLength(raw, at: index)
            if length > 0, let piece = String(validating: raw[index..<index + length], as: UTF8.self) {
                output += piece
                index += length
            } else {
                output += "%" + String(raw[index], radix: 16, uppercase: true).leftPadded(to: 2)
                index += 1
            }
        }
        return output
    }

    /// The length of the UTF-8 sequence its lead byte announces, if that many bytes are there; 0 otherwise.
    private static func sequenceLength(_ raw: [UInt8], at index: Int) -> Int {
        let lead = raw[index]
        let length = lead < 0x80 ? 1 : lead >> 5 == 0b110 ? 2 : lead >> 4 == 0b1110 ? 3 : lead >> 3 == 0b11110 ? 4 : 0
        return index + length <= raw.count ? length : 0
    }

    private static func split(_ name: String) -> (String, String) {
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return (name, "") }
        return (String(name[..<dot]), String(name[dot...]))
    }
}

private extension String {
    func leftPadded(to width: Int) -> String { count >= width ? self : String(repeating: "0", count: width - count) + self }
}
