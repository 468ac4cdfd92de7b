import Foundation
import GRDB

/// Reading and writing the authenticated records of a store: header, key slots and the
/// failed-attempt count. Every read verifies the record's MAC under the device key.
enum StoreRecords {
    static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        encoder.dateEncodingStrategy = .secondsSince1970
        return encoder
    }()

    static let decoder: JSONDecoder = {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .secondsSince1970
        return decoder
    }()

    // MARK: Header

    /// The header as stored, not yet authenticated: enough to find the store ID and the
    /// device key, and to report the format.
    static func unverifiedHeader(_ db: Database) throws -> (header: StoreHeader, body: Data, mac: Data) {
        guard let row = try Row.fetchOne(db, sql: "SELECT body, mac FROM header WHERE id = 1") else {
            throw SecureStoreError.notAStore("the store has no header")
        }
        let body: Data = row["body"]
        let mac: Data = row["mac"]
        if let version = try? decoder.decode(FormatProbe.self, from: body).formatVersion,
            version > StoreFormat.version
        {
            throw SecureStoreError.unsupportedFormat(version)
        }
        guard let header = try? decoder.decode(StoreHeader.self, from: body) else {
            throw SecureStoreError.integrityFailure("the header cannot be read")
        }
        return (header, body, mac)
    }

    static func header(_ db: Database, secrets: DeviceSecrets) throws -> StoreHeader {
        let (header, body, mac) = try unverifiedHeader(db)
        guard secrets.verify(record: "header", body, mac: mac) else {
            throw SecureStoreError.integrityFailure("the header failed authentication")
        }
        return header
    }

    static func writeHeader(_ header: StoreHeader, _ db: Database, secrets: DeviceSecrets) throws {
        let body = try encoder.encode(header)
        try db.execute(
            sql: "INSERT OR REPLACE INTO header (id, body, mac) VALUES (1, ?, ?)",
            arguments: [body, secrets.mac(record: "header", body)]
        )
    }

    // MARK: Key slots

    static func slots(_ db: Database, secrets: DeviceSecrets) throws -> [KeySlot.Kind: KeySlot] {
        var slots: [KeySlot.Kind: KeySlot] = [:]
        for row in try Row.fetchAll(db, sql: "SELECT kind, body, mac FROM keySlot") {
            let kindName: String = row["kind"]
            let body: Data = row["body"]
            let mac: Data = row["mac"]
            guard let kind = KeySlot.Kind(rawValue: kindName),
                secrets.verify(record: "slot.\(kindName)", body, mac: mac),
                let slot = try? decoder.decode(KeySlot.self, from: body),
                slot.kind == kind
            else {
                throw SecureStoreError.integrityFailure("a key slot failed authentication")
            }
            slots[kind] = slot
        }
        return slots
    }

    /// The slots' kinds and derivation parameters, unauthenticated, for `info`.
    static func unverifiedSlots(_ db: Database) throws -> [KeySlot] {
        try Row.fetchAll(db, sql: "SELECT body FROM keySlot ORDER BY kind").compactMap {
            try? decoder.decode(KeySlot.self, from: $0["body"] as Data)
        }
    }

    static func writeSlot(_ slot: KeySlot, _ db: Database, secrets: DeviceSecrets) throws {
        let body = try encoder.encode(slot)
        try db.execute(
            sql: "INSERT OR REPLACE INTO keySlot (kind, body, mac) VALUES (?, ?, ?)",
            arguments: [slot.kind.rawValue, body, secrets.mac(record: "slot.\(slot.kind.rawValue)", body)]
        )
    }

    /// Adds a passcode's sealed fingerprint to the history, keeping the newest `kept`
    /// (at least one).
    static func addToPasscodeHistory(_ fingerprint: Data, keeping kept: Int, _ db: Database) throws {
        try db.execute(sql: "INSERT INTO passcodeHistory (sealed) VALUES (?)", arguments: [fingerprint])
        try db.execute(
            sql: """
                DELETE FROM passcodeHistory WHERE position NOT IN
                (SELECT position FROM passcodeHistory ORDER BY position DESC LIMIT ?)
                """,
            arguments: [max(1, kept)]
        )
    }

    static func deleteSlot(_ kind: KeySlot.Kind, _ db: Database) throws {
        try db.execute(sql: "DELETE FROM keySlot WHERE kind = ?", arguments: [kind.rawValue])
    }

    // MARK: Lockout

    static func unverifiedLockout(_ db: Database) throws -> LockoutRecord? {
        guard let row = try Row.fetchOne(db, sql: "SELECT failures, lastFailureAt FROM lockout WHERE id = 1")
        else { return nil }
        let time: Double? = row["lastFailureAt"]
        return LockoutRecord(failures: row["failures"], lastFailureAt: time.map(Date.init(timeIntervalSince1970:)))
    }

    static func lockout(_ db: Database, secrets: DeviceSecrets) throws -> LockoutRecord {
        guard let row = try Row.fetchOne(db, sql: "SELECT failures, lastFailureAt, mac FROM lockout WHERE id = 1")
        else {
            throw SecureStoreError.tampered("the failed-attempt record is missing")
        }
        let time: Double? = row["lastFailureAt"]
        let record = LockoutRecord(
            failures: row["failures"],
            lastFailureAt: time.map(Date.init(timeIntervalSince1970:))
        )
        let mac: Data = row["mac"]
        guard record.failures >= 0, secrets.verify(record: "lockout", record.macBody, mac: mac) else {
            throw SecureStoreError.tampered("the failed-attempt record failed authentication")
        }
        return record
    }

    static func writeLockout(_ record: LockoutRecord, _ db: Database, secrets: DeviceSecrets) throws {
        try db.execute(
            sql: "INSERT OR REPLACE INTO lockout (id, failures, lastFailureAt, mac) VALUES (1, ?, ?, ?)",
            arguments: [
                record.failures, record.lastFailureAt?.timeIntervalSince1970,
                secrets.mac(record: "lockout", record.macBody),
            ]
        )
    }

    // MARK: Entries

    /// Rows per multi-row INSERT: enough to spread the statement's cost, few enough to stay
    /// far below SQLite's limit on bound parameters.
    static let entriesPerStatement = 32

    /// Inserts or replaces sealed entries, several rows per prepared statement.
    static func insertEntries(_ entries: [SealedEntry], _ db: Database) throws {
        try insert(entries, into: "entry (tag, sealed)", after: nil, db)
    }

    /// Inserts or replaces sealed records of one collection, several rows per prepared
    /// statement.
    static func insertRecords(_ records: [SealedEntry], in collection: Data, _ db: Database) throws {
        try insert(records, into: "record (collection, tag, sealed)", after: collection, db)
    }

    /// Inserts or replaces `rows` (each row `leading`, when given, then its tag and box)
    /// into `table`, its columns named.
    private static func insert(_ rows: [SealedEntry], into table: String, after leading: Data?, _ db: Database) throws {
        let row = "(" + repeatElement("?", count: leading == nil ? 2 : 3).joined(separator: ", ") + ")"
        let perStatement = entriesPerStatement
        let multiRow = try db.cachedStatement(
            sql: "INSERT OR REPLACE INTO \(table) VALUES "
                + repeatElement(row, count: perStatement).joined(separator: ", ")
        )
        var start = rows.startIndex
        var arguments: [(any DatabaseValueConvertible)?] = []
        arguments.reserveCapacity(3 * perStatement)
        func append(_ entry: SealedEntry) {
            if let leading { arguments.append(leading) }
            arguments.append(entry.tag)
            arguments.append(entry.sealed)
        }
        while rows.endIndex - start >= perStatement {
            arguments.removeAll(keepingCapacity: true)
            for entry in rows[start..<(start + perStatement)] { append(entry) }
            try multiRow.execute(arguments: StatementArguments(arguments))
            start += perStatement
        }
        let single = try db.cachedStatement(sql: "INSERT OR REPLACE INTO \(table) VALUES \(row)")
        for entry in rows[start...] {
            arguments.removeAll(keepingCapacity: true)
            append(entry)
            try single.execute(arguments: StatementArguments(arguments))
        }
    }

    static func entryCount(_ db: Database) throws -> Int {
        try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM entry") ?? 0
    }
}

private struct FormatProbe: Decodable {
    var formatVersion: Int
}
