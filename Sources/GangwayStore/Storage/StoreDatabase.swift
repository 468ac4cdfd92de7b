import Foundation
import GRDB
import GangwaySystem

/// The SQLite database of one store, through GRDB, in WAL mode.
///
/// Every connection runs with `synchronous = FULL`, so a commit (above all the
/// failed-attempt count written before a key derivation) is on disk when it returns, and
/// `secure_delete = ON`, so destroyed key slots are overwritten rather than left in free
/// pages. A connection waits up to ten seconds for another process's write.
struct StoreDatabase: Sendable {
    let pool: DatabasePool

    static func databaseURL(in directory: URL) -> URL {
        directory.appendingPathComponent(StoreFormat.databaseFileName)
    }

    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            try db.execute(
                sql: """
                    CREATE TABLE header (
                        id INTEGER PRIMARY KEY CHECK (id = 1),
                        body BLOB NOT NULL,
                        mac BLOB NOT NULL
                    );
                    CREATE TABLE keySlot (
                        kind TEXT PRIMARY KEY NOT NULL,
                        body BLOB NOT NULL,
                        mac BLOB NOT NULL
                    );
                    CREATE TABLE lockout (
                        id INTEGER PRIMARY KEY CHECK (id = 1),
                        failures INTEGER NOT NULL,
                        lastFailureAt DOUBLE,
                        mac BLOB NOT NULL
                    );
                    CREATE TABLE entry (
                        tag BLOB PRIMARY KEY NOT NULL,
                        sealed BLOB NOT NULL
                    ) WITHOUT ROWID;
                    CREATE TABLE passcodeHistory (
                        position INTEGER PRIMARY KEY,
                        sealed BLOB NOT NULL
                    );
                    """
            )
        }
        // Records: values in named collections (``SecureStore/records(in:)``), listed
        // without opening the store's other entries. A store of the first version gains
        // the table when it opens; one that has it cannot be opened by that version.
        migrator.registerMigration("v2-records") { db in
            try db.execute(
                sql: """
                    CREATE TABLE record (
                        collection BLOB NOT NULL,
                        tag BLOB NOT NULL,
                        sealed BLOB NOT NULL,
                        PRIMARY KEY (collection, tag)
                    ) WITHOUT ROWID;
                    """
            )
        }
        return migrator
    }

    /// Creates the directory and a new, empty database in it, owner-only.
    static func create(in directory: URL) throws(SecureStoreError) -> StoreDatabase {
        do {
            try PrivateFiles.makeDirectory(directory)
        } catch {
            throw .ioFailure("cannot create the store directory: \(error)")
        }
        let database = try connect(databaseURL(in: directory))
        do {
            try migrator.migrate(database.pool)
        } catch {
            throw map(error)
        }
        return database
    }

    /// Opens an existing store's database, refusing anything that is not one.
    static func open(in directory: URL) throws(SecureStoreError) -> StoreDatabase {
        let url = databaseURL(in: directory)
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory.path, isDirectory: &isDirectory) else {
            throw .storeNotFound
        }
        guard isDirectory.boolValue else { throw .notAStore("the path is a file, not a store directory") }
        // A directory another account could write to may hold a store it put back (an
        // older copy, with fewer wrong passcodes counted): refused, as `store init` refuses it.
        do {
            try PrivateFiles.checkDirectory(directory)
        } catch {
            throw .ioFailure("the store directory cannot be used: \(error.reason)")
        }
        guard FileManager.default.fileExists(atPath: url.path) else {
            throw .notAStore("the directory has no \(StoreFormat.databaseFileName)")
        }
        // Opened, an empty file would become a database: what is not a store stays as it is.
        let size = (try? FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int) ?? 0
        guard size > 0 else { throw .notAStore("its \(StoreFormat.databaseFileName) is empty") }
        let database = try connect(url)
        do {
            let (isStore, superseded) = try database.pool.read { db in
                (
                    try db.tableExists("header") && db.tableExists("keySlot"),
                    try migrator.hasBeenSuperseded(db)
                )
            }
            guard isStore else { throw SecureStoreError.notAStore("the database is not a Gangway store") }
            guard !superseded else { throw SecureStoreError.unsupportedFormat(StoreFormat.version + 1) }
            try migrator.migrate(database.pool)
        } catch {
            throw map(error)
        }
        return database
    }

    /// Opens the database, its file (and so SQLite's -wal and -shm, which take its mode)
    /// owner-only.
    private static func connect(_ url: URL) throws(SecureStoreError) -> StoreDatabase {
        do {
            try PrivateFiles.prepareDatabase(url)
        } catch {
            throw .ioFailure("cannot make the store's database owner-only")
        }
        var configuration = Configuration()
        configuration.label = "gangway.store"
        // Another process may hold the store for a moment (an unlock counting its attempt
        // while `gangway store info` opens it): wait for it rather than fail.
        configuration.busyMode = .timeout(10)
        configuration.prepareDatabase { db in
            try db.execute(sql: "PRAGMA synchronous = FULL; PRAGMA secure_delete = ON;")
        }
        do {
            return StoreDatabase(pool: try DatabasePool(path: url.path, configuration: configuration))
        } catch {
            throw map(error)
        }
    }

    /// Turns database errors into store errors that name the problem, not the data.
    static func map(_ error: any Error) -> SecureStoreError {
        if let error = error as? SecureStoreError { return error }
        if let error = error as? DatabaseError {
            switch error.resultCode {
            case .SQLITE_NOTADB, .SQLITE_CORRUPT, .SQLITE_FORMAT:
                return .integrityFailure("the database file is damaged")
            case .SQLITE_CANTOPEN, .SQLITE_READONLY, .SQLITE_PERM, .SQLITE_IOERR, .SQLITE_FULL:
                return .ioFailure("the database file cannot be used (\(error.resultCode))")
            default:
                return .ioFailure("database error \(error.resultCode)")
            }
        }
        return .ioFailure("unexpected failure")
    }

    /// Runs a read, mapping errors.
    func read<T>(_ body: (Database) throws -> T) throws(SecureStoreError) -> T {
        do { return try pool.read(body) } catch { throw Self.map(error) }
    }

    /// Runs a write transaction, mapping errors.
    func write<T>(_ body: (Database) throws -> T) throws(SecureStoreError) -> T {
        do { return try pool.write(body) } catch { throw Self.map(error) }
    }

    /// Runs a write transaction committed without waiting for the disk (`synchronous =
    /// NORMAL` for it: in the WAL, it survives the process ending at once, not a power
    /// loss). For a write whose loss would cost nothing but a retry's worth of caution
    /// (clearing the failed-attempt count after a right passcode); never for one that
    /// must hold before anything else happens.
    func writeWithoutSync<T>(_ body: (Database) throws -> T) throws(SecureStoreError) -> T {
        do {
            return try pool.writeWithoutTransaction { db in
                try db.execute(sql: "PRAGMA synchronous = NORMAL")
                defer { try? db.execute(sql: "PRAGMA synchronous = FULL") }
                var result: T?
                try db.inTransaction {
                    result = try body(db)
                    return .commit
                }
                return result!
            }
        } catch {
            throw Self.map(error)
        }
    }
}
