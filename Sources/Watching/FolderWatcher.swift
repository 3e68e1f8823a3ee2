import Glibc
import TrapperCore

/// Watches the inbox (and the edits folder) and hands the daemon files that are complete: written,
/// closed and then left alone for `settleSeconds`. inotify where it works, polling on network shares;
/// a start-up scan, a rescan after a queue overflow and a periodic safety rescan, so nothing is left
/// behind; each version of a file handed over once. One per process (libinotifytools is global);
/// call it from one thread.
public final class FolderWatcher {
    public struct Statistics: Sendable, Equatable {
        public var events = 0, overflows = 0, rescans = 0, polls = 0, handedOver = 0
    }

    private struct Root {
        var folder: WatchedFolder
        var usesInotify = false
        /// Next poll (polled roots) or safety rescan (inotify roots).
        var nextScan = Double.infinity
        var rescanSoon = false
    }

    private let system: any WatchSystem
    private var roots: [Root]
    private var state = WatchState()
    private var reportedFolders: Set<String> = []

    /// Root -> how it is watched, for `pdftrapper status`: "inotify", "poll (nfs)", "poll (watch = poll)".
    public private(set) var modes: [String: String] = [:]
    public private(set) var statistics = Statistics()
    /// Where notices during `next` go (overflows, folders that could not be watched).
    public var log: (String) -> Void = { _ in }

    public init(_ folders: [WatchedFolder], system: some WatchSystem = RealWatchSystem()) {
        self.system = system
        self.roots = folders.map { Root(folder: $0) }
    }

    /// Entries pending (seen, not yet settled) right now.
    public var pendingCount: Int { state.pending.count }
    /// Handed over and still in place (forgotten as soon as they go): the rest of what memory holds.
    public var handedOverInPlaceCount: Int { state.handedOver.count }

    // MARK: Start

    /// Picks each root's mode, sets up the watches and scans what is already there. Returns the log
    /// lines saying which mode each root uses and why.
    public func start() throws(WatchError) -> [String] {
        try checkRoots()
        var reasons: [String] = []
        for index in roots.indices {
            let folder = roots[index].folder
            let remote = FileSystemKind.remoteName(system.fileSystemType(of: folder.root))
            switch folder.mode {
            case .poll: reasons.append("watch = poll")
            case .inotify: reasons.append(remote.map { "watch = inotify, although it is on \($0): changes made by other machines will not be seen" } ?? "")
            case .auto: reasons.append(remote ?? "")
            }
            roots[index].usesInotify = folder.mode == .inotify || (folder.mode == .auto && remote == nil)
        }
        if roots.contains(where: \.usesInotify) {
            do { try system.startEvents() } catch {
                if roots.contains(where: { $0.usesInotify && $0.folder.mode == .inotify }) { throw error }
                for index in roots.indices where roots[index].usesInotify {
                    roots[index].usesInotify = false
                    reasons[index] = "inotify unavailable: \(error)"
                }
            }
        }
        var lines: [String] = []
        let now = system.monotonicSeconds()
        for index in roots.indices {
            let folder = roots[index].folder
            if roots[index].usesInotify {
                do { try watch(folder.root, root: index) } catch {
                    if folder.mode == .inotify { throw error }
                    roots[index].usesInotify = false
                    reasons[index] = "inotify unavailable: \(error)"
                }
            }
            if roots[index].usesInotify {
                let rescan = folder.rescanSeconds > 0 ? ", rescanning every \(Self.seconds(folder.rescanSeconds))" : ""
                let reason = reasons[index].isEmpty ? "" : " (\(reasons[index]))"
                lines.append("watching \(folder.root) with inotify\(reason), settling \(Self.seconds(folder.settleSeconds))\(rescan)")
                modes[folder.root] = "inotify"
                roots[index].nextScan = folder.rescanSeconds > 0 ? now + folder.rescanSeconds : .infinity
            } else {
                roots[index].folder.pollSeconds = max(folder.pollSeconds, 0.1)
                lines.append("polling \(folder.root) every \(Self.seconds(roots[index].folder.pollSeconds)) (\(reasons[index])), settling \(Self.seconds(folder.settleSeconds))")
                modes[folder.root] = "poll (\(reasons[index].split(separator: ":").first ?? ""))"
                roots[index].nextScan = now + roots[index].folder.pollSeconds
            }
            scan(index, folder: folder.root, full: true)
        }
        return lines
    }

