import Foundation
import ServiceLifecycle

/// The seam between ``ServerStorage`` and a database: how to run statements, and how to
/// keep a transaction to itself. Each query is written once, in ``ServerStorage``; a
/// driver renders it for its database and maps its errors to ``StorageError``.
public protocol StorageDriver: Sendable {
    /// Which database this is; the schema's types and a few fragments differ by it.
    var kind: StorageKind { get }

    /// Runs the migrations the database has not run yet, in order, each once; safe to
    /// run from several processes at once.
    func migrate(_ migrations: [Migration]) async throws(StorageError)

    /// A connection pool to run in a service group (PostgreSQL's); `nil` when the
    /// driver needs nothing running (SQLite). See ``ServerStorage/withConnections(_:)``.
    func makeConnectionPool() -> (any Service)?

    /// Tells every other process sharing the database `notice` (a few kilobytes at most),
    /// for them to hear through their ``makeNoticeListener(_:)``; does nothing where one
    /// process owns the database (SQLite). A notice is heard once it is sent, never
    /// before a write that came before it has committed.
    func announce(_ notice: String) async throws(StorageError)

    /// A service that hands `hear` each notice the other processes sharing the database
    /// announce, and ``StorageNotice/missed`` each time it starts to listen: at first,
    /// and again after a dropped connection, when notices may have gone unheard. `nil`
    /// where one process owns the database (SQLite).
    func makeNoticeListener(_ hear: @escaping @Sendable (StorageNotice) -> Void) -> (any Service)?

    /// The pool's use now (PostgreSQL's); `nil` for a driver that keeps none to count.
    var connectionFigures: ConnectionFigures? { get }

    /// The rows one reading statement returns. One statement is what both databases run
    /// as one snapshot of the database, so a read never mixes two states: a read that
    /// needs two tables is one statement (a join, a window), never two reads, and a
    /// statement that reads what it then writes is a ``write(locking:_:)``.
    func read(_ statement: SQL) async throws(StorageError) -> [SQLRow]

    /// Runs one writing statement on its own, atomically; the rows it returns (with
    /// `RETURNING`). The same as a ``write(locking:_:)`` of that statement alone, in one
    /// round trip.
    func write(_ statement: SQL) async throws(StorageError) -> [SQLRow]

    /// Runs `body` in one transaction, holding `locks` until it ends: all of it is
    /// written or none; a write that throws rolls back.
    func write<Result: Sendable>(
        locking locks: [StorageLock],
        _ body: (any SQLConnection) async throws -> Result
    ) async throws(StorageError) -> Result
}

extension StorageDriver {
    /// None: only a driver with a pool of its own to count says.
    public var connectionFigures: ConnectionFigures? { nil }
}

/// A connection pool's use now: connections running a statement or transaction, and
/// calls waiting for one.
public struct ConnectionFigures: Sendable, Hashable {
    public var inUse: Int
    public var awaited: Int

    public init(inUse: Int, awaited: Int) {
        self.inUse = inUse
        self.awaited = awaited
    }
}

/// What a notice listener hears (``StorageDriver/makeNoticeListener(_:)``).
public enum StorageNotice: Sendable, Hashable {
    /// A notice another process announced.
    case heard(String)
    /// The listener (re)started: whatever was announced before may not have been heard.
    case missed
}

/// Statements run on one connection, inside ``StorageDriver/write(locking:_:)``.
public protocol SQLConnection: Sendable {
    /// The rows `statement` returns (a write returns rows with `RETURNING`).
    func rows(_ statement: SQL) async throws -> [SQLRow]

    /// Runs `statement`, ignoring any rows.
    func execute(_ statement: SQL) async throws
}

/// What a write waits for, in every process sharing the database. SQLite runs one write
/// at a time, which holds every lock; PostgreSQL takes advisory locks, always in the
/// same order, so two writes never wait for each other.
public enum StorageLock: Sendable, Hashable {
    /// The sign-ins of one user name: two never both take the last attempt allowed.
    case signIns(username: String)
    /// A refresh token family: joining it and revoking it never interleave.
    case refreshFamily(String)
    /// The registrations whose changes a write ends, then the entity sets (`app/set`)
    /// it writes: the change IDs, sequences, counts and versions it reads stay current.
    case entityWriters(registrations: Set<String>, entitySets: Set<String>)
    /// The signing keys of one purpose: two rotations never make the same generation.
    case signingKeys(String)
}

/// One identified step of the schema, run once per database.
public struct Migration: Sendable {
    /// The step's name, recorded once it has run.
    public var name: String
    public var statements: [String]
}

/// The database behind a ``ServerStorage``.
public enum StorageKind: String, Sendable {
    case sqlite
    case postgresql
}
