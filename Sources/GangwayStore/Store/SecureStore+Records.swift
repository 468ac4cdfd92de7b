import Foundation
import GRDB

/// Records: values kept in named collections, such as the rows of an app's data set.
///
/// A record is sealed as an entry is, under a tag of its collection and key together; its
/// collection is stored as a tag too, so a collection's records are listed, counted or
/// removed together without opening the store's other entries (``SecureStore/keys()``
/// never sees them), and a reader of the file learns how many records a collection holds
/// but neither its name nor theirs. A record moved to another collection, or another
/// key, fails to open.
extension SecureStore {
    /// The record `key` of `collection`, or `nil`.
    /// - Throws: ``SecureStoreError/integrityFailure`` if the stored record was altered,
    ///   moved, or damaged; ``SecureStoreError/invalidArgument`` for a name the store
    ///   cannot hold.
    public func record(_ key: String, in collection: String) throws(SecureStoreError) -> Data? {
        try checkOpen()
        if let problem = Self.problem(withRecord: key, in: collection) { throw .invalidArgument(problem) }
        let name = StoreKeys.recordName(key, in: collection)
        let tag = storeKeys.tag(forName: name)
        let sealed = try database.read { db in
            try Data.fetchOne(
                db.cachedStatement(sql: "SELECT sealed FROM record WHERE collection = ? AND tag = ?"),
                arguments: [storeKeys.collectionTag(collection), tag]
            )
        }
        guard let sealed else { return nil }
        let entry = try storeKeys.openEntry(sealed, tag: tag)
        guard entry.name == name else { throw .integrityFailure("a record does not match its key") }
        return entry.value
    }

    /// Every record of `collection`: its key and value, in no order. They are opened on
    /// every core.
    /// - Throws: ``SecureStoreError/integrityFailure`` if a record was altered, moved
    ///   from another collection, or damaged.
    public func records(in collection: String) throws(SecureStoreError) -> [(key: String, value: Data)] {
        try checkOpen()
        if let problem = Self.problem(withCollection: collection) { throw .invalidArgument(problem) }
        let rows = try database.read { db in
            try Row.fetchAll(
                db.cachedStatement(sql: "SELECT tag, sealed FROM record WHERE collection = ?"),
                arguments: [storeKeys.collectionTag(collection)]
            ).map { (tag: $0[0] as Data, sealed: $0[1] as Data) }
        }
        let prefix = StoreKeys.recordName("", in: collection)
        var records: [(key: String, value: Data)] = []
        records.reserveCapacity(rows.count)
        for (row, opened) in zip(rows, try storeKeys.open(rows)) {
            // The tag must be the name's own, and the name in this collection.
            guard opened.name.hasPrefix(prefix), storeKeys.tag(forName: opened.name) == row.tag else {
                throw .integrityFailure("a record does not match its key")
            }
            records.append((String(opened.name.utf8.dropFirst(prefix.utf8.count))!, opened.value))
        }
        return records
    }

    /// How many records `collection` holds.
    public func recordCount(in collection: String) throws(SecureStoreError) -> Int {
        try checkOpen()
        if let problem = Self.problem(withCollection: collection) { throw .invalidArgument(problem) }
        return try database.read { db in
            try Int.fetchOne(
                db.cachedStatement(sql: "SELECT COUNT(*) FROM record WHERE collection = ?"),
                arguments: [storeKeys.collectionTag(collection)]
            ) ?? 0
        }
    }

    /// Why `collection` cannot name a collection (it is empty, holds a NUL character, or
    /// is longer than 1,024 UTF-8 bytes); `nil` when it can.
    public static func problem(withCollection collection: String) -> String? {
        if collection.isEmpty { return "a collection name cannot be empty" }
        if collection.utf8.contains(0) { return "a collection name cannot hold a NUL character" }
        if collection.utf8.count > StoreKeys.maximumCollectionBytes { return "the collection name is too long" }
        return nil
    }

    /// Why `key` cannot name a record of `collection`; `nil` when it can.
    public static func problem(withRecord key: String, in collection: String) -> String? {
        if let problem = problem(withCollection: collection) { return problem }
        if key.isEmpty { return "a key name cannot be empty" }
        if StoreKeys.recordName(key, in: collection).utf8.count > StoreKeys.maximumNameBytes {
            return "the key name is too long"
        }
        return nil
    }
}

extension StoreKeys {
    /// The longest collection name, in UTF-8 bytes.
    static let maximumCollectionBytes = 1_024

    /// The name a record is sealed under: apart from every entry's that an app would give
    /// (it begins with a NUL character), and from every other collection's (a collection
    /// name holds none).
    static func recordName(_ key: String, in collection: String) -> String {
        "\u{0}record\u{0}\(collection)\u{0}\(key)"
    }

    /// The tag a collection's records are stored under.
    func collectionTag(_ collection: String) -> Data {
        tag(forName: "\u{0}collection\u{0}\(collection)")
    }
}