    private func checkRoots() throws(WatchError) {
        for (index, root) in roots.enumerated() {
            guard system.status(of: root.folder.root, followingLink: true)?.kind == .folder else {
                throw .notAFolder(path: root.folder.root)
            }
            for other in roots[(index + 1)...] {
                let (a, b) = (root.folder.root, other.folder.root)
                if a == b || b.hasPrefix(a + "/") { throw .overlappingRoots(a, b) }
                if a.hasPrefix(b + "/") { throw .overlappingRoots(b, a) }
            }
        }
    }

    // MARK: The loop

    /// Waits up to `timeout` seconds for entries to become ready and returns them, oldest first; returns
    /// as soon as there is at least one. Each version of a file comes out once.
    public func next(timeout: Double) -> [ReadyEntry] {
        let end = system.monotonicSeconds() + max(0, timeout)
        while true {
            handle(system.readEvents())
            runDueScans()
            let ready = takeSettled()
            if !ready.isEmpty { return ready }
            let now = system.monotonicSeconds()
            if now >= end { return [] }
            var wake = min(end, state.nextDue ?? end)
            for root in roots { wake = min(wake, root.nextScan) }
            system.wait(seconds: max(0, wake - now))
        }
    }

    private func handle(_ events: [FolderEvent]) {
        for event in events {
            statistics.events += 1
            if event.isOverflow {
                statistics.overflows += 1
                log("inotify queue overflowed (fs.inotify.max_queued_events): rescanning")
                for index in roots.indices where roots[index].usesInotify { roots[index].rescanSoon = true }
                continue
            }
            if event.isWatchGone {
                state.watchGone(event.watch)
                continue
            }
            // Unknown watches are ones we let go of (a folder moved away); events on a folder itself
            // are handled through its parent, and a root that vanishes is re-watched by the rescan.
            guard let (folder, index) = state.folderOfWatch[event.watch], !event.name.isEmpty else { continue }
            let path = Self.join(folder, event.name)
            let relativePath = relative(path, root: index)
            guard !roots[index].folder.ignores(relativePath: relativePath) else { continue }

            if event.isDirectory {
                if event.isCreate || event.isMovedTo {
                    scan(index, folder: path, full: false)     // watch it first, then list what is in it already
                } else if event.isMovedFrom {
                    for watch in state.unwatch(below: path) { system.removeWatch(watch) }
                    state.forget(below: path)
                } else if event.isDelete {
                    _ = state.unwatch(below: path)              // the kernel has dropped those watches itself
                    state.forget(below: path)
                }
            } else if event.isDelete || event.isMovedFrom {
                state.forget(path)
            } else if event.isCloseWrite || event.isMovedTo || event.isCreate {
                guard let status = system.status(of: path, followingLink: false), status.kind != .folder else { continue }
                // A regular file that was only created may still be being written: wait for its close.
                // Anything else (symlink, FIFO, socket, device) is complete once it exists.
                if event.isCreate && status.kind == .file { continue }
                state.restart(path, root: index, relativePath: relativePath, status: status,
                              due: system.monotonicSeconds() + roots[index].folder.settleSeconds)
            }
        }
    }

