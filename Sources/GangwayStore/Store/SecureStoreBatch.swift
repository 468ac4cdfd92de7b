import Foundation
import GRDB

/// Writes made inside ``SecureStore/write(_:)``, committed together.
///
/// Values wait in the batch and are sealed when it flushes (every 16,384 values or 16 MiB,
/// and when the body returns): the sealing then runs on every core, and the rows reach
/// SQLite in tag order, several to a statement, which keeps its B-tree work close to an
/// append. Nothing is visible to other readers before the whole batch commits.
public struct SecureStoreBatch {
    let db: Database
    let keys: StoreKeys
    private var pending: [String: Data] = [:]
    private var pendingBytes = 0

    /// Values held before the batch seals and writes what it has.
    static let flushCount = 16_384
    /// Bytes of values held before the batch seals and writes what it has.
    static let flushBytes = 16 << 20

    init(db: Database, keys: StoreKeys) {
        self.db = db
        self.keys = keys
    }

    /// Stores `value` under `key`.
    /// - Throws: ``SecureStoreError/invalidArgument`` for an empty key or one longer than
    ///   65,535 UTF-8 bytes.
    public mutating func put(_ value: Data, forKey key: String) throws(SecureStoreError) {
        if let problem = SecureStore.problem(withKey: key) { throw .invalidArgument(problem) }
        pendingBytes += value.count
        if let replaced = pending.updateValue(value, forKey: key) { pendingBytes -= replaced.count }
        if pending.count >= Self.flushCount || pendingBytes >= Self.flushBytes { try flush() }
    }

    /// Stores a string as UTF-8.
    public mutating func put(_ value: String, forKey key: String) throws(SecureStoreError) {
        try put(Data(value.utf8), forKey: key)
    }

    /// Removes the value under `key`; returns whether there was one.
    @discardableResult
    public mutating func removeValue(forKey key: String) throws(SecureStoreError) -> Bool {
        let removed = pending.removeValue(forKey: key)
        pendingBytes -= removed?.count ?? 0
        do {
            try db.cachedStatement(sql: "DELETE FROM entry WHERE tag = ?").execute(arguments: [keys.tag(forName: key)])
            return removed != nil || db.changesCount > 0
        } catch {
            throw StoreDatabase.map(error)
        }
    }

    /// Seals and writes the values put so far.
    mutating func flush() throws(SecureStoreError) {
        guard !pending.isEmpty else { return }
        let entries = try keys.sealEntries(pending)
        pending.removeAll(keepingCapacity: true)
        pendingBytes = 0
        do {
            try StoreRecords.insertEntries(entries, db)
        } catch {
            throw StoreDatabase.map(error)
        }
    }
}
