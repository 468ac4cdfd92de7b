import Foundation
import Synchronization

/// Keeps the reads every device request makes (the app, the session, the device
/// registration, the user, the entity set a device reads, the app's entity schemas, the
/// destination a device reaches, a secret, the signing keys) in memory for a short time.
///
/// ``ServerStorage`` asks it for those reads only, and drops what a write through this
/// process changes at once. On PostgreSQL, the other processes sharing the database drop
/// it too when they hear the write's notice (``ServerStorage/makeNoticeListener()``),
/// and drop everything when their listener reconnects; what they never hear (SQLite,
/// whose file one process owns, or a notice lost with a process that died after its
/// commit) they see when the entry expires: with the default of one second, a token
/// revoked, a device locked or a policy changed on one process takes effect on the
/// others within a second.
///
/// A read that was under way when its kind was dropped answers, but is not kept: what it
/// read may be what the drop was for.
public final class ReadCache: Sendable {
    /// What is kept.
    enum Key: Hashable, Sendable {
        case app(String)
        case session(Data)
        case device(appID: String, username: String, deviceID: String)
        case user(String)
        case entitySet(appID: String, entitySet: String)
        case entitySchemas(appID: String)
        case destination(appID: String, name: String)
        /// Cached, so that a secret another process replaced (the admin token's hash,
        /// after `--new-admin-token`) is seen here within the lifetime.
        case secret(String)
        /// A purpose's signing keys: every token a process signs reads them.
        case signingKeys(String)

        var kind: Kind {
            switch self {
            case .app: .app
            case .session: .session
            case .device: .device
            case .user: .user
            case .entitySet: .entitySet
            case .entitySchemas: .entitySchemas
            case .destination: .destination
            case .secret: .secret
            case .signingKeys: .signingKeys
            }
        }
    }

    enum Kind: String, Hashable, Sendable, CaseIterable {
        case app, session, device, user, entitySet, entitySchemas, destination, secret, signingKeys
    }

    /// What a write makes stale: one entry, or every entry of a kind.
    enum Drop: Hashable, Sendable {
        case key(Key)
        case every(Kind)
    }

    private struct Entry: Sendable {
        var value: any Sendable
        var expires: Duration
    }

    private let lifetime: Duration
    private let capacity: Int
    /// Time since the cache was made, on the injected monotonic clock.
    private let elapsed: @Sendable () -> Duration
    /// How often reads of a kind were answered from the cache, and how often not.
    public struct Tally: Sendable, Hashable {
        public var hits = 0
        public var misses = 0

        public init() {}
    }

    private struct State {
        var entries: [Kind: [Key: Entry]] = [:]
        var tallies: [Kind: Tally] = [:]
        /// How many times each kind was dropped: a load that began before a drop of its
        /// kind is not kept.
        var drops: [Kind: UInt64] = [:]
    }

    private let state = Mutex(State())

    /// - Parameters:
    ///   - capacity: Entries of each kind kept before that kind starts over; bounds
    ///     memory under load.
    ///   - clock: The monotonic clock entries expire by.
    public init(
        lifetime: Duration = .seconds(1),
        capacity: Int = 10_000,
        clock: some Clock<Duration> = ContinuousClock()
    ) {
        self.lifetime = lifetime
        self.capacity = capacity
        let origin = clock.now
        elapsed = { origin.duration(to: clock.now) }
    }

    /// The value kept under `key` (itself possibly `nil`: "no such row"), or what `load`
    /// reads, kept for the lifetime.
    func value<Value: Sendable>(
        _ key: Key,
        _ load: () async throws(StorageError) -> Value
    ) async throws(StorageError) -> Value {
        let now = elapsed()
        let (kept, drops) = state.withLock { state -> (Value?, UInt64) in
            let drops = state.drops[key.kind, default: 0]
            if let kept = state.entries[key.kind]?[key], kept.expires > now, let value = kept.value as? Value {
                state.tallies[key.kind, default: Tally()].hits += 1
                return (value, drops)
            }
            state.tallies[key.kind, default: Tally()].misses += 1
            return (nil, drops)
        }
        if let kept { return kept }
        let value = try await load()
        let expires = elapsed() + lifetime
        state.withLock { state in
            guard state.drops[key.kind, default: 0] == drops else { return }
            if state.entries[key.kind, default: [:]].count >= capacity {
                state.entries[key.kind]?.removeAll(keepingCapacity: true)
            }
            state.entries[key.kind, default: [:]][key] = Entry(value: value, expires: expires)
        }
        return value
    }

    /// The hits and misses of each kind since the cache was made, by the kind's name
    /// (`app`, `session`, `device`, …).
    public var tallies: [String: Tally] {
        state.withLock { state in Dictionary(uniqueKeysWithValues: state.tallies.map { ($0.key.rawValue, $0.value) }) }
    }

    /// Forgets `key`.
    func drop(_ key: Key) {
        drop([.key(key)])
    }

    /// Forgets every entry of a kind.
    func drop(every kind: Kind) {
        drop([.every(kind)])
    }

    /// Forgets what each of `drops` names.
    func drop(_ drops: [Drop]) {
        state.withLock { state in
            for drop in drops {
                switch drop {
                case .key(let key): state.entries[key.kind]?.removeValue(forKey: key)
                case .every(let kind): state.entries.removeValue(forKey: kind)
                }
                let kind = drop.kind
                state.drops[kind, default: 0] &+= 1
            }
        }
    }

    /// Forgets everything: what changed while this process could not hear the others is
    /// unknown.
    func dropAll() {
        drop(Kind.allCases.map(Drop.every))
    }
}

extension ReadCache.Drop {
    var kind: ReadCache.Kind {
        switch self {
        case .key(let key): key.kind
        case .every(let kind): kind
        }
    }
}
