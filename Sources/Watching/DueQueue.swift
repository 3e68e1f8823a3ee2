/// A min-heap of (when, path) so the watcher finds the next candidate to look at without walking
/// every pending one. Entries may go stale (the candidate left or was replaced); the stamp tells.
struct DueQueue {
    struct Entry {
        var due: Double
        var path: String
        var stamp: UInt64
    }

    private var heap: [Entry] = []

    var count: Int { heap.count }
    var first: Entry? { heap.first }

    mutating func push(_ entry: Entry) {
        heap.append(entry)
        var child = heap.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard heap[child].due < heap[parent].due else { break }
            heap.swapAt(child, parent)
            child = parent
        }
    }

    mutating func pop() -> Entry? {
        guard !heap.isEmpty else { return nil }
        heap.swapAt(0, heap.count - 1)
        let top = heap.removeLast()
        var parent = 0
        while true {
            let left = 2 * parent + 1, right = left + 1
            var smallest = parent
            if left < heap.count, heap[left].due < heap[smallest].due { smallest = left }
            if right < heap.count, heap[right].due < heap[smallest].due { smallest = right }
            guard smallest != parent else { break }
            heap.swapAt(parent, smallest)
            parent = smallest
        }
        return top
    }
}
