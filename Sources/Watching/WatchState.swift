/// A file seen but not yet ready: how it looked when last seen, and when to look at it again.
struct Candidate {
    var root: Int
    var relativePath: String
    var snapshot: EntryStatus
    var due: Double
    /// First-seen order, kept across restarts, so a batch comes out oldest first.
    var order: UInt64
    /// Which queue entry is this candidate's own; older ones for the same path are stale.
    var stamp: UInt64
}

/// The watcher loop's state, kept apart from the system calls: what is pending, what was handed over,
/// which folders are watched. Memory grows with pending entries and with handed-over files that are
/// still in place, nothing else.
struct WatchState {
    private(set) var pending: [String: Candidate] = [:]
    /// Handed over and, as far as we know, still there: never handed over again until it changes.
    private(set) var handedOver: [String: EntryStatus] = [:]
    private var queue = DueQueue()
    private var counter: UInt64 = 0

    /// Watched folder path -> watch descriptor, and back.
    private(set) var folders: [String: Int32] = [:]
    private(set) var folderOfWatch: [Int32: (path: String, root: Int)] = [:]

    var nextDue: Double? { queue.first?.due }
    var queuedCount: Int { queue.count }

    // MARK: Candidates

    /// Something happened to the file (written and closed, moved in): its settle clock starts again.
    mutating func restart(_ path: String, root: Int, relativePath: String, status: EntryStatus, due: Double) {
        if var candidate = pending[path] {
            candidate.snapshot = status
            candidate.due = max(candidate.due, due)
            pending[path] = candidate   // its queue entry is earlier: it is pushed again when it comes up
        } else {
            add(path, root: root, relativePath: relativePath, status: status, due: due)
        }
    }

    /// A listing found the file. New ones become candidates; pending ones restart only if they changed;
    /// ones handed over and unchanged stay out.
    mutating func saw(_ path: String, root: Int, relativePath: String, status: EntryStatus, due: Double, settle: Double, now: Double) {
        if let candidate = pending[path] {
            if candidate.snapshot != status { restart(path, root: root, relativePath: relativePath, status: status, due: now + settle) }
            return
        }
        if handedOver[path] == status { return }
        add(path, root: root, relativePath: relativePath, status: status, due: due)
    }

    private mutating func add(_ path: String, root: Int, relativePath: String, status: EntryStatus, due: Double) {
        counter += 1
        pending[path] = Candidate(root: root, relativePath: relativePath, snapshot: status, due: due, order: counter, stamp: counter)
        queue.push(.init(due: due, path: path, stamp: counter))
    }

    /// Gone (deleted, moved away): neither pending nor remembered.
    mutating func forget(_ path: String) {
        pending[path] = nil
        handedOver[path] = nil
    }

    /// Everything at or below `folder`.
    mutating func forget(below folder: String) {
        let prefix = folder + "/"
        for path in pending.keys where path.hasPrefix(prefix) { pending[path] = nil }
        for path in handedOver.keys where path.hasPrefix(prefix) { handedOver[path] = nil }
    }

    /// After a full listing of a root: forget handed-over files that were not in it.
    mutating func keepHandedOver(root rootPath: String, present: Set<String>) {
        let prefix = rootPath + "/"
        for path in handedOver.keys where path.hasPrefix(prefix) && !present.contains(path) { handedOver[path] = nil }
    }

    /// Candidates whose settle time has come, to be checked against the file system.
    mutating func due(at now: Double) -> [(path: String, candidate: Candidate)] {
        var due: [(String, Candidate)] = []
        while let entry = queue.first, entry.due <= now {
            _ = queue.pop()
            guard let candidate = pending[entry.path], candidate.stamp == entry.stamp else { continue }
            if candidate.due > now {
                queue.push(.init(due: candidate.due, path: entry.path, stamp: entry.stamp))   // restarted meanwhile
            } else {
                due.append((entry.path, candidate))
            }
        }
        return due
    }

    /// The file changed while settling: look again after another quiet period.
    mutating func postpone(_ path: String, status: EntryStatus, due: Double) {
        guard var candidate = pending[path] else { return }
        candidate.snapshot = status
        candidate.due = due
        pending[path] = candidate
        queue.push(.init(due: due, path: path, stamp: candidate.stamp))
    }

    /// Ready: hand it over unless this very version already was. Returns whether to hand it over.
    mutating func handOver(_ path: String, status: EntryStatus) -> Bool {
        pending[path] = nil
        if handedOver[path] == status { return false }
        handedOver[path] = status
        return true
    }

    mutating func drop(_ path: String) { pending[path] = nil }

    // MARK: Watches

    mutating func watching(_ folder: String, watch: Int32, root: Int) {
        if let previous = folderOfWatch[watch], previous.path != folder { folders[previous.path] = nil }  // same folder, new name
        folders[folder] = watch
        folderOfWatch[watch] = (folder, root)
    }

    /// Drops the records of `folder` and the folders below it; returns the watches still ours to remove.
    mutating func unwatch(below folder: String) -> [Int32] {
        let prefix = folder + "/"
        var owned: [Int32] = []
        for (path, watch) in folders where path == folder || path.hasPrefix(prefix) {
            folders[path] = nil
            if folderOfWatch[watch]?.path == path {
                folderOfWatch[watch] = nil
                owned.append(watch)
            }
        }
        return owned
    }

    /// The kernel dropped this watch (folder deleted or unmounted).
    mutating func watchGone(_ watch: Int32) {
        guard let folder = folderOfWatch.removeValue(forKey: watch) else { return }
        if folders[folder.path] == watch { folders[folder.path] = nil }
    }
}
