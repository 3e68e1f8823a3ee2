import Foundation
import Glibc
import Testing
import TrapperCore

/// The files in systemd/, checked by systemd's own tools. A missing tool fails the test with the
/// package to install (`make deps` installs it).
@Suite struct SystemdFilesTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let systemUnit = root.appendingPathComponent("systemd/pdftrapper.service")
    static let userUnit = root.appendingPathComponent("systemd/user/pdftrapper.service")
    static let sysusers = root.appendingPathComponent("systemd/pdftrapper.sysusers")
    static let tmpfiles = root.appendingPathComponent("systemd/pdftrapper.tmpfiles")

    @Test func systemUnitVerifiesClean() throws {
        let folder = try UnitScratch()
        let unit = try folder.unitWithRealExecStart(Self.systemUnit)
        let run = try ToolRun.run(try tool("systemd-analyze"), ["verify", "--man=no", unit.path])
        #expect(run.status == 0 && run.stdout.isEmpty && run.stderr.isEmpty, "systemd-analyze verify said:\n\(run.stdout)\(run.stderr)")
    }

    @Test func userUnitVerifiesClean() throws {
        let folder = try UnitScratch()
        let unit = try folder.unitWithRealExecStart(Self.userUnit)
        // The user manager wants a runtime directory; give it a private one.
        let runtime = folder.url.appendingPathComponent("runtime")
        try FileManager.default.createDirectory(at: runtime, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        var env = ProcessInfo.processInfo.environment
        env["XDG_RUNTIME_DIR"] = runtime.path
        let run = try ToolRun.run(try tool("systemd-analyze"), ["verify", "--user", "--man=no", unit.path], environment: env)
        #expect(run.status == 0 && run.stdout.isEmpty && run.stderr.isEmpty, "systemd-analyze verify --user said:\n\(run.stdout)\(run.stderr)")
    }

    /// The check above would see a mistake: the same unit with an unknown key and a bad value.
    @Test func verifyNoticesMistakes() throws {
        let folder = try UnitScratch()
        let unit = try folder.unitWithRealExecStart(Self.systemUnit)
        let broken = try String(contentsOf: unit, encoding: .utf8)
            .replacingOccurrences(of: "[Service]\n", with: "[Service]\nProtectSytem=strict\nWatchdogSec=soon\n")
        try broken.write(to: unit, atomically: true, encoding: .utf8)
        let run = try ToolRun.run(try tool("systemd-analyze"), ["verify", "--man=no", unit.path])
        #expect(run.stderr.contains("Unknown key 'ProtectSytem'"), "\(run.stderr)")
        #expect(run.stderr.contains("soon"), "\(run.stderr)")
    }

    @Test func systemUnitExposureAtMostTwo() throws {
        let run = try ToolRun.run(try tool("systemd-analyze"), ["security", "--offline=true", "--no-pager", Self.systemUnit.path])
        let summary = try #require(run.stdout.split(separator: "\n").first { $0.contains("Overall exposure level") },
                                   "no overall exposure in:\n\(run.stdout)\(run.stderr)")
        // "→ Overall exposure level for pdftrapper.service: 0.4 SAFE 😀"
        let number = summary.split(separator: ":").last!.split(separator: " ").first.flatMap { Double($0) }
        let exposure = try #require(number, "cannot read the exposure in: \(summary)")
        print("systemd-analyze security --offline=true pdftrapper.service: overall exposure \(exposure)")
        #expect(exposure <= 2.0, "\(run.stdout)")
    }

    /// What the daemon's contract with systemd needs (see the unit's comments).
    @Test func systemUnitKeepsTheDaemonContract() throws {
        let unit = try UnitFile(Self.systemUnit)
        #expect(unit["ExecStart"] == ["/usr/bin/pdftrapper run --config /etc/pdftrapper/config.toml"])
        #expect(unit["Type"] == ["notify"])
        #expect(unit["NotifyAccess"] == ["main"])
        #expect(unit["WatchdogSec"] == ["60"])
        #expect(unit["Restart"] == ["on-failure"])
        #expect(unit["RestartPreventExitStatus"] == ["78"])
        #expect(unit["ExecReload"] == ["/bin/kill -HUP $MAINPID"])
        #expect(unit["User"] == ["pdftrapper"] && unit["Group"] == ["pdftrapper"])
        #expect(unit["SupplementaryGroups"] == ["scanner"])
        #expect(unit["StateDirectory"] == ["pdftrapper"] && unit["RuntimeDirectory"] == ["pdftrapper"])
        let user = try UnitFile(Self.userUnit)
        #expect(user["ExecStart"] == ["/usr/bin/pdftrapper run --config %E/pdftrapper/config.toml"])
        #expect(user["RestartPreventExitStatus"] == ["78"])
    }

    /// Every folder config.example.toml names is writable under ProtectSystem=strict, and the state
    /// folder is the unit's StateDirectory.
    @Test func exampleConfigFoldersAreWritable() throws {
        let config = try exampleConfig()
        let unit = try UnitFile(Self.systemUnit)
        let writable = (unit["ReadWritePaths"] ?? []).flatMap { $0.split(separator: " ") }
            .map { $0.hasPrefix("-") ? String($0.dropFirst()) : String($0) }
        for folder in Self.folders(of: config) {
            #expect(writable.contains { folder == $0 || folder.hasPrefix($0 + "/") }, "\(folder) is not in ReadWritePaths=\(writable)")
        }
        #expect(config.daemon.stateDir == "/var/lib/" + (unit["StateDirectory"]?.first ?? ""))
    }

    /// sysusers makes the user, its group and the scanner membership in a scratch root; tmpfiles then
    /// makes every folder of config.example.toml there, 0750 and owned by that user.
    @Test func sysusersAndTmpfilesInAScratchRoot() throws {
        let scratch = try UnitScratch()
        let root = scratch.url.appendingPathComponent("root")
        try FileManager.default.createDirectory(at: root.appendingPathComponent("etc"), withIntermediateDirectories: true)

        let users = try ToolRun.run(try tool("systemd-sysusers"), ["--root=\(root.path)", Self.sysusers.path])
        #expect(users.status == 0, "systemd-sysusers: \(users.stderr)")
        let passwd = try String(contentsOf: root.appendingPathComponent("etc/passwd"), encoding: .utf8)
        let group = try String(contentsOf: root.appendingPathComponent("etc/group"), encoding: .utf8)
        let entry = try #require(passwd.split(separator: "\n").map { $0.split(separator: ":", omittingEmptySubsequences: false) }
            .first { $0.first == "pdftrapper" }, "no pdftrapper in passwd:\n\(passwd)")
        #expect(entry[5] == "/var/lib/pdftrapper")
        #expect(entry[6].hasSuffix("nologin"))
        let scanner = try #require(group.split(separator: "\n").first { $0.hasPrefix("scanner:") }, "no scanner group:\n\(group)")
        #expect(scanner.split(separator: ":", omittingEmptySubsequences: false).last!.split(separator: ",").contains("pdftrapper"))
        let uid = try #require(UInt32(entry[2])), gid = try #require(UInt32(entry[3]))
        #expect(uid < 1000, "a system user")

        let files = try ToolRun.run(try tool("systemd-tmpfiles"), ["--create", "--root=\(root.path)", Self.tmpfiles.path])
        #expect(files.status == 0 && files.stderr.isEmpty, "systemd-tmpfiles: \(files.stderr)")
        for folder in Self.folders(of: try exampleConfig()) {
            var status = stat()
            let made = stat(root.path + folder, &status) == 0
            #expect(made, "tmpfiles did not make \(folder)")
            guard made else { continue }
            #expect((status.st_mode & S_IFMT) == S_IFDIR)
            #expect(status.st_mode & 0o7777 == 0o750, "\(folder): mode \(String(status.st_mode & 0o7777, radix: 8))")
            #expect(status.st_uid == uid && status.st_gid == gid, "\(folder): owner \(status.st_uid):\(status.st_gid)")
        }
    }

    static func folders(of config: Config) -> [String] {
        [config.library.root, config.inbox.path, config.inbox.archive, config.inbox.quarantine, config.edits.path, config.signatures.path]
    }

    private func exampleConfig() throws -> Config {
        try ConfigLoader.load(file: Self.root.appendingPathComponent("config.example.toml").path, environment: [:])
    }

    private func tool(_ name: String) throws -> String {
        guard let path = ToolRun.tool(name) else {
            Issue.record("\(name) is not installed: install the Debian package systemd (make deps does)")
            throw MissingTool(name: name)
        }
        return path
    }

    struct MissingTool: Error { var name: String }
}

