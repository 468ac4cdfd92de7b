import Foundation
import GangwayProtocol
import ServiceLifecycle

/// Where the server keeps its state: SQLite for one process, PostgreSQL for several.
///
/// Each query and each record is written once, here and in the files beside this one
/// (one per kind of row), as ``SQL`` with bound values; a ``StorageDriver`` runs it on
/// its database. Every method is atomic on its own: a read is one statement, which sees
/// one state of the database, and a write is one statement or one transaction. The
/// server holds no state of its own beyond the ``ReadCache``, so any number of processes
/// can share one PostgreSQL database.
public final class ServerStorage: Sendable {
    public let driver: any StorageDriver
    /// What every query runs through: the driver, its statements spans when there is a
    /// tracer (``TracedDriver``).
    let queries: any StorageDriver
    /// The hot reads' cache, when there is one.
    let cache: ReadCache?

    /// - Parameters:
    ///   - cache: Keeps the reads every device request makes; `nil` reads the database
    ///     every time.
    ///   - tracer: Where each statement's span goes; none by default.
    public init(_ driver: any StorageDriver, cache: ReadCache? = nil, tracer: ServerTracer = .none) {
        self.driver = driver
        queries = tracer.isOn ? TracedDriver(driver: driver, tracer: tracer) : driver
        self.cache = cache
    }

    /// Which kind of database this is, for `/health` and logs.
    public var kind: StorageKind { driver.kind }

    /// Brings the schema up to date; safe to run from several processes at once.
    public func migrate() async throws(StorageError) {
        try await driver.migrate(ServerSchema.migrations(kind))
    }

    /// The names of the migrations a database of `kind` runs, in order: what a database
    /// (or a backup of one) that has run others was made by a newer version.
    public static func migrationNames(_ kind: StorageKind) -> [String] {
        ServerSchema.migrations(kind).map(\.name)
    }

    /// Asks the database the smallest question there is (`SELECT 1`), through the pool
    /// the requests use: whether it answers (a readiness probe's look). Throws what a
    /// request's read would.
    public func ping() async throws(StorageError) {
        // Untraced: probes ask every few seconds, and their spans would say nothing.
        _ = try await driver.read("SELECT 1 AS answered")
    }

    /// A new connection pool for a service group (PostgreSQL's), which the storage's
    /// calls use while its service runs; `nil` when the storage needs nothing running
    /// (SQLite). The server runs it in its service group, shut down after the HTTP
    /// server; ``withConnections(_:)`` runs one around a piece of work.
    public func makeConnectionPool() -> (any Service)? { driver.makeConnectionPool() }

