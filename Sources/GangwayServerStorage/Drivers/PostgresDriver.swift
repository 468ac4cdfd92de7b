import Foundation
import GangwayProtocol
import Logging
import NIOCore
import PostgresNIO
import ServiceLifecycle
import Synchronization

/// ``StorageDriver`` for PostgreSQL through postgres-nio: for several server processes
/// behind one database.
///
/// Every operation is one statement or one transaction, so processes need no
/// coordination beyond the database; migrations take an advisory lock, so processes
/// starting together migrate once. The URL may name a schema
/// (`postgres://user:password@host:5432/db?schema=gangway`), and `sslmode` says TLS as
/// libpq does: `disable` none; `allow` and `prefer` (the default) TLS when the server
/// offers it; `require`, `verify-ca` and `verify-full` TLS or no connection, its
/// certificate checked against the system's authorities (for `verify-ca`, not its host
/// name). Any other `sslmode` is refused, never read as a weaker one. A password may be in
/// the user part or, as libpq takes it, in the query (`?password=`):
/// `WebURL.password(in:)` finds either.
///
/// Its queries go through a postgres-nio connection pool that runs as a service
/// (``makeConnectionPool()``): in the server's service group while it serves, or around
/// a piece of work (``ServerStorage/withConnections(_:)``). Without a running pool a
/// query fails with ``StorageError/Code/unavailable``.
public final class PostgresDriver: StorageDriver {
    public var kind: StorageKind { .postgresql }
    private let configuration: PostgresClient.Configuration
    /// The same, for the one connection ``waitUntilReachable(within:onWaiting:)`` makes.
    private let probeConfiguration: PostgresConnection.Configuration
    /// Where the database is, `host:port`, for what a person reads (never the password).
    public let address: String
    /// The pools made and not finished, oldest first, and whether each runs yet; queries
    /// use the oldest running one, so a pool made for a piece of work while the server
    /// serves leaves the server's pool in use.
    private let pools = Mutex<[(client: PostgresClient, running: Bool)]>([])
    private let schema: String
    private let logger: Logger
    /// The same, for the notice listener's own connection, which names itself.
    private let listenerConfiguration: PostgresConnection.Configuration
    /// Which driver announced a notice, so that its own listener skips it.
    private let origin = UUID().uuidString
    /// Calls holding a pooled connection, and calls waiting for one.
    private let use = Mutex(ConnectionFigures(inUse: 0, awaited: 0))

    public var connectionFigures: ConnectionFigures? { use.withLock { $0 } }

    /// Opens nothing: connections open once a pool runs and a query needs one.
    public init(url: String, logger: Logger) throws(StorageError) {
        guard let components = URLComponents(string: url), let scheme = components.scheme,
            ["postgres", "postgresql"].contains(scheme), let host = components.host, !host.isEmpty
        else {
            throw StorageError(
                .unavailable,
                "the PostgreSQL URL must look like postgres://user:password@host:5432/database"
            )
        }
        if let port = components.port, !WebURL.ports.contains(port) {
            throw StorageError(
                .unavailable,
                "the PostgreSQL URL's port must be between \(WebURL.ports.lowerBound) and \(WebURL.ports.upperBound)"
            )
        }
        let query = Dictionary(
            (components.queryItems ?? []).map { ($0.name, $0.value ?? "") },
            uniquingKeysWith: { $1 }
        )
        let tls: PostgresClient.Configuration.TLS
        let probeTLS: PostgresConnection.Configuration.TLS
        do {
            switch query["sslmode"] {
            case "disable":
                tls = .disable
                probeTLS = .disable
            case "require", "verify-full", "verify-ca":
                var checked = TLSConfiguration.makeClientConfiguration()
                if query["sslmode"] == "verify-ca" { checked.certificateVerification = .noHostnameVerification }
                tls = .require(checked)
                probeTLS = .require(try NIOSSLContext(configuration: checked))
            case nil, "prefer", "allow":
                tls = .prefer(.makeClientConfiguration())
                probeTLS = .prefer(try NIOSSLContext(configuration: .makeClientConfiguration()))
            default:
                throw StorageError(
                    .unavailable,
                    "the PostgreSQL URL's sslmode must be disable, allow, prefer, require, verify-ca or verify-full"
                )
            }
        } catch let error as StorageError {
            throw error
        } catch {
            throw StorageError(.unavailable, "TLS for PostgreSQL cannot be set up on this machine")
        }
        let schema = query["schema"] ?? "public"
        guard Self.isSchemaName(schema) else {
            throw StorageError(.unavailable, "the schema name may hold only letters, digits and '_'")
        }
        var configuration = PostgresClient.Configuration(
            host: host,
            port: components.port ?? 5432,
            username: components.user ?? "postgres",
            password: components.password ?? query["password"],
            database: components.path.count > 1 ? String(components.path.dropFirst()) : nil,
            tls: tls
        )
        configuration.options.additionalStartupParameters = [("search_path", schema)]
        configuration.options.connectTimeout = .seconds(5)
        self.configuration = configuration
        var probe = PostgresConnection.Configuration(
            host: host,
            port: components.port ?? 5432,
            username: configuration.username,
            password: configuration.password,
            database: configuration.database,
            tls: probeTLS
        )
        probe.options.connectTimeout = .seconds(5)
        probeConfiguration = probe
        var listener = probe
        listener.options.additionalStartupParameters = [("application_name", Self.listenerName(schema: schema))]
        listenerConfiguration = listener
        address = WebURL.authority(host: host, port: components.port ?? 5432)
        self.schema = schema
        self.logger = logger
    }

