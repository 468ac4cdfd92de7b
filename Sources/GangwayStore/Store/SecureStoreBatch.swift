import Foundation
import GRDB

/// Writes made inside ``SecureStore/write(_:)``, committed together.
///
/// Values wait in the batch and are sealed when it flushes (every 131,072 values or 64 MiB,
/// and when the body returns): the sealing then runs on every core, and the rows reach
/// SQLite in tag order, several to a statement, which keeps its B-tree work close to an
/// append. A first sync's hundred thousand records are one such pass: in passes of 16,384
/// each went over the whole tree again, and the inserts took twice as long. Nothing is
/// visible to other readers before the whole batch commits.
public struct SecureStoreBatch {
    let db: Database
    let keys: StoreKeys
    private var pending: [String: Data] = [:]
    /// Records waiting, by their sealed name: their collection's tag and their value.
    private var pendingRecords: [String: (collection: Data, value: Data)] = [:]
    private var pendingBytes = 0
    /// The tags of the collections this batch named, each computed once.
    private var collectionTags: [String: Data] = [:]

    /// Values held before the batch seals and writes what it has.
    static let flushCount = 131_072
    /// Bytes of values held before the batch seals and writes what it has.
    static let flushBytes = 64 << 20

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
        try flushIfFull()
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

    // MARK: Records

    /// Stores `value` as the record `key` of `collection` (see
    /// ``SecureStore/records(in:)``).
    /// - Throws: ``SecureStoreError/invalidArgument`` for a collection or key the store
    ///   cannot name (``SecureStore/problem(withRecord:in:)``).
    public mutating func putRecord(_ value: Data, forKey key: String, in collection: String) throws(SecureStoreError) {
        if let problem = SecureStore.problem(withRecord: key, in: collection) { throw .invalidArgument(problem) }
        let name = StoreKeys.recordName(key, in: collection)
        pendingBytes += value.count
        let replaced = pendingRecords.updateValue((collectionTag(collection), value), forKey: name)
        pendingBytes -= replaced?.value.count ?? 0
        try flushIfFull()
    }

    /// Removes the record `key` of `collection`; returns whether there was one.
    @discardableResult
    public mutating func removeRecord(forKey key: String, in collection: String) throws(SecureStoreError) -> Bool {
        if let problem = SecureStore.problem(withRecord: key, in: collection) { throw .invalidArgument(problem) }
        let name = StoreKeys.recordName(key, in: collection)
        let removed = pendingRecords.removeValue(forKey: name)
        pendingBytes -= removed?.value.count ?? 0
        do {
            try db.cachedStatement(sql: "DELETE FROM record WHERE collection = ? AND tag = ?")
                .execute(arguments: [collectionTag(collection), keys.tag(forName: name)])
            return removed != nil || db.changesCount > 0
        } catch {
            throw StoreDatabase.map(error)
        }
    }

    /// Removes every record of `collection`, those put earlier in this batch too.
    public mutating func removeRecords(in collection: String) throws(SecureStoreError) {
        if let problem = SecureStore.problem(withCollection: collection) { throw .invalidArgument(problem) }
        let tag = collectionTag(collection)
        pendingRecords = pendingRecords.filter { $0.value.collection != tag }
        pendingBytes =
            pending.values.reduce(0) { $0 + $1.count } + pendingRecords.values.reduce(0) { $0 + $1.value.count }
        do {
            try db.execute(sql: "DELETE FROM record WHERE collection = ?", arguments: [tag])
        } catch {
            throw StoreDatabase.map(error)
        }
    }

    /// The tag `collection`'s records are stored under.
    private mutating func collectionTag(_ collection: String) -> Data {
        if let tag = collectionTags[collection] { return tag }
        let tag = keys.collectionTag(collection)
        collectionTags[collection] = tag
        return tag
    }

    // MARK: Flushing

    private mutating func flushIfFull() throws(SecureStoreError) {
        if pending.count + pendingRecords.count >= Self.flushCount || pendingBytes >= Self.flushBytes { try flush() }
    }

    /// Seals and writes the values and records put so far.
    mutating func flush() throws(SecureStoreError) {
        if !pending.isEmpty {
            let entries = try keys.sealEntries(pending)
            pending.removeAll(keepingCapacity: true)
            do {
                try StoreRecords.insertEntries(entries, db)
            } catch {
                throw StoreDatabase.map(error)
            }
        }
        if !pendingRecords.isEmpty {
            let items = Array(pendingRecords)
            let sealed = try keys.seal(items.map { (name: $0.key, value: $0.value.value) })
            pendingRecords.removeAll(keepingCapacity: true)
            // Collection by collection, each in tag order: close to an append, as entries.
            var collections: [Data: [SealedEntry]] = [:]
            for (item, entry) in zip(items, sealed) { collections[item.value.collection, default: []].append(entry) }
            for (collection, entries) in collections {
                do {
                    try StoreRecords.insertRecords(entries.sorted { $0.order < $1.order }, in: collection, db)
                } catch {
                    throw StoreDatabase.map(error)
                }
            }
        }
        pendingBytes = 0
    }
}
