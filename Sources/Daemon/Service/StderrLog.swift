import Glibc
import TrapperCore

/// One plain line per event on stderr: `warning: /srv/scans/inbox/x.jpg: truncated JPEG`.
///
/// For a terminal, a pipe, or a service manager without journald. Fields are appended only when the
/// minimum level is debug, so ordinary lines stay short.
public struct StderrLog: EventLog {
    public let minimum: LogLevel
    private let write: @Sendable (String) -> Void

    public init(minimum: LogLevel = .info) {
        self.init(minimum: minimum) { line in
            // One write(2) per line: lines from concurrent jobs never interleave mid-line.
            var bytes = Array(line.utf8)
            bytes.append(UInt8(ascii: "\n"))
            bytes.withUnsafeBytes { raw in
                var offset = 0
                while offset < raw.count {
                    let written = Glibc.write(2, raw.baseAddress! + offset, raw.count - offset)
                    if written < 0, errno == EINTR { continue }
                    if written <= 0 { return }
                    offset += written
                }
            }
        }
    }

    /// `write` receives each line without its newline (the seam tests use).
    public init(minimum: LogLevel, write: @escaping @Sendable (String) -> Void) {
        self.minimum = minimum
        self.write = write
    }

    public func log(_ level: LogLevel, _ message: String, fields: [String: String]) {
        guard level.passes(minimum) else { return }
        write(Self.line(level, message, fields: minimum == .debug ? fields : [:]))
    }

    /// `LEVEL: message`, then ` [key=value ...]` when `fields` is not empty: keys lower-case without
    /// the `PDFTRAPPER_` prefix, in name order, values quoted when they hold spaces or quotes. Line
    /// breaks and other control characters are escaped, so one event is always one line.
    public static func line(_ level: LogLevel, _ message: String, fields: [String: String] = [:]) -> String {
        var line = "\(level.rawValue): \(escaped(message))"
        if !fields.isEmpty {
            let pairs = fields.map { (shortName($0.key), $0.value) }.sorted { $0.0 < $1.0 }.map { name, value in
                "\(name)=\(quotedIfNeeded(value))"
            }
            line += " [\(pairs.joined(separator: " "))]"
        }
        return line
    }

    private static func shortName(_ key: String) -> String {
        let prefix = "PDFTRAPPER_"
        let name = key.uppercased().hasPrefix(prefix) ? String(key.dropFirst(prefix.count)) : key
        return name.lowercased()
    }

    private static func quotedIfNeeded(_ value: String) -> String {
        let plain = !value.isEmpty && !value.unicodeScalars.contains { $0 == " " || $0 == "\"" || $0 == "]" }
        return plain ? escaped(value) : "\"" + escaped(value, quote: true) + "\""
    }

    private static func escaped(_ text: String, quote: Bool = false) -> String {
        var out = ""
        out.unicodeScalars.reserveCapacity(text.unicodeScalars.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case "\\": out += "\\\\"
            case "\"" where quote: out += "\\\""
            case _ where scalar.value < 0x20 || scalar.value == 0x7F:
                out += "\\u{\(String(scalar.value, radix: 16))}"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}