    /// A new connection pool, which queries use from now until its service returns.
    ///
    /// Run every pool made: while the oldest has not started, queries wait for it.
    /// Waits for the database to take a connection with this URL's user, password and
    /// database, trying again while it cannot be reached (it may be starting) for at
    /// most `wait`; a refusal by the database itself (a wrong password, no such
    /// database) ends the wait at once.
    ///
    /// - Parameter onWaiting: Called once, when the first try fails and another follows.
    /// - Throws: ``StorageError/Code/unavailable`` with one sentence naming ``address``.
    public func waitUntilReachable(
        within wait: Duration,
        clock: some Clock<Duration> = ContinuousClock(),
        onWaiting: () -> Void = {}
    ) async throws(StorageError) {
        let deadline = clock.now.advanced(by: wait)
        var pause = Duration.milliseconds(250)
        var announced = false
        while true {
            let reason: String
            do {
                let connection = try await PostgresConnection.connect(
                    configuration: probeConfiguration,
                    id: 0,
                    logger: Logger(label: "gangway.postgres.probe", factory: { _ in SwiftLogNoOpLogHandler() })
                )
                try? await connection.close()
                return
            } catch let error as PSQLError where error.code == .server {
                let detail = error.serverInfo?[.message].map { " (\(TextRules.escapingControls($0)))" } ?? ""
                throw StorageError(.unavailable, "PostgreSQL at \(address) refused the connection\(detail)")
            } catch let error as PSQLError where error.code == .sslUnsupported {
                throw StorageError(.unavailable, "PostgreSQL at \(address) does not offer the TLS the URL requires")
            } catch {
                reason = Self.reason(error)
            }
            guard clock.now < deadline else {
                throw StorageError(
                    .unavailable,
                    "PostgreSQL at \(address) cannot be reached (\(reason)); gave up after \(Self.seconds(wait))"
                )
            }
            if !announced {
                announced = true
                onWaiting()
            }
            try? await clock.sleep(for: min(pause, clock.now.duration(to: deadline)))
            if Task.isCancelled { throw StorageError(.unavailable, "stopped waiting for PostgreSQL at \(address)") }
            pause = min(pause * 2, .seconds(2))
        }
    }

    /// Drops each schema of this database whose name starts with `prefix` and that
    /// `remove` picks, with everything in it, over a connection of its own. For the test
    /// servers of `GangwayServerTesting`, which make a schema each; no server calls it.
    package func dropSchemas(prefix: String, where remove: (String) -> Bool) async throws(StorageError) {
        guard Self.isSchemaName(prefix) else { throw StorageError(.unavailable, "no schema prefix") }
        do {
            let connection = try await PostgresConnection.connect(
                configuration: probeConfiguration,
                id: 0,
                logger: Logger(label: "gangway.postgres.schemas", factory: { _ in SwiftLogNoOpLogHandler() })
            )
            do {
                let schemas = try await connection.query(
                    "SELECT nspname FROM pg_namespace WHERE starts_with(nspname, \(prefix))",
                    logger: logger
                ).collect().map { try $0.decode(String.self) }
                for schema in schemas where Self.isSchemaName(schema) && remove(schema) {
                    try await connection.query("DROP SCHEMA IF EXISTS \(unescaped: schema) CASCADE", logger: logger)
                }
                try await connection.close()
            } catch {
                try? await connection.close()
                throw error
            }
        } catch {
            throw StorageError(.unavailable, "PostgreSQL at \(address): schemas not dropped (\(Self.reason(error)))")
        }
    }