    private func runDueScans() {
        let now = system.monotonicSeconds()
        for index in roots.indices where roots[index].rescanSoon || now >= roots[index].nextScan {
            let folder = roots[index].folder
            roots[index].rescanSoon = false
            if roots[index].usesInotify {
                statistics.rescans += 1
                roots[index].nextScan = folder.rescanSeconds > 0 ? now + folder.rescanSeconds : .infinity
            } else {
                statistics.polls += 1
                roots[index].nextScan = now + folder.pollSeconds
            }
            scan(index, folder: folder.root, full: true)
        }
    }

    /// Candidates whose quiet time is over: still there and unchanged since last seen means ready.
    private func takeSettled() -> [ReadyEntry] {
        let now = system.monotonicSeconds()
        var ready: [(order: UInt64, entry: ReadyEntry)] = []
        for (path, candidate) in state.due(at: now) {
            guard let status = system.status(of: path, followingLink: false), status.kind != .folder else {
                state.drop(path)
                continue
            }
            if status != candidate.snapshot {
                // Written without a close we saw (a writer keeping it open), or replaced: wait again.
                state.postpone(path, status: status, due: now + roots[candidate.root].folder.settleSeconds)
                continue
            }
            guard state.handOver(path, status: status), let kind = EntryKind(status.kind) else { continue }
            let root = roots[candidate.root].folder.root
            ready.append((candidate.order, ReadyEntry(root: root, path: path, relativePath: candidate.relativePath, kind: kind)))
        }
        statistics.handedOver += ready.count
        return ready.sorted { $0.order < $1.order }.map(\.entry)
    }

    // MARK: Scans and watches

    /// Lists `folder` and everything below it (watching each folder before listing it, on inotify roots)
    /// and makes candidates of what it finds. On inotify roots an mtime older than the settle time counts
    /// as settled; on polled roots (whose server clock may differ) only an unchanged size and mtime does.
    private func scan(_ index: Int, folder start: String, full: Bool) {
        let root = roots[index]
        let now = system.monotonicSeconds(), wall = system.wallClockSeconds()
        var found: [(path: String, relativePath: String, status: EntryStatus)] = []
        var folders = [start]
        while let folder = folders.popLast() {
            if root.usesInotify {
                do { try watch(folder, root: index) } catch {
                    if error.errno != ENOENT && error.errno != ENOTDIR && reportedFolders.insert(folder).inserted {
                        log("\(error); files there are found by the rescan only")
                    }
                }
            }
            guard let names = system.names(in: folder) else { continue }
            for name in names {
                let path = Self.join(folder, name)
                let relativePath = relative(path, root: index)
                guard !root.folder.ignores(relativePath: relativePath),
                      let status = system.status(of: path, followingLink: false) else { continue }
                if status.kind == .folder { folders.append(path) } else { found.append((path, relativePath, status)) }
            }
        }
        found.sort { ($0.status.modified, $0.path) < ($1.status.modified, $1.path) }
        let settle = root.folder.settleSeconds
        for file in found {
            var wait = settle
            if root.usesInotify {
                let age = wall - file.status.modifiedSeconds
                wait = age < 0 ? settle : max(0, settle - age)   // an mtime in the future waits the full time
            }
            state.saw(file.path, root: index, relativePath: file.relativePath, status: file.status, due: now + wait,
                      settle: settle, now: now)
        }
        if full { state.keepHandedOver(root: root.folder.root, present: Set(found.map(\.path))) }
    }

    private func watch(_ folder: String, root: Int) throws(WatchError) {
        guard state.folders[folder] == nil else { return }
        let watch = try system.watchFolder(folder, followingLink: folder == roots[root].folder.root)
        state.watching(folder, watch: watch, root: root)
    }

    private func relative(_ path: String, root: Int) -> String {
        let rootPath = roots[root].folder.root
        return String(path.dropFirst(rootPath == "/" ? 1 : rootPath.count + 1))
    }

    private static func join(_ folder: String, _ name: String) -> String { folder == "/" ? "/" + name : folder + "/" + name }

    static func seconds(_ value: Double) -> String {
        value == value.rounded() && value < 1e9 ? "\(Int(value))s" : "\(value)s"
    }
}
