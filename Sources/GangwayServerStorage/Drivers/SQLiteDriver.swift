import Foundation
import GRDB
import GangwayProtocol
import ServiceLifecycle

/// ``StorageDriver`` for one SQLite file through GRDB: the embedded default.
///
/// The file is opened in WAL mode with a pool of readers, so reads never wait for a
/// write. Writes take turns on the one writer connection, an immediate transaction at a
/// time, which holds every ``StorageLock``; one process owns the file (for several, use
/// ``PostgresDriver``).
///
/// GRDB runs a transaction in one synchronous closure, but ``ServerStorage`` writes each
/// transaction once, for both databases, as asynchronous code. So a write here begins
/// the transaction, runs each statement as its own step on the writer connection, and
/// commits or rolls back, while `WriterTurn` keeps every other write out until it ends
/// (GRDB's `allowsUnsafeTransactions` lets a transaction span those steps).
public final class SQLiteDriver: StorageDriver {
    public var kind: StorageKind { .sqlite }
    private let pool: DatabasePool
    private let turn = WriterTurn()

    /// Opens (creating when missing) the database at `path`.
    public init(path: String) throws(StorageError) {
        do {
            var configuration = Configuration()
            // Another process's write holds the file for the whole of its transaction,
            // whose steps wait for this process's threads as well: wait for it as a
            // PostgreSQL write waits for a lock, rather than fail a loaded server's write.
            configuration.busyMode = .timeout(30)
            configuration.allowsUnsafeTransactions = true
            pool = try DatabasePool(path: path, configuration: configuration)
        } catch {
            throw StorageError(.unavailable, "cannot open the SQLite database: \(Self.describe(error))")
        }
    }

    /// None: GRDB's pool needs nothing running, and the file closes when the driver is
    /// released.
    public func makeConnectionPool() -> (any Service)? { nil }

    /// Closes the reader connections no read is using; the next read opens one again.
    /// What a server that has started but does not serve yet keeps open is then its
    /// writer's files alone.
    public func closeIdleReaders() {
        pool.releaseMemory()
    }

    /// Nothing: one process owns the file, and its cache drops what it writes.
    public func announce(_ notice: String) async throws(StorageError) {}

    /// None: no other process shares the file.
    public func makeNoticeListener(_ hear: @escaping @Sendable (StorageNotice) -> Void) -> (any Service)? { nil }

    public func migrate(_ migrations: [Migration]) async throws(StorageError) {
        var migrator = DatabaseMigrator()
        for migration in migrations {
            migrator.registerMigration(migration.name) { db in
                for statement in migration.statements { try db.execute(sql: statement) }
            }
        }
        await turn.begin()
        let migrated = Result { try migrator.migrate(pool) }
        await turn.end()
        if case .failure(let error) = migrated { throw Self.storageError(error) }
    }

    public func read(_ statement: SQL) async throws(StorageError) -> [SQLRow] {
        do {
            return try await Statements(pool: pool, writing: false).rows(statement)
        } catch {
            throw Self.storageError(error)
        }
    }

    public func write(_ statement: SQL) async throws(StorageError) -> [SQLRow] {
        await turn.begin()
        do {
            let rows = try await Statements(pool: pool, writing: true).step { db in
                var rows: [SQLRow] = []
                try db.inTransaction(.immediate) {
                    rows = try Statements.fetch(statement, db)
                    return .commit
                }
                return rows
            }
            await turn.end()
            return rows
        } catch {
            await turn.end()
            throw Self.storageError(error)
        }
    }

    public func write<Result: Sendable>(
        locking locks: [StorageLock],
        _ body: (any SQLConnection) async throws -> Result
    ) async throws(StorageError) -> Result {
        await turn.begin()
        let statements = Statements(pool: pool, writing: true)
        do {
            try await statements.step { db in try db.beginTransaction(.immediate) }
            let result = try await body(statements)
            try await statements.step { db in try db.commit() }
            await turn.end()
            return result
        } catch {
            try? await statements.step { db in if db.isInsideTransaction { try db.rollback() } }
            await turn.end()
            throw Self.storageError(error)
        }
    }

    /// Statements on a reader connection, or on the writer inside a write.
    private struct Statements: SQLConnection {
        let pool: DatabasePool
        let writing: Bool

        func rows(_ statement: SQL) async throws -> [SQLRow] {
            try await step { db in try Self.fetch(statement, db) }
        }

        func execute(_ statement: SQL) async throws {
            try await step { db in
                let (text, values) = statement.rendered { _ in "?" }
                try db.cachedStatement(sql: text).execute(
                    arguments: StatementArguments(values.map { $0.databaseValue })
                )
            }
        }

        /// Runs `work` on the connection, whether or not the task is cancelled: a
        /// transaction begun always ends.
        func step<T: Sendable>(_ work: @escaping @Sendable (Database) throws -> T) async throws -> T {
            try await withCheckedThrowingContinuation { continuation in
                if writing {
                    pool.asyncWriteWithoutTransaction { db in continuation.resume(with: Result { try work(db) }) }
                } else {
                    pool.asyncRead { database in
                        continuation.resume(with: Result { try work(try database.get()) })
                    }
                }
            }
        }

        static func fetch(_ statement: SQL, _ db: Database) throws -> [SQLRow] {
            let (text, values) = statement.rendered { _ in "?" }
            let prepared = try db.cachedStatement(sql: text)
            try prepared.setArguments(StatementArguments(values.map { $0.databaseValue }))
            let columns = prepared.columnNames
            var rows: [SQLRow] = []
            let cursor = try Row.fetchCursor(prepared)
            while let row = try cursor.next() {
                rows.append(SQLRow(columns: columns, values: row.databaseValues.map(SQLValue.init)))
            }
            return rows
        }
    }

    private static func storageError(_ error: any Error) -> StorageError {
        switch error {
        case let error as StorageError:
            return error
        case let error as DatabaseError where error.resultCode == .SQLITE_CONSTRAINT:
            return StorageError(.duplicate, "a row with the same key exists")
        default:
            return StorageError(.unavailable, describe(error))
        }
    }

    private static func describe(_ error: any Error) -> String {
        // GRDB's descriptions include the SQL and its arguments; keep only the result code.
        if let error = error as? DatabaseError { return "SQLite error \(error.resultCode.rawValue)" }
        return String(describing: type(of: error))
    }
}

extension SQLValue {
    /// As GRDB binds it: a flag as SQLite's 0 or 1.
    var databaseValue: DatabaseValue {
        switch self {
        case .null: .null
        case .integer(let integer): integer.databaseValue
        case .text(let text): text.databaseValue
        case .blob(let data): data.databaseValue
        case .bool(let flag): flag.databaseValue
        case .texts(let texts): Self.jsonArray(texts).databaseValue
        case .integers(let integers): "[\(integers.map(String.init).joined(separator: ","))]".databaseValue
        }
    }

    /// `texts` as a JSON array, for `json_each`.
    private static func jsonArray(_ texts: [String]) -> String {
        var bytes: [UInt8] = [UInt8(ascii: "[")]
        for (index, text) in texts.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            JSONBytes.string(text, into: &bytes)
        }
        bytes.append(UInt8(ascii: "]"))
        return String(decoding: bytes, as: UTF8.self)
    }

    init(_ value: DatabaseValue) {
        switch value.storage {
        case .null: self = .null
        case .int64(let integer): self = .integer(integer)
        case .double(let double): self = .text(String(double))
        case .string(let text): self = .text(text)
        case .blob(let data): self = .blob(data)
        }
    }
}