    /// Whether `name` is a schema name Gangway uses: letters, digits and `_` only, so that
    /// it can stand in a statement unquoted.
    private static func isSchemaName(_ name: String) -> Bool {
        !name.isEmpty && name.unicodeScalars.allSatisfy { $0.isASCIIAlphanumeric || $0 == "_" }
    }

    /// Why a connection failed, in a few words, from what postgres-nio and NIO report.
    private static func reason(_ error: any Error) -> String {
        let underlying = (error as? PSQLError)?.underlying ?? error
        let text = String(describing: underlying).lowercased()
        if text.contains("refused") { return "connection refused" }
        if text.contains("timed out") || text.contains("timeout") { return "no answer" }
        if text.contains("resolve") || text.contains("name") { return "the host name does not resolve" }
        return "no connection"
    }

    private static func seconds(_ duration: Duration) -> String {
        let seconds = duration.components.seconds
        return seconds == 1 ? "1 second" : "\(seconds) seconds"
    }

    public func makeConnectionPool() -> (any Service)? {
        let client = PostgresClient(configuration: configuration, backgroundLogger: logger)
        pools.withLock { $0.append((client, false)) }
        return ConnectionPool(client: client, storage: self)
    }

    /// Runs one pool until the task is cancelled or a graceful shutdown, then retires it.
    private struct ConnectionPool: Service, CustomStringConvertible {
        let client: PostgresClient
        let storage: PostgresDriver
        /// Its name alone, as the service group logs it (``PostgresNoticeListener/description``).
        var description: String { "PostgresConnectionPool" }

        func run() async {
            // Queries take it from now on: none asks a pool that does not run yet.
            storage.pools.withLock { pools in
                if let index = pools.firstIndex(where: { $0.client === client }) { pools[index].running = true }
            }
            await client.run()
            storage.pools.withLock { $0.removeAll { $0.client === client } }
        }
    }

    /// How long a query waits for a pool that was made to start running.
    private static let poolStartWait: Duration = .seconds(10)

    /// The oldest running pool; when a pool was made but does not run yet (its service is
    /// starting), the query waits for it.
    private var client: PostgresClient {
        get async throws(StorageError) {
            let clock = ContinuousClock()
            let deadline = clock.now + Self.poolStartWait
            while true {
                let (running, made) = pools.withLock { pools in
                    (pools.first { $0.running }?.client, !pools.isEmpty)
                }
                if let running { return running }
                guard made, clock.now < deadline else {
                    throw StorageError(.unavailable, "no PostgreSQL connection pool is running")
                }
                try? await Task.sleep(for: .milliseconds(5))
            }
        }
    }

    /// The `application_name` of the notice listener's connection of `schema`, as
    /// `pg_stat_activity` shows it: `gangway-notices`, then as much of the schema's name
    /// as fits PostgreSQL's 63 bytes (a schema's name is letters, digits and '_').
    /// How many server processes listen for this schema's notices now
    /// (``listenerName(schema:)`` in `pg_stat_activity`): the servers using the schema,
    /// on whatever machine.
    public func serversListening() async throws(StorageError) -> Int {
        let rows = try await read(
            "SELECT COUNT(*) AS listening FROM pg_stat_activity WHERE application_name = \(Self.listenerName(schema: schema))"
        )
        return Int(try rows.first?("listening", as: Int64.self) ?? 0)
    }

    public static func listenerName(schema: String) -> String {
        String("gangway-notices \(schema)".utf8.prefix(63)) ?? "gangway-notices"
    }

    /// Sends `notice` with `pg_notify` to every process listening on this database, with
    /// this URL's schema: the others hear it; this driver's own listener skips it.
    public func announce(_ notice: String) async throws(StorageError) {
        let payload = PostgresNoticeListener.Payload(schema: schema, origin: origin, notice: notice).text
        try await run {
            try await self.withConnection { connection in
                try await connection.query(
                    "SELECT pg_notify(\(PostgresNoticeListener.channel), \(payload))",
                    logger: self.logger
                )
            }
        }
    }