    /// Runs `body` with a connection pool of its own running (see
    /// ``makeConnectionPool()``), and stops the pool when `body` returns or throws.
    public func withConnections<Result: Sendable>(
        _ body: () async throws -> Result
    ) async throws -> Result {
        guard let pool = makeConnectionPool() else { return try await body() }
        return try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await pool.run() }
            defer { group.cancelAll() }
            return try await body()
        }
    }

    /// A service that keeps this process's cache current with the other processes
    /// sharing the database: it drops what their writes' notices name, and everything
    /// when it starts listening or listens again after a dropped connection (what
    /// changed meanwhile is unknown). `nil` where one process owns the database (SQLite).
    /// The server runs it in its service group beside the connection pool.
    ///
    /// - Parameter heardSetChange: Called when a notice says an entity set changed, or
    ///   what changed is unknown (a notice missed or unread): devices waiting for a set
    ///   are then looked at once, not at their watch's next read.
    public func makeNoticeListener(heardSetChange: @escaping @Sendable () -> Void = {}) -> (any Service)? {
        driver.makeNoticeListener { [cache] notice in
            let drops: [ReadCache.Drop]?
            switch notice {
            case .missed: drops = nil
            case .heard(let text): drops = ReadCache.Drop.drops(inNotice: text)
            }
            if let drops {
                cache?.drop(drops)
                if drops.contains(where: { $0.kind == .entitySet }) { heardSetChange() }
            } else {
                cache?.dropAll()
                heardSetChange()
            }
        }
    }

    /// The read cache's hits and misses by kind; none without a cache.
    public var cacheTallies: [String: ReadCache.Tally] { cache?.tallies ?? [:] }

    /// Runs `write`, then drops what it made stale (`drops`) from the cache here and
    /// announces them to every other process sharing the database, whether `write`
    /// returned or threw (a write whose answer was lost may still have committed).
    func writing<Result: Sendable>(
        forgetting drops: [ReadCache.Drop],
        _ write: () async throws(StorageError) -> Result
    ) async throws(StorageError) -> Result {
        let result: Result
        do {
            result = try await write()
        } catch {
            await forget(drops)
            throw error
        }
        await forget(drops)
        return result
    }

    /// Drops `drops` here and announces them. An announcement that fails leaves the
    /// other processes to see the write when their entries expire.
    private func forget(_ drops: [ReadCache.Drop]) async {
        cache?.drop(drops)
        guard !drops.isEmpty else { return }
        try? await driver.announce(ReadCache.Drop.notice(drops))
    }

    // MARK: Running statements

    /// The records `statement` returns.
    func all<Record: Sendable>(
        _ statement: SQL,
        _ record: (SQLRow) throws(StorageError) -> Record
    ) async throws(StorageError) -> [Record] {
        try await queries.read(statement).map(record)
    }

    /// The first record `statement` returns, if any.
    func first<Record: Sendable>(
        _ statement: SQL,
        _ record: (SQLRow) throws(StorageError) -> Record
    ) async throws(StorageError) -> Record? {
        try await queries.read(statement).first.map(record)
    }

    /// The records `statement` returns, each read by its coding keys (``SQLRow/decode(_:)``).
    func all<Record: Decodable & Sendable>(
        _ statement: SQL,
        as type: Record.Type = Record.self
    ) async throws(StorageError) -> [Record] {
        try await all(statement) { row throws(StorageError) in try row.decode(type) }
    }

    /// The first record `statement` returns, if any, read by its coding keys.
    func first<Record: Decodable & Sendable>(
        _ statement: SQL,
        as type: Record.Type = Record.self
    ) async throws(StorageError) -> Record? {
        try await first(statement) { row throws(StorageError) in try row.decode(type) }
    }

    /// Runs one writing statement on its own.
    func execute(_ statement: SQL) async throws(StorageError) {
        _ = try await queries.write(statement)
    }

    /// Runs one writing statement that ends in `RETURNING`; how many rows it returned.
    func count(_ statement: SQL) async throws(StorageError) -> Int {
        try await queries.write(statement).count
    }

    /// A hot read, through the cache when there is one.
    func cached<Value: Sendable>(
        _ key: ReadCache.Key,
        _ load: () async throws(StorageError) -> Value
    ) async throws(StorageError) -> Value {
        guard let cache else { return try await load() }
        return try await cache.value(key, load)
    }

    // MARK: Secrets

    /// The value stored under `name`, storing `value` first when there is none: the
    /// first process to start decides, the others read its choice.
    public func secret(named name: String, orInsert value: Data) async throws(StorageError) -> Data {
        try await queries.write(locking: []) { connection in
            try await connection.execute(
                "INSERT INTO secrets (name, value) VALUES (\(name), \(value)) ON CONFLICT (name) DO NOTHING"
            )
            guard let row = try await connection.rows("SELECT value FROM secrets WHERE name = \(name)").first else {
                throw StorageError(.corrupt, "secret \(name) vanished")
            }
            return try row("value", as: Data.self)
        }
    }

    /// The value stored under `name`, if any.
    public func secret(named name: String) async throws(StorageError) -> Data? {
        try await cached(.secret(name)) { () throws(StorageError) in
            try await first("SELECT value FROM secrets WHERE name = \(name)") { row throws(StorageError) in
                try row("value", as: Data.self)
            }
        }
    }

    /// Replaces the value stored under `name`.
    public func setSecret(named name: String, to value: Data) async throws(StorageError) {
        try await writing(forgetting: [.key(.secret(name))]) { () throws(StorageError) in
            try await execute(
                """
                INSERT INTO secrets (name, value) VALUES (\(name), \(value))
                ON CONFLICT (name) DO UPDATE SET value = excluded.value
                """
            )
        }
    }

    // MARK: Users

    public func insertUser(_ user: UserRecord) async throws(StorageError) {
        try await writing(forgetting: [.key(.user(user.username))]) { () throws(StorageError) in
            try await execute(try .insert(into: "users", user))
        }
    }

    public func updateUser(_ user: UserRecord) async throws(StorageError) {
        try await writing(forgetting: [.key(.user(user.username))]) { () throws(StorageError) in
            try await execute(
                """
                UPDATE users SET display_name = \(user.displayName), password_hash = \(user.passwordHash),
                    blocked = \(user.blocked), attributes = \(user.attributes) WHERE username = \(user.username)
                """
            )
        }
    }

    /// The user as stored now: what a sign-in, a password check and an admin read.
    public func user(named username: String) async throws(StorageError) -> UserRecord? {
        try await first("SELECT * FROM users WHERE username = \(username)")
    }

    /// The user as a device's request sees them, through the cache: a change by another
    /// process shows within the cache's lifetime, as a revoked session does. A request
    /// to a destination reads this; a sign-in reads ``user(named:)``.
    public func cachedUser(named username: String) async throws(StorageError) -> UserRecord? {
        try await cached(.user(username)) { () throws(StorageError) in try await user(named: username) }
    }

    public func users() async throws(StorageError) -> [UserRecord] {
        try await all("SELECT * FROM users ORDER BY username")
    }

    /// A page of users by name: those whose name starts with `prefix` (any case), after
    /// `after`, at most `limit`. The database walks its index of names from `after`, so a
    /// page costs the same on the first page and the thousandth.
    public func users(
        prefix: String,
        after: String?,
        limit: Int
    ) async throws(StorageError) -> [UserRecord] {
        let pattern = Self.startsWith(prefix)
        let statement: SQL =
            if let after {
                """
                SELECT * FROM users WHERE username > \(after) AND LOWER(username) LIKE \(pattern) ESCAPE '\\'
                ORDER BY username LIMIT \(limit)
                """
            } else {
                "SELECT * FROM users WHERE LOWER(username) LIKE \(pattern) ESCAPE '\\' ORDER BY username LIMIT \(limit)"
            }
        return try await all(statement)
    }

    /// A page of users whose name starts with `prefix` and whose name or display name
    /// holds `text` anywhere (any case), by name, after `after`, at most `limit`. Unlike a
    /// prefix alone, this reads every user's row: a search, for an operator looking for a
    /// person.
    public func users(
        prefix: String = "",
        containing text: String,
        after: String?,
        limit: Int
    ) async throws(StorageError) -> [UserRecord] {
        let (start, pattern) = (Self.startsWith(prefix), "%" + Self.startsWith(text))
        let after = after ?? ""
        return try await all(
            """
            SELECT * FROM users WHERE username > \(after) AND LOWER(username) LIKE \(start) ESCAPE '\\'
                AND (LOWER(username) LIKE \(pattern) ESCAPE '\\' OR LOWER(display_name) LIKE \(pattern) ESCAPE '\\')
            ORDER BY username LIMIT \(limit)
            """,
            as: UserRecord.self
        )
    }

    /// How many users ``users(prefix:containing:after:limit:)`` finds over all its pages.
    public func userCount(prefix: String = "", containing text: String = "") async throws(StorageError) -> Int {
        let (start, pattern) = (Self.startsWith(prefix), "%" + Self.startsWith(text))
        let counted = try await first(
            """
            SELECT COUNT(*) AS count FROM users WHERE LOWER(username) LIKE \(start) ESCAPE '\\'
                AND (LOWER(username) LIKE \(pattern) ESCAPE '\\' OR LOWER(display_name) LIKE \(pattern) ESCAPE '\\')
            """
        ) { row throws(StorageError) -> Int in try row("count") }
        return counted ?? 0
    }

    /// The users shown by any of `displayNames` (in any case), by name: who else a person
    /// may be taken for.
    public func users(displayedAs displayNames: [String]) async throws(StorageError) -> [UserRecord] {
        guard !displayNames.isEmpty else { return [] }
        return try await all(
            "SELECT * FROM users WHERE LOWER(display_name) IN (\(list: displayNames.map { $0.lowercased() })) "
                + "ORDER BY username",
            as: UserRecord.self
        )
    }
}

extension ServerStorage {
    /// The `LIKE … ESCAPE '\'` pattern of the lowercased names that start with `prefix`
    /// (any case): LIKE's own wildcards in a typed prefix match themselves.
    static func startsWith(_ prefix: String) -> String {
        prefix.lowercased().replacingOccurrences(of: "\\", with: "\\\\")
            .replacingOccurrences(of: "%", with: "\\%").replacingOccurrences(of: "_", with: "\\_") + "%"
    }
}

/// A storage failure. New cases may be added.
public struct StorageError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Code: String, Sendable {
        /// A row with the same key exists.
        case duplicate
        /// The database could not be reached or refused the operation.
        case unavailable
        /// A stored row could not be read back.
        case corrupt
        /// The database cannot hold a value it was given (PostgreSQL text and NUL).
        case invalidText
        /// A set is full: the write would pass a limit the caller gave.
        case limitReached
        /// An entity does not fit its set's schema; the message says why, naming fields
        /// and types, never a value.
        case notValid
        /// The stored state is not the one the write was made against (another writer
        /// came first, or the caller's view is of other data).
        case conflict
    }

    public var code: Code
    /// What failed, without any stored value.
    public var message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "\(code.rawValue): \(message)" }
}
