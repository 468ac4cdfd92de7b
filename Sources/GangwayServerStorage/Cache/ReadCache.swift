import Foundation
import Synchronization

/// Keeps the reads every device request makes (the app, the session, the device
/// registration, the user, the entity set a device reads, the app's entity schemas, the
/// destination a device reaches, a secret) in memory for a short time.
///
/// ``ServerStorage`` asks it for those reads only, and drops what a write through this
/// process changes at once. A write by another process sharing the database is seen when
/// the entry expires: with the default of one second, a token revoked, a device locked or
/// a policy changed on one process takes effect on the others within a second.
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
            }
        }
    }

    enum Kind: Hashable, Sendable {
        case app, session, device, user, entitySet, entitySchemas, destination, secret
    }

    private struct Entry: Sendable {
        var value: any Sendable
        var expires: Duration
    }

    private let lifetime: Duration
    private let capacity: Int
    /// Time since the cache was made, on the injected monotonic clock.
    private let elapsed: @Sendable () -> Duration
    private let entries = Mutex<[Kind: [Key: Entry]]>([:])

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
        if let entry = entries.withLock({ $0[key.kind]?[key] }), entry.expires > now,
            let value = entry.value as? Value
        {
            return value
        }
        let value = try await load()
        let expires = elapsed() + lifetime
        entries.withLock { entries in
            if entries[key.kind, default: [:]].count >= capacity { entries[key.kind]?.removeAll(keepingCapacity: true) }
            entries[key.kind, default: [:]][key] = Entry(value: value, expires: expires)
        }
        return value
    }

    /// Forgets `key`.
    func drop(_ key: Key) {
        _ = entries.withLock { $0[key.kind]?.removeValue(forKey: key) }
    }

    /// Forgets every entry of a kind.
    func drop(every kind: Kind) {
        _ = entries.withLock { $0.removeValue(forKey: kind) }
    }
}