/// A temporary folder, removed at the end. Its name short: the user manager's sockets go below it
/// (runtime/gnupg/S.gpg-agent.browser), and a socket's path holds at most 107 bytes.
final class UnitScratch {
    let url: URL
    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("units-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }
    deinit { try? FileManager.default.removeItem(at: url) }

    /// A copy of `unit` whose ExecStart= names a binary that exists here (verify insists): the
    /// pdftrapper this test build made, else this test binary. Only the program changes.
    func unitWithRealExecStart(_ unit: URL) throws -> URL {
        let built = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("pdftrapper").path
        let binary = FileManager.default.isExecutableFile(atPath: built) ? built : CommandLine.arguments[0]
        let text = try String(contentsOf: unit, encoding: .utf8)
            .replacingOccurrences(of: "ExecStart=/usr/bin/pdftrapper ", with: "ExecStart=\(binary) ")
        let copy = url.appendingPathComponent(unit.lastPathComponent)
        try text.write(to: copy, atomically: true, encoding: .utf8)
        return copy
    }
}

/// Just enough of a unit-file reader for the tests: key to its values, in order, comments and
/// section headers skipped (our units use each key in one section only).
struct UnitFile {
    var values: [String: [String]] = [:]
    init(_ url: URL) throws {
        for raw in try String(contentsOf: url, encoding: .utf8).split(separator: "\n") {
            let line = raw.trimmingCharacters(in: .whitespaces)
            guard !line.isEmpty, !line.hasPrefix("#"), !line.hasPrefix(";"), !line.hasPrefix("["),
                  let equals = line.firstIndex(of: "=") else { continue }
            values[String(line[..<equals]), default: []].append(String(line[line.index(after: equals)...]))
        }
    }
    subscript(_ key: String) -> [String]? { values[key] }
}
