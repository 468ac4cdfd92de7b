import Foundation
import GRDB

extension SQLiteDriver {
    /// Writes a consistent copy of the database at `database` into `file`, which must be
    /// empty (made by the caller, with the mode it wants) or absent, with `VACUUM INTO`:
    /// one read of one snapshot of the database, so the server's writes, in this process
    /// or another, go on while it runs and none of them is half in the copy. A write
    /// acknowledged before the copy began is in it.
    ///
    /// It blocks until the copy is done (seconds for a gigabyte): call it on a thread of
    /// its own, never a cooperative one.
    ///
    /// - Parameter readOnly: Open `database` read-only (a backup, which is in no mode of
    ///   its own to keep); a server's database is opened as its server opens it.
    /// - Throws: ``StorageError/Code/unavailable`` when the database cannot be read or
    ///   the copy cannot be written.
    public static func copy(_ database: URL, into file: URL, readOnly: Bool = false) throws(StorageError) {
        do {
            var configuration = Configuration()
            // A long write of the server's may hold the file for a moment when this opens
            // it; the copy itself waits for no one (WAL readers never do).
            configuration.busyMode = .timeout(30)
            configuration.readonly = readOnly
            let queue = try DatabaseQueue(path: database.path, configuration: configuration)
            try queue.writeWithoutTransaction { db in
                try db.execute(sql: "VACUUM INTO ?", arguments: [file.path])
            }
            try queue.close()
        } catch {
            throw StorageError(.unavailable, "the database was not copied (\(Self.describeCopy(error)))")
        }
    }

    /// What a restore asks of a backup before it uses it.
    public struct BackupContents: Sendable, Hashable {
        /// The names of the migrations it has run.
        public var migrations: [String]
        /// The value of the secret asked for, if it holds one.
        public var secret: Data?
    }

    /// The migrations the SQLite database at `file` has run and the value of one of its
    /// secrets (`secretName`), once its pages pass SQLite's `quick_check`: what a restore
    /// compares with the migrations and the key it knows. Opens it read-only, and writes
    /// nothing.
    ///
    /// - Throws: ``StorageError/Code/corrupt`` when it is not a SQLite database, fails
    ///   the check, or holds no record of migrations (it is not a Gangway server's).
    public static func inspect(_ file: URL, secret secretName: String) async throws(StorageError) -> BackupContents {
        let database: DatabaseQueue
        do {
            var configuration = Configuration()
            configuration.readonly = true
            database = try DatabaseQueue(path: file.path, configuration: configuration)
        } catch {
            throw StorageError(.corrupt, "it cannot be opened as a SQLite database")
        }
        defer { try? database.close() }
        let result: Result<BackupContents, StorageError>
        do {
            result = try await database.read { db -> Result<BackupContents, StorageError> in
                let check = try String.fetchAll(db, sql: "PRAGMA quick_check")
                guard check == ["ok"] else {
                    return .failure(StorageError(.corrupt, "SQLite finds it damaged"))
                }
                guard try db.tableExists("grdb_migrations"), try db.tableExists("secrets") else {
                    return .failure(StorageError(.corrupt, "it is not a Gangway server's database"))
                }
                return .success(
                    BackupContents(
                        migrations: try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations"),
                        secret: try Data.fetchOne(
                            db,
                            sql: "SELECT value FROM secrets WHERE name = ?",
                            arguments: [secretName]
                        )
                    )
                )
            }
        } catch {
            throw StorageError(.corrupt, "it is not a SQLite database")
        }
        return try result.get()
    }

    private static func describeCopy(_ error: any Error) -> String {
        if let error = error as? DatabaseError {
            switch error.resultCode {
            case .SQLITE_FULL: return "the disk is full"
            case .SQLITE_CANTOPEN: return "a file cannot be opened"
            case .SQLITE_READONLY, .SQLITE_PERM: return "a file cannot be written"
            default: return "SQLite error \(error.resultCode.rawValue)"
            }
        }
        return String(describing: type(of: error))
    }
}
