import Foundation
import GRDB

extension SQLiteDriver {
    /// How a copy shares the machine with the requests of a server serving from the same
    /// database (``copy(_:into:readOnly:pace:)``).
    public struct CopyPace: Sendable, Hashable {
        /// The pages copied in one step (-1: all of them in one).
        public let pagesPerStep: Int32
        /// How long the copy rests after each step, as a share of the time the step took.
        public let restPerWork: Double

        /// Steps of `pagesPerStep` pages (all of them in one when it is not positive), each
        /// followed by a rest of `restPerWork` times the step's time (none when it is not
        /// positive).
        public init(pagesPerStep: Int32, restPerWork: Double) {
            self.pagesPerStep = pagesPerStep > 0 ? pagesPerStep : -1
            self.restPerWork = restPerWork.isFinite ? max(0, restPerWork) : 0
        }

        /// A copy that takes half the time of one core at most: steps of 16 pages, each
        /// followed by a rest as long as it took. Measured on 1 GB while a server served
        /// (`scripts/benchmark backup`, 2 cores), the requests' 99th percentile was 1.2 to
        /// 1.5 times its idle figure, against 2.2 to 3.3 for a copy in one go, and the copy
        /// took some 15 s rather than 5 to 7.
        public static let sharing = CopyPace(pagesPerStep: 16, restPerWork: 1)
        /// As fast as the disks allow, in one step: nothing serves from the database (a
        /// restore's copy of a backup).
        public static let fullSpeed = CopyPace(pagesPerStep: -1, restPerWork: 0)
    }

    /// Writes a consistent copy of the database at `database` into `file`, which must be
    /// empty (made by the caller, with the mode it wants) or absent, with SQLite's backup
    /// API in steps `pace` sets, all inside one read transaction: one snapshot of the
    /// database, so the server's writes, in this process or another, go on while it runs
    /// (a WAL reader waits for no writer and none waits for it) and none of them is half
    /// in the copy. A write acknowledged before the copy began is in it. (Outside a
    /// transaction of its own, each step after another connection's write would start the
    /// copy over.) The copy is one file in rollback-journal mode, whatever the source's.
    ///
    /// It blocks until the copy is done (seconds for a gigabyte): call it on a thread of
    /// its own, never a cooperative one.
    ///
    /// - Parameter readOnly: Open `database` read-only (a backup, which is in no mode of
    ///   its own to keep); a server's database is opened as its server opens it.
    /// - Throws: ``StorageError/Code/unavailable`` when the database cannot be read or
    ///   the copy cannot be written.
    public static func copy(
        _ database: URL,
        into file: URL,
        readOnly: Bool = false,
        pace: CopyPace = .fullSpeed
    ) throws(StorageError) {
        do {
            var configuration = Configuration()
            // A long write of the server's may hold the file for a moment when this opens
            // it; the copy itself waits for no one.
            configuration.busyMode = .timeout(30)
            configuration.readonly = readOnly
            let source = try DatabaseQueue(path: database.path, configuration: configuration)
            defer { try? source.close() }
            let target = try DatabaseQueue(path: file.path)
            defer { try? target.close() }
            try source.inDatabase { source in
                // The snapshot every step reads, from the first read on.
                try source.execute(sql: "BEGIN DEFERRED")
                defer { try? source.execute(sql: "ROLLBACK") }
                _ = try Int.fetchOne(source, sql: "SELECT count(*) FROM sqlite_master")
                try target.inDatabase { target in
                    var stepStarted = ContinuousClock.now
                    try source.backup(to: target, pagesPerStep: pace.pagesPerStep) { _ in
                        let (seconds, attoseconds) = (ContinuousClock.now - stepStarted).components
                        let worked = Double(seconds) + Double(attoseconds) / 1e18
                        if pace.restPerWork > 0 { Thread.sleep(forTimeInterval: worked * pace.restPerWork) }
                        stepStarted = ContinuousClock.now
                    }
                    // The source's WAL mode came with its first page: the copy is to be
                    // one file, read without a log beside it.
                    try target.execute(sql: "PRAGMA journal_mode = DELETE")
                }
            }
            try target.close()
            try source.close()
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
