import Glibc

/// The file system a folder lives on, as /proc/self/mountinfo tells it, and whether processes on
/// several hosts that share it through that mount see each other's appends once they hold a
/// target's flock: the lock only protects a file whose true length the holder reads.
///
/// A client that caches a file's size (GlusterFS's FUSE attribute and metadata caches, as
/// installed) lets the host taking the lock see the file as it was before the other host's
/// revision, and write over it. Such a mount is refused, with the options that make it coherent,
/// rather than trusted with a page.
public struct SharedMount: Sendable, Equatable {
    /// Where it is mounted, its type (`fuse.glusterfs`, `nfs4`, `cifs`, `ext4`, ...), what is
    /// mounted (`host:/volume`), and its options (the mount's and the file system's).
    public var mountPoint: String
    public var type: String
    public var source: String
    public var options: [String]

    /// The mount holding `path` (the longest mount point that is a prefix of it), from the text
    /// of a mountinfo file.
    public static func containing(_ path: String, mountinfo: String) -> SharedMount? {
        var best: SharedMount?
        for line in mountinfo.split(separator: "\n") {
            guard let mount = parse(line) else { continue }
            let prefix = mount.mountPoint == "/" ? "/" : mount.mountPoint + "/"
            guard path == mount.mountPoint || path.hasPrefix(prefix) else { continue }
            if mount.mountPoint.count >= (best?.mountPoint.count ?? -1) { best = mount }
        }
        return best
    }

    /// The mount holding `path` in this process's mount namespace.
    public static func containing(_ path: String) -> SharedMount? {
        guard let text = readText("/proc/self/mountinfo") else { return nil }
        var resolved = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let real = realpath(path, &resolved) != nil ? String(cString: resolved) : path
        return containing(real, mountinfo: text)
    }

    /// One mountinfo line: `ID PARENT MAJ:MIN ROOT POINT OPTIONS [TAGS...] - TYPE SOURCE SUPER`.
    static func parse(_ line: Substring) -> SharedMount? {
        let fields = line.split(separator: " ", omittingEmptySubsequences: false).map(String.init)
        guard let dash = fields.firstIndex(of: "-"), dash >= 6, fields.count >= dash + 4 else { return nil }
        let options = (fields[5] + "," + fields[dash + 3]).split(separator: ",").map(String.init)
        return SharedMount(mountPoint: unescape(fields[4]), type: fields[dash + 1], source: unescape(fields[dash + 2]),
                           options: options)
    }

    /// mountinfo writes a space, tab, newline and backslash in a path as `\040`, `\011`, `\012`, `\134`.
    static func unescape(_ field: String) -> String {
        var bytes: [UInt8] = []
        var rest = Array(field.utf8)[...]
        while let byte = rest.first {
            if byte == UInt8(ascii: "\\"), rest.count >= 4,
               let value = UInt8(String(decoding: rest.dropFirst().prefix(3), as: UTF8.self), radix: 8) {
                bytes.append(value)
                rest = rest.dropFirst(4)
            } else {
                bytes.append(byte)
                rest = rest.dropFirst()
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// A file system other hosts (or another kernel's client) may change under this one: a
    /// network or cluster file system, or FUSE. Only through such a mount can a file's size, read
    /// under the lock, be a stale view.
    public var isShared: Bool {
        type.hasPrefix("fuse.") || ["nfs", "nfs4", "cifs", "smb3", "ceph", "9p", "afs", "lustre", "gpfs", "ocfs2", "gfs2", "beegfs"].contains(type)
    }

    /// Why appends under a lock through this mount can be lost, naming what to set; nil when it
    /// is coherent (a local file system, or a shared one mounted as this project tested or as its
    /// documentation requires). `read` reads a file, `list` a folder (GlusterFS's `.meta`).
    public func incoherence(read: (String) -> String? = Self.readText, list: (String) -> [String]? = Self.listFolder) -> String? {
        switch type {
        case "fuse.glusterfs": glusterIncoherence(read: read, list: list)
        case "nfs", "nfs4":
            if options.contains("nolock") || options.contains("local_lock=flock") || options.contains("local_lock=all") {
                "\(mountPoint) is an NFS mount whose locks stay on this host (nolock or local_lock): mount it with local_lock=none"
            } else if options.contains("nocto"), !options.contains("noac") {
                "\(mountPoint) is an NFS mount without close-to-open consistency (nocto): mount it without nocto, or with noac"
            } else { nil }
        case "cifs", "smb3":
            if options.contains("nobrl") {
                "\(mountPoint) is an SMB mount whose locks stay on this host (nobrl): mount it without nobrl"
            } else if options.contains("cache=loose") {
                "\(mountPoint) is an SMB mount with cache=loose: mount it with cache=strict or cache=none"
            } else { nil }
        default: nil
        }
    }

    /// The FUSE client's own options (`.meta/cmdline`) and its translators (`.meta/graphs/active`):
    /// zero attribute and entry timeouts, and no md-cache (the volume's `performance.stat-prefetch`).
    private func glusterIncoherence(read: (String) -> String?, list: (String) -> [String]?) -> String? {
        let volume = source.split(separator: ":", maxSplits: 1).last.map { String($0.drop(while: { $0 == "/" })) } ?? source
        var missing: [String] = []
        guard let cmdline = read(mountPoint + "/.meta/cmdline"), let graph = list(mountPoint + "/.meta/graphs/active") else {
            return "\(mountPoint) is a GlusterFS mount whose caching cannot be checked (no .meta folder): mount it with "
                + "-o attribute-timeout=0,entry-timeout=0 and run `gluster volume set \(volume) performance.stat-prefetch off`"
        }
        let arguments = cmdline.split(whereSeparator: { $0 == " " || $0 == "\"" }).map(String.init)
        for timeout in ["attribute-timeout", "entry-timeout"] where !arguments.contains("--\(timeout)=0") {
            missing.append("\(timeout)=0")
        }
        let mountFix = missing.isEmpty ? nil : "mount it with -o \(missing.joined(separator: ","))"
        let volumeFix = graph.contains(where: { $0.hasSuffix("-md-cache") })
            ? "run `gluster volume set \(volume) performance.stat-prefetch off`" : nil
        let fixes = [mountFix, volumeFix].compactMap { $0 }
        guard !fixes.isEmpty else { return nil }
        return "\(mountPoint) is a GlusterFS mount that caches file sizes, so a host could write over another's page: "
            + fixes.joined(separator: " and ")
    }

    public static func readText(_ path: String) -> String? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = read(descriptor, &buffer, buffer.count)
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { return count == 0 ? String(decoding: bytes, as: UTF8.self) : nil }
            bytes += buffer[0..<count]
        }
    }

    public static func listFolder(_ path: String) -> [String]? {
        guard let folder = opendir(path) else { return nil }
        defer { closedir(folder) }
        var names: [String] = []
        while let entry = readdir(folder) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix(while: { $0 != 0 }), as: UTF8.self) }
            if name != ".", name != ".." { names.append(name) }
        }
        return names
    }
}
