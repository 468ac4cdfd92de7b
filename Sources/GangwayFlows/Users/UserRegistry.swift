import Crypto
import Foundation
import GangwayStore
import GangwaySystem
import Synchronization

/// The users onboarded on a device, kept on disk: who they are (display name and a keyed
/// hash of the server user ID), in registration order, and which one is selected.
///
/// The registry lives in a secure store of its own in no-passcode mode: it is encrypted
/// with a device key and tamper-evident like every store, yet readable before anyone
/// signs in, which the user picker needs. The server user ID is stored only for a user
/// whose display name another user here shares (the picker shows it to tell them
/// apart); otherwise a keyed hash under a random key that never leaves the registry lets
/// it recognise a returning user without keeping a list of who works here.
public final class UserRegistry: Sendable {
    private struct Snapshot: Codable {
        var users: [RegisteredUser] = []
        var selected: UUID?
    }

    private static let snapshotKey = "gangway.registry.users"
    private static let hashKeyName = "gangway.registry.hashKey"

    /// Where the registry's store lives.
    public let location: SecureStoreLocation
    private let store = Mutex<SecureStore?>(nil)

    /// A registry in its own store at `location`, created on first use.
    public init(location: SecureStoreLocation) {
        self.location = location
    }

    /// The registry of the stores under `root`, in its `registry` subdirectory (stores
    /// are named by UUID, so the two never mix).
    public convenience init(root: SecureStoreRoot) {
        self.init(
            location: SecureStoreLocation(
                directory: root.directory.appendingPathComponent("registry"),
                environment: root.environment
            )
        )
    }

    // MARK: Reading

    /// The users, in registration order.
    public func users() throws -> [RegisteredUser] { try read().users }

    /// The user with onboarding ID `id`, if registered.
    public func user(_ id: UUID) throws -> RegisteredUser? { try read().users.first { $0.id == id } }

    /// The selected user: the one whose session opened last.
    public func selectedUserID() throws -> UUID? { try read().selected }

    /// The registered user the server user `serverUserID` was onboarded as, if any.
    public func userID(forServerUser serverUserID: String) throws -> UUID? {
        let hash = try keyedHash(serverUserID)
        return try read().users.first { $0.serverUserHash == hash }?.id
    }

    /// Whether `serverUserID` is the server user `id` was onboarded as; `nil` when the
    /// registration does not say.
    public func isServerUser(_ serverUserID: String, registeredAs id: UUID) throws -> Bool? {
        guard let user = try user(id) else { throw UserError.unknownUser(id) }
        guard let recorded = user.serverUserHash else { return nil }
        return recorded == (try keyedHash(serverUserID))
    }

    // MARK: Changing

    /// Registers a user who finished onboarding and selects them.
    ///
    /// - Throws: ``UserError/userAlreadyExists`` when the server user is registered as
    ///   another onboarding ID.
    public func register(_ id: UUID, displayName: String, serverUserID: String?, now: Date = WallClock.now()) throws {
        let hash = try serverUserID.map(keyedHash)
        try update { snapshot in
            if let hash, let existing = snapshot.users.first(where: { $0.serverUserHash == hash && $0.id != id }) {
                throw UserError.userAlreadyExists(existing.id)
            }
            snapshot.users.removeAll { $0.id == id }
            // The user name is kept only when another user here shares the display name:
            // then the picker needs it to tell them apart.
            let shared = snapshot.users.contains { $0.displayName.lowercased() == displayName.lowercased() }
            snapshot.users.append(
                RegisteredUser(
                    id: id,
                    displayName: displayName,
                    serverUserHash: hash,
                    userName: shared ? serverUserID : nil,
                    registeredAt: now,
                    isPrimary: !snapshot.users.contains { $0.isPrimary }
                )
            )
            snapshot.selected = id
        }
    }

    /// Makes `id` the selected user.
    public func select(_ id: UUID) throws {
        try update { snapshot in
            guard snapshot.users.contains(where: { $0.id == id }) else { throw UserError.unknownUser(id) }
            snapshot.selected = id
        }
    }

    /// Removes `id`; removing a user who is not registered is not an error.
    public func remove(_ id: UUID) throws {
        try update { snapshot in
            snapshot.users.removeAll { $0.id == id }
            if snapshot.selected == id { snapshot.selected = nil }
        }
    }

    /// Closes the registry's store; the next call opens it again.
    public func close() {
        store.withLock { store in
            store?.close()
            store = nil
        }
    }

    // MARK: Internals

    private func read() throws -> Snapshot {
        try withStore { store in try store.decode(Snapshot.self, forKey: Self.snapshotKey) ?? Snapshot() }
    }

    private func update(_ change: (inout Snapshot) throws -> Void) throws {
        try withStore { store in
            var snapshot = try store.decode(Snapshot.self, forKey: Self.snapshotKey) ?? Snapshot()
            try change(&snapshot)
            try store.encode(snapshot, forKey: Self.snapshotKey)
        }
    }

    private func keyedHash(_ serverUserID: String) throws -> String {
        let key = try withStore { store in
            if let key = try store.data(forKey: Self.hashKeyName) { return SymmetricKey(data: key) }
            // No key yet means no hash was ever made with one: start one now.
            let key = SymmetricKey(size: .bits256)
            try store.put(key.withUnsafeBytes { Data($0) }, forKey: Self.hashKeyName)
            return key
        }
        let mac = HMAC<SHA256>.authenticationCode(for: Data(serverUserID.utf8), using: key)
        return Data(mac).map { String(format: "%02x", $0) }.joined()
    }

    /// Runs `body` on the open store, opening or creating it first; the lock also makes
    /// read-modify-write updates atomic within the process.
    private func withStore<T>(_ body: (SecureStore) throws -> T) throws -> T {
        try store.withLock { store in
            if let store { return try body(store) }
            let opened =
                location.exists ? try location.unlockWithoutPasscode() : try location.create(protection: .noPasscode)
            store = opened
            return try body(opened)
        }
    }
}