    public func makeNoticeListener(_ hear: @escaping @Sendable (StorageNotice) -> Void) -> (any Service)? {
        PostgresNoticeListener(
            configuration: listenerConfiguration,
            schema: schema,
            origin: origin,
            address: address,
            logger: logger,
            hear: hear
        )
    }

    public func migrate(_ migrations: [Migration]) async throws(StorageError) {
        try await transaction { connection in
            // One process migrates a schema at a time; the others find the work done. The
            // lock is the schema's own: servers of other schemas in the database (each
            // test's, or a second deployment's) never wait for this one's migration.
            try await connection.query(
                "SELECT pg_advisory_xact_lock(7366837, hashtext(\(self.schema)))",
                logger: self.logger
            )
            try await connection.query("CREATE SCHEMA IF NOT EXISTS \(unescaped: self.schema)", logger: self.logger)
            try await connection.query(
                "CREATE TABLE IF NOT EXISTS \(unescaped: self.schema).gangway_migrations (name TEXT PRIMARY KEY)",
                logger: self.logger
            )
            let done = Set(
                try await connection.query(
                    "SELECT name FROM \(unescaped: self.schema).gangway_migrations",
                    logger: self.logger
                ).collect().map { try $0.makeRandomAccess()["name"].decode(String.self) }
            )
            for migration in migrations where !done.contains(migration.name) {
                for statement in migration.statements {
                    try await connection.query(PostgresQuery(unsafeSQL: statement), logger: self.logger)
                }
                try await connection.query(
                    "INSERT INTO \(unescaped: self.schema).gangway_migrations (name) VALUES (\(migration.name))",
                    logger: self.logger
                )
            }
        }
    }

    public func read(_ statement: SQL) async throws(StorageError) -> [SQLRow] {
        try await run {
            try await self.withConnection { connection in
                try await Statements(connection, self.logger).rows(statement)
            }
        }
    }

    public func write(_ statement: SQL) async throws(StorageError) -> [SQLRow] {
        try await run {
            try await self.withConnection { connection in
                try await Statements(connection, self.logger).rows(statement)
            }
        }
    }

    public func write<Result: Sendable>(
        locking locks: [StorageLock],
        _ body: (any SQLConnection) async throws -> Result
    ) async throws(StorageError) -> Result {
        try await transaction { connection in
            for lock in locks { try await self.take(lock, on: connection) }
            return try await body(Statements(connection, self.logger))
        }
    }

    /// Takes `lock` until the transaction ends. Each kind has keys of its own; the keys
    /// of one write are taken in ascending order, registrations before entity sets.
    private func take(_ lock: StorageLock, on connection: PostgresConnection) async throws {
        switch lock {
        case .signIns(let username):
            try await connection.query(
                "SELECT pg_advisory_xact_lock(7366838, hashtext(\(username.lowercased())))",
                logger: logger
            )
        case .refreshFamily(let familyID):
            try await connection.query(
                "SELECT pg_advisory_xact_lock(hashtextextended(\("refresh-family:" + familyID), 0))",
                logger: logger
            )
        case .signingKeys(let purpose):
            try await connection.query(
                "SELECT pg_advisory_xact_lock(hashtextextended(\("signing-keys:" + purpose), 0))",
                logger: logger
            )
        case .entityWriters(let registrations, let entitySets):
            for key in try await orderedLockKeys(registrations, connection) {
                try await connection.query("SELECT pg_advisory_xact_lock(7366839, \(key))", logger: logger)
            }
            for key in try await orderedLockKeys(entitySets, connection) {
                try await connection.query("SELECT pg_advisory_xact_lock(\(Int64(key)))", logger: logger)
            }
        }
    }

    /// The advisory-lock keys of `texts` (their `hashtext`), each once, in ascending order.
    private func orderedLockKeys(_ texts: Set<String>, _ connection: PostgresConnection) async throws -> [Int32] {
        guard !texts.isEmpty else { return [] }
        return try await connection.query(
            "SELECT DISTINCT hashtext(key) AS lock FROM unnest(\(Array(texts))::text[]) AS key ORDER BY lock",
            logger: logger
        ).collect().map { try $0.makeRandomAccess()["lock"].decode(Int32.self) }
    }

