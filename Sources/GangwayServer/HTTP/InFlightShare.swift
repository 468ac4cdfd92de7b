import Synchronization

/// How many requests of one kind each caller has under way at once: at most ``limit`` per
/// key, so one caller's requests that are never finished hold a bounded share of what
/// they take (a backend's connections, the memory of bodies being read), never all of it.
final class InFlightShare<Key: Hashable & Sendable>: Sendable {
    /// The most one key has under way.
    let limit: Int

    private let inFlight = Mutex<[Key: Int]>([:])

    init(limit: Int) {
        self.limit = max(1, limit)
    }

    /// One request's place, given back once: by ``release()`` or, at the latest, when the
    /// last reference to it goes (an answer that was never written).
    final class Place: Sendable {
        private let share: InFlightShare
        private let key: Key
        private let released = Atomic<Bool>(false)

        fileprivate init(share: InFlightShare, key: Key) {
            self.share = share
            self.key = key
        }

        func release() {
            guard !released.exchange(true, ordering: .relaxed) else { return }
            share.release(key)
        }

        deinit { release() }
    }

    /// Takes one of `key`'s places, or `nil` when there is none free.
    func take(_ key: Key) -> Place? {
        let taken = inFlight.withLock { counts in
            let count = counts[key, default: 0]
            guard count < limit else { return false }
            counts[key] = count + 1
            return true
        }
        return taken ? Place(share: self, key: key) : nil
    }

    private func release(_ key: Key) {
        inFlight.withLock { counts in
            let count = counts[key, default: 0] - 1
            counts[key] = count > 0 ? count : nil
        }
    }

    /// How many requests `key` has under way.
    func count(_ key: Key) -> Int {
        inFlight.withLock { $0[key, default: 0] }
    }
}
