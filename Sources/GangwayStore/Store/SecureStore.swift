import Crypto
import Foundation
import GRDB
import GangwayPolicy
import Logging
import Synchronization

/// An unlocked secure store: an encrypted key-value store for one user or one purpose.
///
/// Values are sealed with AES-GCM under a key derived from the store's random data key;
/// key names are stored as HMAC tags with an encrypted copy for listing. Nothing readable
/// is left in the database but counts and sizes.
///
/// The type is thread-safe: any task may read and write. ``close()`` drops the keys'
/// last references held by the store and closes the database; later calls throw
/// ``SecureStoreError/closed``.
public final class SecureStore: Sendable {
    /// The store's ID.
    public let id: UUID
    /// Where the store lives.
    public let location: SecureStoreLocation

    let database: StoreDatabase
    let storeKeys: StoreKeys
    let secrets: DeviceSecrets
    let state: Mutex<State>

    struct State {
        var header: StoreHeader
        var isClosed = false
        /// The passcode slot the store was unlocked with, or last wrote (`.some(nil)`: none),
        /// so that a passcode change another process made meanwhile is noticed; `nil` when
        /// the store was opened another way (then a change is not compared).
        var passcodeSlot: KeySlot?? = nil
    }

    init(
        location: SecureStoreLocation,
        database: StoreDatabase,
        keys: StoreKeys,
        secrets: DeviceSecrets,
        header: StoreHeader
    ) {
        self.id = header.storeID
        self.location = location
        self.database = database
        self.storeKeys = keys
        self.secrets = secrets
        self.state = Mutex(State(header: header))
    }

    var environment: SecureStoreEnvironment { location.environment }

    // MARK: State

    /// The passcode policy recorded in the store (`nil` in no-passcode mode).
    public var policy: PasscodePolicy? { state.withLock { $0.header.policy } }
    /// Whether a passcode protects the store.
    public var isPasscodeProtected: Bool { state.withLock { $0.header.protection == .passcode } }
    /// Whether biometric unlock is on.
    public var isBiometricUnlockEnabled: Bool { state.withLock { $0.header.biometricsEnabled } }

    /// Whether the passcode is older than the policy's expiry allows.
    public var isPasscodeExpired: Bool {
        let header = state.withLock { $0.header }
        guard header.protection == .passcode, let days = header.policy?.expiresAfterDays,
            let setAt = header.passcodeSetAt
        else { return false }
        return environment.now().timeIntervalSince(setAt) >= Double(days) * 86_400
    }

    /// Closes the store. Closing twice is harmless.
    public func close() {
        let wasOpen = state.withLock { state in
            defer { state.isClosed = true }
            return !state.isClosed
        }
        guard wasOpen else { return }
        try? database.pool.close()
        location.logger.info("store closed", metadata: ["store": "\(id)"])
    }

    func checkOpen() throws(SecureStoreError) {
        if state.withLock({ $0.isClosed }) { throw .closed }
    }

    var header: StoreHeader { state.withLock { $0.header } }

    // MARK: Entries

    /// The value stored under `key`, or `nil`.
    /// - Throws: ``SecureStoreError/integrityFailure`` if the stored value was altered,
    ///   moved from another key, or damaged.
    public func data(forKey key: String) throws(SecureStoreError) -> Data? {
        try checkOpen()
        let tag = storeKeys.tag(forName: key)
        let sealed = try database.read { db in
            try Data.fetchOne(db.cachedStatement(sql: "SELECT sealed FROM entry WHERE tag = ?"), arguments: [tag])
        }
        guard let sealed else { return nil }
        let entry = try storeKeys.openEntry(sealed, tag: tag)
        guard entry.name == key else { throw .integrityFailure("an entry does not match its key") }
        return entry.value
    }

    /// The UTF-8 string stored under `key`, or `nil`.
    public func string(forKey key: String) throws(SecureStoreError) -> String? {
        guard let data = try data(forKey: key) else { return nil }
        guard let string = String(data: data, encoding: .utf8) else {
            throw .invalidArgument("the value is not UTF-8 text")
        }
        return string
    }

    /// Decodes the JSON value stored under `key` with ``encode(_:forKey:)``.
    public func decode<Value: Decodable>(_ type: Value.Type, forKey key: String) throws(SecureStoreError) -> Value? {
        guard let data = try data(forKey: key) else { return nil }
        do {
            return try JSONDecoder().decode(type, from: data)
        } catch {
            throw .invalidArgument("the value cannot be decoded as \(type)")
        }
    }

    /// Stores `value` under `key`, replacing any previous value.
    public func put(_ value: Data, forKey key: String) throws(SecureStoreError) {
        try write { batch throws(SecureStoreError) in try batch.put(value, forKey: key) }
    }

    /// Stores a string as UTF-8.
    public func put(_ value: String, forKey key: String) throws(SecureStoreError) {
        try put(Data(value.utf8), forKey: key)
    }

    /// Stores a value encoded as JSON.
    public func encode<Value: Encodable>(_ value: Value, forKey key: String) throws(SecureStoreError) {
        let data: Data
        do {
            data = try JSONEncoder().encode(value)
        } catch {
            throw .invalidArgument("the value cannot be encoded")
        }
        try put(data, forKey: key)
    }

    /// Removes the value under `key`. Returns whether there was one.
    @discardableResult
    public func removeValue(forKey key: String) throws(SecureStoreError) -> Bool {
        var removed = false
        try write { batch throws(SecureStoreError) in removed = try batch.removeValue(forKey: key) }
        return removed
    }

    /// Removes every entry, and every record of every collection.
    public func removeAll() throws(SecureStoreError) {
        try checkOpen()
        try database.write { try $0.execute(sql: "DELETE FROM entry; DELETE FROM record") }
    }

    /// The names of the stored keys, sorted.
    public func keys() throws(SecureStoreError) -> [String] {
        try checkOpen()
        let rows = try database.read { db in
            try Row.fetchAll(db, sql: "SELECT tag, sealed FROM entry").map { ($0["tag"] as Data, $0["sealed"] as Data) }
        }
        var names: [String] = []
        names.reserveCapacity(rows.count)
        for (tag, sealed) in rows {
            let name = try storeKeys.openEntry(sealed, tag: tag).name
            guard storeKeys.tag(forName: name) == tag else {
                throw .integrityFailure("an entry does not match its key")
            }
            names.append(name)
        }
        return names.sorted()
    }

    /// How many entries the store holds.
    public func count() throws(SecureStoreError) -> Int {
        try checkOpen()
        return try database.read { try StoreRecords.entryCount($0) }
    }

    /// Runs several writes in one transaction: all of them happen or none does.
    ///
    /// Prefer one batch to many single writes: each write is a transaction synced to disk,
    /// while a batch syncs once and seals its values on every core.
    public func write(_ body: (inout SecureStoreBatch) throws(SecureStoreError) -> Void) throws(SecureStoreError) {
        try checkOpen()
        let keys = self.storeKeys
        try database.write { db in
            var batch = SecureStoreBatch(db: db, keys: keys)
            try body(&batch)
            try batch.flush()
        }
    }
}
