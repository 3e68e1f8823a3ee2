import Glibc

/// The threads a backend started in `sane_start` to read the device, told apart by their ids in
/// /proc/self/task.
///
/// Backends built on sanei_thread (Debian builds it with pthreads; the test backend is one) end
/// that thread with an asynchronous `pthread_cancel` as soon as the frame's last bytes are read,
/// while it may still be freeing its buffer. A cancel that lands inside `free` kills the thread
/// holding its malloc arena's lock, and the next thread given that arena waits for it forever: the
/// scan, and in time the whole process, hangs in `pthread_join` or `malloc` (reproduced with the
/// test backend: about one page in 2,500 while other threads allocate). So a frame's last byte is
/// read only once these threads have ended on their own, which they do right after their last
/// write.
struct ReaderThreads {
    private let ids: [Int32]

    /// The ids of the process's threads now.
    static func running() -> Set<Int32> {
        guard let folder = opendir("/proc/self/task") else { return [] }
        defer { closedir(folder) }
        var ids: Set<Int32> = []
        while let entry = readdir(folder) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if let id = Int32(name) { ids.insert(id) }
        }
        return ids
    }

    /// The threads running now that did not run `before`.
    init(startedSince before: Set<Int32>) {
        ids = Array(Self.running().subtracting(before))
    }

    /// Waits until every one of them has ended. False when one still runs after `limit`
    /// milliseconds: a backend whose reader outlives its frame, or a thread the process started
    /// meanwhile for something else.
    func awaitEnd(limit milliseconds: Int) -> Bool {
        var waited = 0
        while ids.contains(where: { access("/proc/self/task/\($0)", F_OK) == 0 }) {
            guard waited < milliseconds * 10 else { return false }
            usleep(100)
            waited += 1
        }
        return true
    }
}
