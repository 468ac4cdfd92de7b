import Synchronization

/// Reads that callers asking the same question at the same moment share: the first
/// caller's read runs, and those who ask while it runs wait for its answer instead of
/// reading too. After a write wakes hundreds of waiting devices current at one cursor,
/// they ask the database once, not hundreds of times.
///
/// Nothing is kept once a read ends: a later caller reads afresh, so sharing never serves
/// an answer older than the question.
final class SharedReads<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    private let running = Mutex<[Key: Task<Value, any Error>]>([:])

    init() {}

    /// The answer of the read of `key` running now, or of `read`, run now for every caller
    /// of `key` until it ends.
    func value(of key: Key, _ read: @escaping @Sendable () async throws -> Value) async throws -> Value {
        let task = running.withLock { running in
            if let task = running[key] { return task }
            let task = Task {
                defer { _ = self.running.withLock { $0.removeValue(forKey: key) } }
                return try await read()
            }
            running[key] = task
            return task
        }
        return try await task.value
    }
}
