/// File systems where inotify sees only what this machine writes: a share written by a network
/// scanner or another computer sends no events here, so such roots are polled. Magic numbers from
/// linux/magic.h (and fs/fuse, fs/smb).
enum FileSystemKind {
    static let remote: [UInt32: String] = [
        0x6969: "nfs",
        0x517B: "smb",
        0xFF53_4D42: "cifs",
        0xFE53_4D42: "smb2",
        0x6573_5546: "fuse",
        0x0102_1997: "9p",
        0x5346_414F: "afs",
        0x00C3_6400: "ceph",
        0x7375_7245: "coda",
    ]

    /// The name of a network or FUSE file system, or nil for a local one.
    static func remoteName(_ type: UInt32?) -> String? { type.flatMap { remote[$0] } }
}
