import Foundation
import Glibc

/// The one way the daemon touches the file system: every path is first matched (as bytes) to the
/// configured folder it lies in, and every operation is then resolved by the kernel beneath that
/// folder's descriptor (FolderRoot). A path that lies in none of them is refused, so no template,
/// input name, edit script or symlink can make the daemon write anywhere else. (Which folders the
/// daemon has, and which paths in the library are targets: `ConfinedFolders+Daemon.swift` in Daemon.)
///
/// The command line's `--to` writes where it is told: it uses `anywhere`, which resolves paths as
/// the process would and confines nothing.
public struct ConfinedFolders: Sendable {
    /// Deepest first, so a folder inside another (the claims in the inbox) is matched to itself.
    let roots: [FolderRoot]

    /// The folders by path, each with what it is for messages ("the library").
    public init(_ folders: [(path: String, label: String?)]) throws(Durable.Failure) {
        var roots: [FolderRoot] = []
        var seen = Set<String>()
        for (path, label) in folders where seen.insert(path).inserted { roots.append(try FolderRoot(path, label: label)) }
        self.roots = roots.sorted { $0.path.utf8.count > $1.path.utf8.count }
    }

    public init(_ paths: [String]) throws(Durable.Failure) { try self.init(paths.map { (path: $0, label: nil) }) }

    private init(unconfined root: FolderRoot) {
        self.roots = [root]
    }

    /// No confinement: the root is `/`, resolved the ordinary way (symlinks followed as the shell would).
    public static func anywhere() throws(Durable.Failure) -> ConfinedFolders {
        ConfinedFolders(unconfined: try FolderRoot("/", confined: false))
    }

    /// The configured folder `path` lies in (the deepest), or the refusal naming it.
    public func root(for path: String) throws(Durable.Failure) -> FolderRoot {
        if let root = roots.first(where: { $0.contains(path) }) { return root }
        throw Durable.Failure(step: "confine", path: path, code: EXDEV, outside: "the configured folders")
    }


    // Each of these resolves `path` beneath its configured folder (FolderRoot says how).

    public func open(_ path: String, flags: Int32, mode: mode_t = 0o644) throws(Durable.Failure) -> Int32 {
        try root(for: path).open(path, flags: flags, mode: mode)
    }
    public func status(_ path: String) -> stat? { (try? root(for: path))?.status(path) }
    public func exists(_ path: String) -> Bool { status(path) != nil }
    public func read(_ path: String) -> Data? { (try? root(for: path))?.read(path) }
    public func names(in folder: String) -> [String]? { (try? root(for: folder))?.names(in: folder) }
    public func linkTarget(_ path: String) -> String? { (try? root(for: path))?.linkTarget(path) }
    public func makeFolder(_ path: String) throws(Durable.Failure) { try root(for: path).makeFolder(path) }
    public func syncFolder(_ path: String) throws(Durable.Failure) { try root(for: path).syncFolder(path) }
    public func replace(_ path: String, with data: Data) throws(Durable.Failure) { try root(for: path).replace(path, with: data) }
    public func remove(_ path: String) throws(Durable.Failure) { try root(for: path).remove(path) }
    public func remove(_ path: String, durable: Bool) throws(Durable.Failure) { try root(for: path).remove(path, durable: durable) }
    public func truncate(_ path: String, to length: Int) throws(Durable.Failure) { try root(for: path).truncate(path, to: length) }

    public func link(_ source: String, to destination: String) throws(Durable.Failure) {
        try FolderRoot.link(source, in: try root(for: source), to: destination, in: try root(for: destination))
    }
    public func renameOver(_ source: String, _ destination: String) throws(Durable.Failure) {
        try root(for: destination).renameOver(source, destination)
    }

    public func pinned<T>(_ path: String, _ body: (String) throws -> T) throws -> T { try root(for: path).pinned(path, body) }

    /// Moves `source` to `destination`, never replacing a name there (see FolderRoot.move).
    public func move(_ source: String, to destination: String, reserve: Int = 0, durable: Bool = true)
        throws(Durable.Failure) -> String
    {
        try FolderRoot.move(source, in: try root(for: source), to: destination, in: try root(for: destination),
                            reserve: reserve, durable: durable)
    }

    /// Every file below `folder` (relative paths, folders left out), found without following a link.
    public func files(below folder: String) -> [String] {
        guard let names = names(in: folder) else { return [] }
        var found: [String] = []
        for name in names.sorted() {
            let path = folder + "/" + name
            guard let status = status(path) else { continue }
            if status.st_mode & S_IFMT == S_IFDIR {
                found += files(below: path).map { name + "/" + $0 }
            } else {
                found.append(name)
            }
        }
        return found
    }
}
