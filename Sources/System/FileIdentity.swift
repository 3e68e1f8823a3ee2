import Glibc

/// Which file a descriptor or a path is: the device and inode it lives on, and its size. Two
/// equal identities (device and inode) are the same file, whatever its name is now; a file another
/// program saved by writing a new file and renaming it into place has another inode.
public struct FileIdentity: Codable, Sendable, Hashable, CustomStringConvertible {
    public var device: UInt64
    public var inode: UInt64
    public var size: Int

    public init(_ status: stat) {
        device = UInt64(status.st_dev)
        inode = UInt64(status.st_ino)
        size = Int(status.st_size)
    }

    /// The file `descriptor` is open on, as it is now.
    public static func of(descriptor: Int32) -> FileIdentity? {
        var status = stat()
        return fstat(descriptor, &status) == 0 ? FileIdentity(status) : nil
    }

    /// The same file (its size may differ).
    public func isSameFile(as other: FileIdentity) -> Bool { device == other.device && inode == other.inode }

    public var description: String { "device \(device) inode \(inode), \(size) bytes" }
}
