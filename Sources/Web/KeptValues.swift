import Foundation

/// What the workspace keeps between requests (documents read, poppler documents open, pictures
/// rendered): at most `count` values and `weight` in all, the oldest let go first. Made outside
/// the lock, so one slow render never holds up the others; of two made at once, the first kept wins.
final class KeptValues<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var kept: [String: Value] = [:]
    private var order: [String] = []
    private var weighed = 0
    let count: Int
    let weight: Int
    let weigh: (Value) -> Int

    init(count: Int, weight: Int = .max, weigh: @escaping (Value) -> Int = { _ in 0 }) {
        self.count = count
        self.weight = weight
        self.weigh = weigh
    }

    func value(_ key: String, make: () throws -> Value) rethrows -> Value {
        if let value = lock.withLock({ kept[key] }) { return value }
        let made = try make()
        return lock.withLock {
            if let raced = kept[key] { return raced }
            kept[key] = made
            order.append(key)
            weighed += weigh(made)
            while !order.isEmpty, order.count > count || weighed > weight {
                if let oldest = kept.removeValue(forKey: order.removeFirst()) { weighed -= weigh(oldest) }
            }
            return made
        }
    }
}
