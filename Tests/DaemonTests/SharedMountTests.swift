import Daemon
import Foundation
import System
import Testing

/// Which mount a library is on, and whether hosts sharing it through that mount can lose a page:
/// on mountinfo lines and GlusterFS `.meta` contents as this machine's kernel and GlusterFS 10.3
/// wrote them (Tests/MultiHost checks the same against a real volume).
@Suite struct SharedMountTests {
    static let mountinfo = """
        24 1 8:1 / / rw,relatime shared:1 - ext4 /dev/sda1 rw
        45 24 0:40 / /mnt/lib rw,relatime - fuse.glusterfs 127.0.0.2:/scans rw,user_id=0,group_id=0,default_permissions,allow_other,max_read=131072
        46 24 0:41 / /srv/nfs\\040library rw,relatime shared:7 - nfs4 filer:/export rw,vers=4.2,hard,proto=tcp,sec=sys,local_lock=flock,addr=10.0.0.1
        47 24 0:42 / /srv/smb rw,relatime - cifs //nas/docs rw,vers=3.1.1,cache=strict,nobrl,uid=0
        """

    static let cached = #"{ "Cmdlinestr": "/usr/sbin/glusterfs --process-name fuse --volfile-server=127.0.0.2 --volfile-id=/scans /mnt/lib" }"#
    static let uncached = #"{ "Cmdlinestr": "/usr/sbin/glusterfs --attribute-timeout=0 --entry-timeout=0 --process-name fuse --volfile-server=127.0.0.2 --volfile-id=/scans /mnt/lib" }"#
    static let withMetadataCache = ["meta-autoload", "scans", "scans-client-0", "scans-dht", "scans-md-cache", "scans-write-behind", "top"]
    static let withoutMetadataCache = ["meta-autoload", "scans", "scans-client-0", "scans-dht", "scans-write-behind", "top"]

    func mount(_ path: String) throws -> SharedMount { try #require(SharedMount.containing(path, mountinfo: Self.mountinfo)) }

    @Test func theLongestMountPointHoldingThePathIsTheOne() throws {
        #expect(try mount("/mnt/lib/Receipts/2026.pdf").type == "fuse.glusterfs")
        #expect(try mount("/mnt/lib").mountPoint == "/mnt/lib")
        #expect(try mount("/mnt/library/x.pdf").type == "ext4", "a name that only begins like the mount point is not in it")
        #expect(try mount("/srv/nfs library/T.pdf").source == "filer:/export", "mountinfo's \\040 is a space")
    }

    @Test func gluster() throws {
        let lib = try mount("/mnt/lib/T.pdf")
        func verdict(_ cmdline: String?, _ graph: [String]?) -> String? {
            lib.incoherence(read: { $0 == "/mnt/lib/.meta/cmdline" ? cmdline : nil },
                            list: { $0 == "/mnt/lib/.meta/graphs/active" ? graph : nil })
        }
        #expect(verdict(Self.uncached, Self.withoutMetadataCache) == nil)
        let asInstalled = try #require(verdict(Self.cached, Self.withMetadataCache))
        #expect(asInstalled.contains("-o attribute-timeout=0,entry-timeout=0"))
        #expect(asInstalled.contains("gluster volume set scans performance.stat-prefetch off"))
        let volumeOnly = try #require(verdict(Self.uncached, Self.withMetadataCache))
        #expect(!volumeOnly.contains("attribute-timeout") && volumeOnly.contains("stat-prefetch off"))
        let mountOnly = try #require(verdict(Self.cached, Self.withoutMetadataCache))
        #expect(mountOnly.contains("attribute-timeout=0") && !mountOnly.contains("stat-prefetch"))
        let unknown = try #require(verdict(nil, nil), "a mount that cannot be checked is not trusted")
        #expect(unknown.contains("cannot be checked"))
    }

    @Test func nfsAndSMBWithLocksThatStayOnOneHost() throws {
        #expect(try mount("/srv/nfs library/T.pdf").incoherence()?.contains("local_lock=none") == true)
        #expect(try mount("/srv/smb/T.pdf").incoherence()?.contains("nobrl") == true)
        #expect(try mount("/home/T.pdf").incoherence() == nil)
    }

    @Test func thisProcessesOwnMountsAreRead() throws {
        let root = try #require(SharedMount.containing("/"))
        #expect(root.mountPoint == "/")
        #expect(SharedMount.containing(FileManager.default.temporaryDirectory.path) != nil)
    }
}

/// The state folder names a target by its path inside the library: two hosts mounting the
/// library at different paths agree on its key and read each other's paths as their own.
@Suite struct StateNamesTests {
    @Test func aTargetIsNamedInsideItsLibrary() {
        let hostA = StateDirectory(path: "/mnt/a/library/.pdftrapper")
        let hostB = StateDirectory(path: "/srv/shared/.pdftrapper/")
        #expect(hostA.library == "/mnt/a/library")
        #expect(hostA.name(of: "/mnt/a/library/Receipts/T.pdf") == "Receipts/T.pdf")
        #expect(hostA.key(for: "/mnt/a/library/Receipts/T.pdf") == hostB.key(for: "/srv/shared/Receipts/T.pdf"))
        #expect(hostB.path(named: hostA.name(of: "/mnt/a/library/Receipts/T.pdf")) == "/srv/shared/Receipts/T.pdf")
        #expect(hostA.name(of: "/elsewhere/T.pdf") == "/elsewhere/T.pdf", "outside the library: its absolute path")
        #expect(hostA.path(named: "/elsewhere/T.pdf") == "/elsewhere/T.pdf")
        #expect(hostA.name(of: "/mnt/a/library2/T.pdf") == "/mnt/a/library2/T.pdf")
    }

    @Test func aStateFolderOutsideALibraryKeepsAbsolutePaths() {
        let state = StateDirectory(path: "/var/lib/pdftrapper")
        #expect(state.library == nil)
        #expect(state.name(of: "/var/lib/T.pdf") == "/var/lib/T.pdf")
        #expect(state.key(for: "/srv/T.pdf") == StateDirectory.key(for: "/srv/T.pdf"))
    }
}
