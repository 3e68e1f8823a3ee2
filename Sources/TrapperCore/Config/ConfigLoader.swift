import Foundation

/// Reads a config file from disk and parses it.
public enum ConfigLoader {
    public enum Failure: Error, CustomStringConvertible {
        /// The file could not be read at all (exit 66).
        case unreadable(file: String, reason: String)
        /// It was read, and is wrong (exit 78).
        case invalid(ConfigError)

        public var description: String {
            switch self {
            case .unreadable(let file, let reason): "\(file): \(reason)"
            case .invalid(let error): error.description
            }
        }
    }

    /// The most a config may weigh; anything larger is not a hand-written config.
    public static let maxBytes = 1 << 20

    public static func load(file: String, environment: [String: String]) throws(Failure) -> Config {
        let absolute = file.hasPrefix("/") ? file : FileManager.default.currentDirectoryPath + "/" + file
        guard let handle = FileHandle(forReadingAtPath: absolute) else {
            let reason = FileManager.default.fileExists(atPath: absolute) ? "cannot be read (permissions?)" : "no such file"
            throw .unreadable(file: file, reason: reason)
        }
        defer { try? handle.close() }
        let data: Data
        do {
            data = try handle.read(upToCount: maxBytes + 1) ?? Data()
        } catch {
            throw .unreadable(file: file, reason: "cannot be read: \(error.localizedDescription)")
        }
        guard data.count <= maxBytes else { throw .unreadable(file: file, reason: "is larger than 1 MiB; not a config") }
        return try load(bytes: Array(data), file: file, environment: environment)
    }

    /// Parses `bytes` as the config `file` held when they were read: what a worker process gets
    /// from the daemon, so that it runs with the config the daemon runs, not whatever the file on
    /// disk says by now (edited, not yet reloaded). Relative paths are taken from `file`'s folder.
    public static func load(bytes: [UInt8], file: String, environment: [String: String]) throws(Failure) -> Config {
        let absolute = file.hasPrefix("/") ? file : FileManager.default.currentDirectoryPath + "/" + file
        guard bytes.count <= maxBytes else { throw .unreadable(file: file, reason: "is larger than 1 MiB; not a config") }
        do {
            var config = try ConfigParser.parse(bytes, file: absolute, environment: environment)
            config.file = absolute
            config.source = bytes
            return config
        } catch {
            // Messages name the file as the user wrote it.
            throw .invalid(ConfigError(error.diagnostics.map {
                ConfigDiagnostic(file: file, location: $0.location, message: $0.message)
            }))
        }
    }
}