    /// Statements on one pooled connection.
    private struct Statements: SQLConnection {
        let connection: PostgresConnection
        let logger: Logger

        init(_ connection: PostgresConnection, _ logger: Logger) {
            self.connection = connection
            self.logger = logger
        }

        func rows(_ statement: SQL) async throws -> [SQLRow] {
            var columns: [String]?
            var rows: [SQLRow] = []
            for try await row in try await connection.query(Self.query(statement), logger: logger) {
                let names = columns ?? row.map(\.columnName)
                columns = names
                rows.append(SQLRow(columns: names, values: try row.map(SQLValue.init)))
            }
            return rows
        }

        func execute(_ statement: SQL) async throws {
            try await connection.query(Self.query(statement), logger: logger)
        }

        private static func query(_ statement: SQL) -> PostgresQuery {
            let (text, values) = statement.rendered { "$\($0)" }
            var bindings = PostgresBindings(capacity: values.count)
            for value in values {
                switch value {
                case .null: bindings.appendNull()
                case .integer(let integer): bindings.append(integer)
                case .text(let text): bindings.append(text)
                case .blob(let data): bindings.append(ByteBuffer(bytes: data))
                case .bool(let flag): bindings.append(flag)
                case .texts(let texts): bindings.append(texts)
                case .integers(let integers): bindings.append(integers)
                }
            }
            return PostgresQuery(unsafeSQL: text, binds: bindings)
        }
    }

    // MARK: Running

    @discardableResult
    private func transaction<Result: Sendable>(
        _ body: (PostgresConnection) async throws -> Result
    ) async throws(StorageError) -> Result {
        try await run {
            let client = try await self.client
            return try await counted { entered in
                try await client.withTransaction(logger: logger) { connection in
                    entered()
                    return try await body(connection)
                }
            }
        }
    }

    /// Runs `body` on a pooled connection, counted in ``connectionFigures``.
    private func withConnection<Result: Sendable>(
        _ body: (PostgresConnection) async throws -> Result
    ) async throws -> Result {
        let client = try await self.client
        return try await counted { entered in
            try await client.withConnection { connection in
                entered()
                return try await body(connection)
            }
        }
    }

    /// Counts a call as awaiting a connection until `entered` is called, then as using one
    /// until it returns.
    private func counted<Result>(_ body: (_ entered: () -> Void) async throws -> Result) async throws -> Result {
        use.withLock { $0.awaited += 1 }
        var holding = false
        defer {
            use.withLock { use in
                if holding { use.inUse -= 1 } else { use.awaited -= 1 }
            }
        }
        return try await body {
            holding = true
            use.withLock { use in
                use.awaited -= 1
                use.inUse += 1
            }
        }
    }

    @discardableResult
    private func run<T>(_ body: () async throws -> T) async throws(StorageError) -> T {
        do {
            return try await body()
        } catch {
            throw Self.storageError(error)
        }
    }

    private static func storageError(_ error: any Error) -> StorageError {
        switch error {
        case let error as StorageError:
            return error
        case let error as PostgresTransactionError:
            // The statement that failed inside the transaction says why.
            return storageError(
                error.closureError ?? error.beginError ?? error.commitError ?? error.rollbackError ?? error
            )
        case let error as PSQLError:
            let state = error.serverInfo?[.sqlState]
            if state == "23505" { return StorageError(.duplicate, "a row with the same key exists") }
            if state == "22021" || state == "22P05" {
                return StorageError(.invalidText, "a text holds a character the database refuses")
            }
            // PSQLError's description is generic on purpose; the SQL state says what happened.
            return StorageError(.unavailable, "PostgreSQL error \(state ?? String(describing: error.code))")
        default:
            return StorageError(.unavailable, String(describing: type(of: error)))
        }
    }
}

extension SQLValue {
    /// A cell as PostgreSQL sent it.
    init(_ cell: PostgresCell) throws {
        guard cell.bytes != nil else {
            self = .null
            return
        }
        switch cell.dataType {
        case .bool: self = .bool(try cell.decode(Bool.self))
        case .int2, .int4, .int8: self = .integer(try cell.decode(Int64.self))
        case .bytea: self = .blob(try cell.decode(Data.self))
        default: self = .text(try cell.decode(String.self))
        }
    }
}
