import Foundation
import GangwayProtocol
import Logging
import NIOCore
import PostgresNIO
import ServiceLifecycle
import Synchronization

/// ``ServerStorage`` in PostgreSQL through postgres-nio: for several server processes
/// behind one database.
///
/// Every operation is one statement or one transaction, so processes need no
/// coordination beyond the database; migrations take an advisory lock, so processes
/// starting together migrate once. The URL may name a schema
/// (`postgres://user:password@host:5432/db?schema=gangway`); `sslmode=disable` or
/// `sslmode=require` choose TLS, which is used when the server offers it otherwise.
///
/// Its queries go through a postgres-nio connection pool that runs as a service
/// (``makeConnectionPool()``): in the server's service group while it serves, or around
/// a piece of work (``ServerStorage/withConnections(_:)``). Without a running pool a
/// query fails with ``StorageError/Code/unavailable``.
public final class PostgresStorage: ServerStorage {
    public var kind: StorageKind { .postgresql }
    private let configuration: PostgresClient.Configuration
    /// The same, for the one connection ``waitUntilReachable(within:onWaiting:)`` makes.
    private let probeConfiguration: PostgresConnection.Configuration
    /// Where the database is, `host:port`, for what a person reads (never the password).
    public let address: String
    /// The pools made and not finished, oldest first; queries use the oldest, so a pool
    /// made for a piece of work while the server serves leaves the server's pool in use.
    private let pools = Mutex<[PostgresClient]>([])
    private let schema: String
    private let logger: Logger

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
        if let port = components.port, !(1...65_535).contains(port) {
            throw StorageError(.unavailable, "the PostgreSQL URL's port must be between 1 and 65535")
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
            case "require", "verify-full":
                tls = .require(.makeClientConfiguration())
                probeTLS = .require(try NIOSSLContext(configuration: .makeClientConfiguration()))
            default:
                tls = .prefer(.makeClientConfiguration())
                probeTLS = .prefer(try NIOSSLContext(configuration: .makeClientConfiguration()))
            }
        } catch {
            throw StorageError(.unavailable, "TLS for PostgreSQL cannot be set up on this machine")
        }
        let schema = query["schema"] ?? "public"
        guard schema.unicodeScalars.allSatisfy({ $0.isASCIIAlphanumeric || $0 == "_" }), !schema.isEmpty else {
            throw StorageError(.unavailable, "the schema name may hold only letters, digits and '_'")
        }
        var configuration = PostgresClient.Configuration(
            host: host,
            port: components.port ?? 5432,
            username: components.user ?? "postgres",
            password: components.password,
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
        address = "\(host.contains(":") ? "[\(host)]" : host):\(components.port ?? 5432)"
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
        pools.withLock { $0.append(client) }
        return ConnectionPool(client: client, storage: self)
    }

    /// Runs one pool until the task is cancelled or a graceful shutdown, then retires it.
    private struct ConnectionPool: Service {
        let client: PostgresClient
        let storage: PostgresStorage

        func run() async {
            await client.run()
            storage.pools.withLock { $0.removeAll { $0 === client } }
        }
    }

    /// The oldest pool not finished.
    private var client: PostgresClient {
        get throws(StorageError) {
            guard let client = pools.withLock({ $0.first }) else {
                throw StorageError(.unavailable, "no PostgreSQL connection pool is running")
            }
            return client
        }
    }

    public func migrate() async throws(StorageError) {
        try await transaction { connection in
            // One process migrates at a time; the others find the work done.
            try await connection.query("SELECT pg_advisory_xact_lock(7366837)", logger: self.logger)
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
            for migration in ServerSchema.migrations(.postgresql) where !done.contains(migration.name) {
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

    // MARK: Secrets

    public func secret(named name: String, orInsert value: Data) async throws(StorageError) -> Data {
        try await run {
            try await client.query(
                "INSERT INTO secrets (name, value) VALUES (\(name), \(value)) ON CONFLICT (name) DO NOTHING",
                logger: logger
            )
            guard
                let row = try await client.query("SELECT value FROM secrets WHERE name = \(name)", logger: logger)
                    .collect().first
            else { throw StorageError(.corrupt, "secret \(name) vanished") }
            return try row.makeRandomAccess()["value"].decode(Data.self)
        }
    }

    public func secret(named name: String) async throws(StorageError) -> Data? {
        try await run {
            try await client.query("SELECT value FROM secrets WHERE name = \(name)", logger: logger)
                .collect().first.map { try $0.makeRandomAccess()["value"].decode(Data.self) }
        }
    }

    public func setSecret(named name: String, to value: Data) async throws(StorageError) {
        try await run {
            try await client.query(
                """
                INSERT INTO secrets (name, value) VALUES (\(name), \(value))
                ON CONFLICT (name) DO UPDATE SET value = excluded.value
                """,
                logger: logger
            )
        }
    }

    // MARK: Apps

    public func insertApp(_ app: AppRecord) async throws(StorageError) {
        let settings = try ServerSchema.encode(app.settings)
        let authentication = try ServerSchema.encode(authentication: app.authentication)
        try await transaction { connection in
            try await connection.query(
                """
                INSERT INTO apps (id, name, minimum_version, settings, authentication, created_at)
                VALUES (\(app.id), \(app.name), \(app.minimumVersion), \(settings), \(authentication),
                    \(app.createdAt.milliseconds))
                """,
                logger: self.logger
            )
            try await Self.replaceDomains(of: app, on: connection, logger: self.logger)
        }
    }

    public func updateApp(_ app: AppRecord) async throws(StorageError) {
        let settings = try ServerSchema.encode(app.settings)
        let authentication = try ServerSchema.encode(authentication: app.authentication)
        try await transaction { connection in
            try await connection.query(
                """
                UPDATE apps SET name = \(app.name), minimum_version = \(app.minimumVersion), settings = \(settings),
                    authentication = \(authentication)
                WHERE id = \(app.id)
                """,
                logger: self.logger
            )
            try await Self.replaceDomains(of: app, on: connection, logger: self.logger)
        }
    }

    private static func replaceDomains(
        of app: AppRecord,
        on connection: PostgresConnection,
        logger: Logger
    ) async throws {
        try await connection.query("DELETE FROM app_domains WHERE app_id = \(app.id)", logger: logger)
        for domain in app.emailDomains {
            try await connection.query(
                "INSERT INTO app_domains (domain, app_id) VALUES (\(domain), \(app.id))",
                logger: logger
            )
        }
    }

    public func app(id: String) async throws(StorageError) -> AppRecord? {
        try await fetchApps("\(unescaped: ServerSchema.appColumns) WHERE id = \(id)").first
    }

    public func apps() async throws(StorageError) -> [AppRecord] {
        try await fetchApps("\(unescaped: ServerSchema.appColumns) ORDER BY id")
    }

    public func app(forEmailDomain domain: String) async throws(StorageError) -> AppRecord? {
        try await fetchApps(
            """
            \(unescaped: ServerSchema.appColumns)
            WHERE id = (SELECT app_id FROM app_domains WHERE domain = \(domain))
            """
        ).first
    }

    private func fetchApps(_ query: PostgresQuery) async throws(StorageError) -> [AppRecord] {
        try await run {
            var apps: [AppRecord] = []
            for row in try await client.query(query, logger: logger).collect() {
                let cells = row.makeRandomAccess()
                let id = try cells["id"].decode(String.self)
                var domains: [String] = []
                for domainRow in try await client.query(
                    "SELECT domain FROM app_domains WHERE app_id = \(id) ORDER BY domain",
                    logger: logger
                ).collect() {
                    domains.append(try domainRow.makeRandomAccess()["domain"].decode(String.self))
                }
                apps.append(
                    AppRecord(
                        id: id,
                        name: try cells["name"].decode(String.self),
                        emailDomains: domains,
                        minimumVersion: try cells["minimum_version"].decode(String?.self),
                        settings: try ServerSchema.decodeSettings(try cells["settings"].decode(String.self)),
                        authentication: try ServerSchema.decodeAuthentication(
                            try cells["authentication"].decode(String?.self)
                        ),
                        createdAt: Date(milliseconds: try cells["created_at"].decode(Int64.self))
                    )
                )
            }
            return apps
        }
    }

    // MARK: Users

    public func insertUser(_ user: UserRecord) async throws(StorageError) {
        try await run {
            try await client.query(
                """
                INSERT INTO users (username, display_name, password_hash, blocked, created_at)
                VALUES (\(user.username), \(user.displayName), \(user.passwordHash), \(user.blocked), \(user.createdAt.milliseconds))
                """,
                logger: logger
            )
        }
    }

    public func updateUser(_ user: UserRecord) async throws(StorageError) {
        try await run {
            try await client.query(
                """
                UPDATE users SET display_name = \(user.displayName), password_hash = \(user.passwordHash),
                    blocked = \(user.blocked) WHERE username = \(user.username)
                """,
                logger: logger
            )
        }
    }

    public func user(named username: String) async throws(StorageError) -> UserRecord? {
        try await fetchUsers(
            "SELECT username, display_name, password_hash, blocked, created_at FROM users WHERE username = \(username)"
        ).first
    }

    public func users() async throws(StorageError) -> [UserRecord] {
        try await fetchUsers(
            "SELECT username, display_name, password_hash, blocked, created_at FROM users ORDER BY username"
        )
    }

    private func fetchUsers(_ query: PostgresQuery) async throws(StorageError) -> [UserRecord] {
        try await run {
            try await client.query(query, logger: logger).collect().map { row in
                let cells = row.makeRandomAccess()
                return UserRecord(
                    username: try cells["username"].decode(String.self),
                    displayName: try cells["display_name"].decode(String.self),
                    passwordHash: try cells["password_hash"].decode(String.self),
                    blocked: try cells["blocked"].decode(Bool.self),
                    createdAt: Date(milliseconds: try cells["created_at"].decode(Int64.self))
                )
            }
        }
    }

    // MARK: Sessions

    public func insertSession(_ session: SessionRecord) async throws(StorageError) {
        try await run {
            try await client.query(
                """
                INSERT INTO sessions (token_hash, app_id, username, device_id, created_at, expires_at, revoked)
                VALUES (\(session.tokenHash), \(session.appID), \(session.username), \(session.deviceID),
                    \(session.createdAt.milliseconds), \(session.expiresAt.milliseconds), \(session.revoked))
                """,
                logger: logger
            )
        }
    }

    public func session(tokenHash: Data) async throws(StorageError) -> SessionRecord? {
        try await run {
            try await client.query(
                """
                SELECT token_hash, app_id, username, device_id, created_at, expires_at, revoked
                FROM sessions WHERE token_hash = \(tokenHash)
                """,
                logger: logger
            ).collect().first.map { row in
                let cells = row.makeRandomAccess()
                return SessionRecord(
                    tokenHash: try cells["token_hash"].decode(Data.self),
                    appID: try cells["app_id"].decode(String.self),
                    username: try cells["username"].decode(String.self),
                    deviceID: try cells["device_id"].decode(String.self),
                    createdAt: Date(milliseconds: try cells["created_at"].decode(Int64.self)),
                    expiresAt: Date(milliseconds: try cells["expires_at"].decode(Int64.self)),
                    revoked: try cells["revoked"].decode(Bool.self)
                )
            }
        }
    }

    public func revokeSession(tokenHash: Data) async throws(StorageError) {
        try await run {
            try await client.query("UPDATE sessions SET revoked = TRUE WHERE token_hash = \(tokenHash)", logger: logger)
        }
    }

    public func revokeSessions(username: String, appID: String?, deviceID: String?) async throws(StorageError) {
        try await transaction { connection in
            for table in ["sessions", "refresh_tokens"] {
                try await connection.query(
                    """
                    UPDATE \(unescaped: table) SET revoked = TRUE
                    WHERE username = \(username) AND (\(appID)::text IS NULL OR app_id = \(appID))
                        AND (\(deviceID)::text IS NULL OR device_id = \(deviceID))
                    """,
                    logger: self.logger
                )
            }
        }
    }

    // MARK: OAuth

    public func insertDeviceGrant(_ grant: DeviceGrantRecord) async throws(StorageError) {
        try await run {
            try await client.query(
                """
                INSERT INTO oauth_device_grants (device_code_hash, user_code, app_id, device_id, created_at,
                    expires_at, interval_seconds, last_polled_at, status, username)
                VALUES (\(grant.deviceCodeHash), \(grant.userCode), \(grant.appID), \(grant.deviceID),
                    \(grant.createdAt.milliseconds), \(grant.expiresAt.milliseconds), \(grant.interval),
                    \(grant.lastPolledAt?.milliseconds), \(grant.status.rawValue), \(grant.username))
                """,
                logger: logger
            )
        }
    }

    public func deviceGrant(deviceCodeHash: Data) async throws(StorageError) -> DeviceGrantRecord? {
        try await fetchDeviceGrant { try "\(unescaped: Self.grantColumns) WHERE device_code_hash = \(deviceCodeHash)" }
    }

    public func deviceGrant(userCode: String) async throws(StorageError) -> DeviceGrantRecord? {
        try await fetchDeviceGrant { "\(unescaped: Self.grantColumns) WHERE user_code = \(userCode)" }
    }

    private static let grantColumns = """
        SELECT device_code_hash, user_code, app_id, device_id, created_at, expires_at, interval_seconds,
            last_polled_at, status, username FROM oauth_device_grants
        """

    private func fetchDeviceGrant(
        _ query: () throws -> PostgresQuery
    ) async throws(StorageError) -> DeviceGrantRecord? {
        try await run {
            guard let row = try await client.query(try query(), logger: logger).collect().first else { return nil }
            let cells = row.makeRandomAccess()
            return DeviceGrantRecord(
                deviceCodeHash: try cells["device_code_hash"].decode(Data.self),
                userCode: try cells["user_code"].decode(String.self),
                appID: try cells["app_id"].decode(String.self),
                deviceID: try cells["device_id"].decode(String.self),
                createdAt: Date(milliseconds: try cells["created_at"].decode(Int64.self)),
                expiresAt: Date(milliseconds: try cells["expires_at"].decode(Int64.self)),
                interval: Int(try cells["interval_seconds"].decode(Int32.self)),
                lastPolledAt: try cells["last_polled_at"].decode(Int64?.self).map(Date.init(milliseconds:)),
                status: try ServerSchema.grantStatus(try cells["status"].decode(String.self)),
                username: try cells["username"].decode(String?.self)
            )
        }
    }

    public func updateDeviceGrant(
        _ grant: DeviceGrantRecord,
        expecting expected: DeviceGrantRecord.Status
    ) async throws(StorageError) -> Bool {
        try await run {
            try await client.query(
                """
                UPDATE oauth_device_grants SET interval_seconds = \(grant.interval),
                    last_polled_at = \(grant.lastPolledAt?.milliseconds), status = \(grant.status.rawValue),
                    username = \(grant.username)
                WHERE device_code_hash = \(grant.deviceCodeHash) AND status = \(expected.rawValue)
                RETURNING status
                """,
                logger: logger
            ).collect().count == 1
        }
    }

    public func insertAuthorizationCode(_ code: AuthorizationCodeRecord) async throws(StorageError) {
        try await run {
            try await client.query(
                """
                INSERT INTO oauth_authorization_codes (code_hash, app_id, username, device_id, redirect_uri,
                    code_challenge, nonce, created_at, expires_at, redeemed_at, family_id)
                VALUES (\(code.codeHash), \(code.appID), \(code.username), \(code.deviceID), \(code.redirectURI),
                    \(code.codeChallenge), \(code.nonce), \(code.createdAt.milliseconds),
                    \(code.expiresAt.milliseconds), \(code.redeemedAt?.milliseconds), \(code.familyID))
                """,
                logger: logger
            )
        }
    }

    public func authorizationCode(codeHash: Data) async throws(StorageError) -> AuthorizationCodeRecord? {
        try await run {
            let query: PostgresQuery = try """
            SELECT code_hash, app_id, username, device_id, redirect_uri, code_challenge, nonce, created_at,
                expires_at, redeemed_at, family_id FROM oauth_authorization_codes WHERE code_hash = \(codeHash)
            """
            guard let row = try await client.query(query, logger: logger).collect().first else { return nil }
            let cells = row.makeRandomAccess()
            return AuthorizationCodeRecord(
                codeHash: try cells["code_hash"].decode(Data.self),
                appID: try cells["app_id"].decode(String.self),
                username: try cells["username"].decode(String.self),
                deviceID: try cells["device_id"].decode(String.self),
                redirectURI: try cells["redirect_uri"].decode(String.self),
                codeChallenge: try cells["code_challenge"].decode(String.self),
                nonce: try cells["nonce"].decode(String?.self),
                createdAt: Date(milliseconds: try cells["created_at"].decode(Int64.self)),
                expiresAt: Date(milliseconds: try cells["expires_at"].decode(Int64.self)),
                redeemedAt: try cells["redeemed_at"].decode(Int64?.self).map(Date.init(milliseconds:)),
                familyID: try cells["family_id"].decode(String?.self)
            )
        }
    }

    public func redeemAuthorizationCode(
        codeHash: Data,
        familyID: String,
        at date: Date
    ) async throws(StorageError) -> Bool {
        try await run {
            try await client.query(
                """
                UPDATE oauth_authorization_codes SET redeemed_at = \(date.milliseconds), family_id = \(familyID)
                WHERE code_hash = \(codeHash) AND redeemed_at IS NULL
                RETURNING code_hash
                """,
                logger: logger
            ).collect().count == 1
        }
    }

    public func insertRefreshToken(_ token: RefreshTokenRecord) async throws(StorageError) -> Bool {
        try await transaction { connection in
            // The family's lock, which a revocation takes too: the check below sees any
            // revocation that went first, and a later one sees this token.
            try await Self.lockRefreshFamily(token.familyID, on: connection, logger: self.logger)
            let revoked = try await connection.query(
                "SELECT 1 FROM refresh_tokens WHERE family_id = \(token.familyID) AND revoked LIMIT 1",
                logger: self.logger
            ).collect()
            guard revoked.isEmpty else { return false }
            try await connection.query(
                """
                INSERT INTO refresh_tokens (token_hash, family_id, app_id, username, device_id, session_hash,
                    created_at, expires_at, used_at, revoked)
                VALUES (\(token.tokenHash), \(token.familyID), \(token.appID), \(token.username), \(token.deviceID),
                    \(token.sessionHash), \(token.createdAt.milliseconds), \(token.expiresAt.milliseconds),
                    \(token.usedAt?.milliseconds), \(token.revoked))
                """,
                logger: self.logger
            )
            return true
        }
    }

    /// Holds a transaction-scoped lock on a refresh token family until the transaction
    /// ends: joining a family and revoking it never interleave.
    private static func lockRefreshFamily(
        _ familyID: String,
        on connection: PostgresConnection,
        logger: Logger
    ) async throws {
        try await connection.query(
            "SELECT pg_advisory_xact_lock(hashtextextended(\("refresh-family:" + familyID), 0))",
            logger: logger
        )
    }

    public func refreshToken(tokenHash: Data) async throws(StorageError) -> RefreshTokenRecord? {
        try await run {
            guard
                let row = try await client.query(
                    """
                    SELECT family_id, app_id, username, device_id, session_hash, created_at, expires_at, used_at,
                        revoked FROM refresh_tokens WHERE token_hash = \(tokenHash)
                    """,
                    logger: logger
                ).collect().first
            else { return nil }
            let cells = row.makeRandomAccess()
            return RefreshTokenRecord(
                tokenHash: tokenHash,
                familyID: try cells["family_id"].decode(String.self),
                appID: try cells["app_id"].decode(String.self),
                username: try cells["username"].decode(String.self),
                deviceID: try cells["device_id"].decode(String.self),
                sessionHash: try cells["session_hash"].decode(Data.self),
                createdAt: Date(milliseconds: try cells["created_at"].decode(Int64.self)),
                expiresAt: Date(milliseconds: try cells["expires_at"].decode(Int64.self)),
                usedAt: try cells["used_at"].decode(Int64?.self).map(Date.init(milliseconds:)),
                revoked: try cells["revoked"].decode(Bool.self)
            )
        }
    }

    public func spendRefreshToken(tokenHash: Data, at date: Date) async throws(StorageError) -> Bool {
        try await run {
            try await client.query(
                """
                UPDATE refresh_tokens SET used_at = \(date.milliseconds)
                WHERE token_hash = \(tokenHash) AND used_at IS NULL AND NOT revoked
                RETURNING family_id
                """,
                logger: logger
            ).collect().count == 1
        }
    }

    @discardableResult
    public func purgeExpired(at now: Date) async throws(StorageError) -> Int {
        try await run {
            var deleted = 0
            for (sql, cutoff) in ExpiringRows.statements(at: now) {
                var binds = PostgresBindings()
                binds.append(cutoff)
                let query = PostgresQuery(
                    unsafeSQL: sql.replacingOccurrences(of: "?", with: "$1") + " RETURNING 1",
                    binds: binds
                )
                for try await _ in try await client.query(query, logger: logger) { deleted += 1 }
            }
            return deleted
        }
    }

    public func revokeRefreshFamily(_ familyID: String) async throws(StorageError) {
        try await transaction { connection in
            try await Self.lockRefreshFamily(familyID, on: connection, logger: self.logger)
            try await connection.query(
                """
                UPDATE sessions SET revoked = TRUE
                WHERE token_hash IN (SELECT session_hash FROM refresh_tokens WHERE family_id = \(familyID))
                """,
                logger: self.logger
            )
            try await connection.query(
                "UPDATE refresh_tokens SET revoked = TRUE WHERE family_id = \(familyID)",
                logger: self.logger
            )
        }
    }

    // MARK: Federation

    public func insertIdentityLink(_ link: IdentityLinkRecord) async throws(StorageError) {
        try await run {
            try await client.query(
                """
                INSERT INTO identity_links (issuer, subject, username, created_at)
                VALUES (\(link.issuer), \(link.subject), \(link.username), \(link.createdAt.milliseconds))
                """,
                logger: logger
            )
        }
    }

    public func identityLink(issuer: String, subject: String) async throws(StorageError) -> IdentityLinkRecord? {
        try await run {
            try await client.query(
                """
                SELECT issuer, subject, username, created_at FROM identity_links
                WHERE issuer = \(issuer) AND subject = \(subject)
                """,
                logger: logger
            ).collect().first.map(Self.identityLink)
        }
    }

    public func identityLinks(username: String) async throws(StorageError) -> [IdentityLinkRecord] {
        try await run {
            try await client.query(
                """
                SELECT issuer, subject, username, created_at FROM identity_links
                WHERE username = \(username) ORDER BY issuer, subject
                """,
                logger: logger
            ).collect().map(Self.identityLink)
        }
    }

    private static func identityLink(_ row: PostgresRow) throws -> IdentityLinkRecord {
        let cells = row.makeRandomAccess()
        return IdentityLinkRecord(
            issuer: try cells["issuer"].decode(String.self),
            subject: try cells["subject"].decode(String.self),
            username: try cells["username"].decode(String.self),
            createdAt: Date(milliseconds: try cells["created_at"].decode(Int64.self))
        )
    }

    public func deleteIdentityLink(
        issuer: String,
        subject: String,
        username: String
    ) async throws(StorageError) -> Bool {
        try await run {
            try await client.query(
                """
                DELETE FROM identity_links WHERE issuer = \(issuer) AND subject = \(subject)
                    AND username = \(username)
                RETURNING subject
                """,
                logger: logger
            ).collect().count == 1
        }
    }

    public func insertFederatedSignIn(_ signIn: FederatedSignInRecord) async throws(StorageError) {
        try await transaction { connection in
            try await connection.query(
                """
                INSERT INTO federated_sign_ins (state_hash, app_id, browser_hash, nonce, code_verifier, origin,
                    created_at, expires_at)
                VALUES (\(signIn.stateHash), \(signIn.appID), \(signIn.browserHash), \(signIn.nonce),
                    \(signIn.codeVerifier), \(signIn.origin), \(signIn.createdAt.milliseconds),
                    \(signIn.expiresAt.milliseconds))
                """,
                logger: self.logger
            )
            // Sign-ins nobody finished are of no use past their end.
            try await connection.query(
                "DELETE FROM federated_sign_ins WHERE expires_at < \(signIn.createdAt.milliseconds)",
                logger: self.logger
            )
        }
    }

    public func takeFederatedSignIn(stateHash: Data) async throws(StorageError) -> FederatedSignInRecord? {
        try await run {
            let query: PostgresQuery = try """
            DELETE FROM federated_sign_ins WHERE state_hash = \(stateHash)
            RETURNING state_hash, app_id, browser_hash, nonce, code_verifier, origin, created_at, expires_at
            """
            guard let row = try await client.query(query, logger: logger).collect().first else { return nil }
            let cells = row.makeRandomAccess()
            return FederatedSignInRecord(
                stateHash: try cells["state_hash"].decode(Data.self),
                appID: try cells["app_id"].decode(String.self),
                browserHash: try cells["browser_hash"].decode(Data.self),
                nonce: try cells["nonce"].decode(String.self),
                codeVerifier: try cells["code_verifier"].decode(String.self),
                origin: try cells["origin"].decode(String.self),
                createdAt: Date(milliseconds: try cells["created_at"].decode(Int64.self)),
                expiresAt: Date(milliseconds: try cells["expires_at"].decode(Int64.self))
            )
        }
    }

    public func insertProviderGrant(_ grant: ProviderGrantRecord) async throws(StorageError) {
        try await run {
            try await client.query(
                """
                INSERT INTO provider_grants (origin_hash, family_id, app_id, username, issuer,
                    sealed_refresh_token, access_expires_at, created_at)
                VALUES (\(grant.originHash), \(grant.familyID), \(grant.appID), \(grant.username),
                    \(grant.issuer), \(grant.sealedRefreshToken), \(grant.accessExpiresAt.milliseconds),
                    \(grant.createdAt.milliseconds))
                """,
                logger: logger
            )
        }
    }

    public func bindProviderGrant(originHash: Data, familyID: String) async throws(StorageError) {
        try await run {
            try await client.query(
                """
                UPDATE provider_grants SET family_id = \(familyID)
                WHERE origin_hash = \(originHash) AND family_id IS NULL
                """,
                logger: logger
            )
        }
    }

    public func providerGrant(familyID: String) async throws(StorageError) -> ProviderGrantRecord? {
        try await run {
            guard
                let row = try await client.query(
                    """
                    SELECT origin_hash, family_id, app_id, username, issuer, sealed_refresh_token,
                        access_expires_at, created_at FROM provider_grants WHERE family_id = \(familyID)
                    """,
                    logger: logger
                ).collect().first
            else { return nil }
            let cells = row.makeRandomAccess()
            return ProviderGrantRecord(
                originHash: try cells["origin_hash"].decode(Data.self),
                familyID: try cells["family_id"].decode(String?.self),
                appID: try cells["app_id"].decode(String.self),
                username: try cells["username"].decode(String.self),
                issuer: try cells["issuer"].decode(String.self),
                sealedRefreshToken: try cells["sealed_refresh_token"].decode(Data?.self),
                accessExpiresAt: Date(milliseconds: try cells["access_expires_at"].decode(Int64.self)),
                createdAt: Date(milliseconds: try cells["created_at"].decode(Int64.self))
            )
        }
    }

    public func updateProviderGrant(_ grant: ProviderGrantRecord) async throws(StorageError) {
        try await run {
            try await client.query(
                """
                UPDATE provider_grants SET sealed_refresh_token = \(grant.sealedRefreshToken),
                    access_expires_at = \(grant.accessExpiresAt.milliseconds)
                WHERE origin_hash = \(grant.originHash)
                """,
                logger: logger
            )
        }
    }

    // MARK: Sign-in attempts

    public func updateSignInAttempts<Result: Sendable>(
        username: String,
        keys: [String],
        _ update: @escaping @Sendable ([String: SignInAttempts]) -> (SignInAttemptsChange, Result)
    ) async throws(StorageError) -> Result {
        try await run {
            try await client.withTransaction(logger: logger) { connection in
                // Every sign-in of one user name, in any process, waits here for the one
                // before it; the lock ends with the transaction.
                try await connection.query(
                    "SELECT pg_advisory_xact_lock(7366838, hashtext(\(username.lowercased())))",
                    logger: self.logger
                )
                var current: [String: SignInAttempts] = [:]
                let rows = try await connection.query(
                    "SELECT key, count, window_start, blocked_until FROM sign_in_attempts WHERE key = ANY(\(keys))",
                    logger: self.logger
                )
                for try await row in rows {
                    let cells = row.makeRandomAccess()
                    let key = try cells["key"].decode(String.self)
                    current[key] = SignInAttempts(
                        key: key,
                        count: try cells["count"].decode(Int.self),
                        windowStart: Date(milliseconds: try cells["window_start"].decode(Int64.self)),
                        blockedUntil: try cells["blocked_until"].decode(Int64?.self).map(Date.init(milliseconds:))
                    )
                }
                let (change, result) = update(current)
                for attempts in change.save {
                    try await connection.query(
                        """
                        INSERT INTO sign_in_attempts (key, count, window_start, blocked_until)
                        VALUES (\(attempts.key), \(attempts.count), \(attempts.windowStart.milliseconds),
                            \(attempts.blockedUntil?.milliseconds))
                        ON CONFLICT (key) DO UPDATE SET count = excluded.count,
                            window_start = excluded.window_start, blocked_until = excluded.blocked_until
                        """,
                        logger: self.logger
                    )
                }
                if !change.clear.isEmpty {
                    try await connection.query(
                        "DELETE FROM sign_in_attempts WHERE key = ANY(\(change.clear))",
                        logger: self.logger
                    )
                }
                return result
            }
        }
    }

    public func insertDeviceCookie(_ cookie: DeviceCookieRecord) async throws(StorageError) {
        try await run {
            try await client.query(
                """
                INSERT INTO device_cookies (token_hash, username, created_at)
                VALUES (\(cookie.tokenHash), \(cookie.username), \(cookie.createdAt.milliseconds))
                """,
                logger: logger
            )
        }
    }

    public func deviceCookie(tokenHash: Data) async throws(StorageError) -> DeviceCookieRecord? {
        try await run {
            try await client.query(
                "SELECT username, created_at FROM device_cookies WHERE token_hash = \(tokenHash)",
                logger: logger
            ).collect().first.map { row in
                let cells = row.makeRandomAccess()
                return DeviceCookieRecord(
                    tokenHash: tokenHash,
                    username: try cells["username"].decode(String.self),
                    createdAt: Date(milliseconds: try cells["created_at"].decode(Int64.self))
                )
            }
        }
    }

    // MARK: Devices

    private static let deviceColumns = """
        SELECT registration_id, app_id, username, device_id, device_name, platform, app_version, status,
            status_changed_at, recovery_secret, registered_at, last_contact_at, change_key FROM devices
        """

    public func device(appID: String, username: String, deviceID: String) async throws(StorageError) -> DeviceRecord? {
        try await fetchDevices(
            """
            \(unescaped: Self.deviceColumns)
            WHERE app_id = \(appID) AND username = \(username) AND device_id = \(deviceID)
            """
        ).first
    }

    public func device(appID: String, registrationID: String) async throws(StorageError) -> DeviceRecord? {
        try await fetchDevices(
            "\(unescaped: Self.deviceColumns) WHERE app_id = \(appID) AND registration_id = \(registrationID)"
        ).first
    }

    public func devices(appID: String) async throws(StorageError) -> [DeviceRecord] {
        try await fetchDevices(
            "\(unescaped: Self.deviceColumns) WHERE app_id = \(appID) ORDER BY registered_at, registration_id"
        )
    }

    public func devices(username: String) async throws(StorageError) -> [DeviceRecord] {
        try await fetchDevices(
            "\(unescaped: Self.deviceColumns) WHERE username = \(username) ORDER BY registered_at, registration_id"
        )
    }

    public func saveDevice(_ device: DeviceRecord) async throws(StorageError) {
        try await transaction { connection in
            try await connection.query(
                """
                DELETE FROM devices WHERE app_id = \(device.appID) AND username = \(device.username)
                    AND device_id = \(device.deviceID) AND registration_id <> \(device.registrationID)
                """,
                logger: self.logger
            )
            try await connection.query(
                """
                INSERT INTO devices (registration_id, app_id, username, device_id, device_name, platform, app_version,
                    status, status_changed_at, recovery_secret, registered_at, last_contact_at, change_key)
                VALUES (\(device.registrationID), \(device.appID), \(device.username), \(device.deviceID),
                    \(device.deviceName), \(device.platform), \(device.appVersion), \(device.status.rawValue),
                    \(device.statusChangedAt.milliseconds), \(device.recoverySecret), \(device.registeredAt.milliseconds),
                    \(device.lastContactAt?.milliseconds), \(device.changeKey))
                ON CONFLICT (registration_id) DO UPDATE SET device_name = excluded.device_name,
                    platform = excluded.platform, app_version = excluded.app_version, status = excluded.status,
                    status_changed_at = excluded.status_changed_at, recovery_secret = excluded.recovery_secret,
                    last_contact_at = excluded.last_contact_at, change_key = excluded.change_key
                """,
                logger: self.logger
            )
        }
    }

    public func touchDevice(registrationID: String, at date: Date) async throws(StorageError) {
        try await run {
            try await client.query(
                "UPDATE devices SET last_contact_at = \(date.milliseconds) WHERE registration_id = \(registrationID)",
                logger: logger
            )
        }
    }

    private func fetchDevices(_ query: PostgresQuery) async throws(StorageError) -> [DeviceRecord] {
        try await run {
            try await client.query(query, logger: logger).collect().map { row in
                let cells = row.makeRandomAccess()
                guard let status = DeviceStatus(rawValue: try cells["status"].decode(String.self)) else {
                    throw StorageError(.corrupt, "a device registration has an unknown status")
                }
                return DeviceRecord(
                    registrationID: try cells["registration_id"].decode(String.self),
                    appID: try cells["app_id"].decode(String.self),
                    username: try cells["username"].decode(String.self),
                    deviceID: try cells["device_id"].decode(String.self),
                    deviceName: try cells["device_name"].decode(String.self),
                    platform: try cells["platform"].decode(String.self),
                    appVersion: try cells["app_version"].decode(String.self),
                    status: status,
                    statusChangedAt: Date(milliseconds: try cells["status_changed_at"].decode(Int64.self)),
                    recoverySecret: try cells["recovery_secret"].decode(Data.self),
                    registeredAt: Date(milliseconds: try cells["registered_at"].decode(Int64.self)),
                    lastContactAt: try cells["last_contact_at"].decode(Int64?.self).map(Date.init(milliseconds:)),
                    changeKey: try cells["change_key"].decode(Data?.self)
                )
            }
        }
    }

    // MARK: Logs

    public func insertLogs(_ logs: [LogRecord], retention: LogRetention) async throws(StorageError) {
        try await transaction { connection in
            for log in logs {
                try await connection.query(
                    """
                    INSERT INTO logs (app_id, username, device_id, time, level, message, source, received_at)
                    VALUES (\(log.appID), \(log.username), \(log.deviceID), \(log.time.milliseconds), \(log.level),
                        \(log.message), \(log.source), \(log.receivedAt.milliseconds))
                    """,
                    logger: self.logger
                )
            }
            for source in Set(logs.map(LogSource.init)) {
                let (app, user, device) = (source.appID, source.username, source.deviceID)
                try await connection.query(
                    """
                    DELETE FROM logs WHERE app_id = \(app) AND username = \(user) AND device_id = \(device)
                        AND (received_at < \(retention.receivedAfter.milliseconds) OR id <= (
                            SELECT id FROM logs WHERE app_id = \(app) AND username = \(user) AND device_id = \(device)
                            ORDER BY id DESC LIMIT 1 OFFSET \(retention.entriesPerDevice)))
                    """,
                    logger: self.logger
                )
            }
            for (app, user) in Set(logs.map { [$0.appID, $0.username] }).map({ ($0[0], $0[1]) }) {
                try await connection.query(
                    """
                    DELETE FROM logs WHERE app_id = \(app) AND username = \(user) AND id <= (
                        SELECT id FROM logs WHERE app_id = \(app) AND username = \(user)
                        ORDER BY id DESC LIMIT 1 OFFSET \(retention.entriesPerUser))
                    """,
                    logger: self.logger
                )
            }
            for app in Set(logs.map(\.appID)) {
                try await connection.query(
                    """
                    DELETE FROM logs WHERE app_id = \(app) AND id <= (
                        SELECT id FROM logs WHERE app_id = \(app) ORDER BY id DESC LIMIT 1 OFFSET \(retention.entriesPerApp))
                    """,
                    logger: self.logger
                )
            }
        }
    }

    public func logs(appID: String, limit: Int) async throws(StorageError) -> [LogRecord] {
        try await run {
            try await client.query(
                """
                SELECT app_id, username, device_id, time, level, message, source, received_at
                FROM logs WHERE app_id = \(appID) ORDER BY id DESC LIMIT \(limit)
                """,
                logger: logger
            ).collect().map { row in
                let cells = row.makeRandomAccess()
                return LogRecord(
                    appID: try cells["app_id"].decode(String.self),
                    username: try cells["username"].decode(String.self),
                    deviceID: try cells["device_id"].decode(String.self),
                    time: Date(milliseconds: try cells["time"].decode(Int64.self)),
                    level: try cells["level"].decode(String.self),
                    message: try cells["message"].decode(String.self),
                    source: try cells["source"].decode(String?.self),
                    receivedAt: Date(milliseconds: try cells["received_at"].decode(Int64.self))
                )
            }
        }
    }

    // MARK: Entities

    public func entities(appID: String, entitySet: String) async throws(StorageError) -> [EntityRecord] {
        let rows = try await run {
            try await client.query(
                """
                SELECT app_id, entity_set, id, fields, version, updated_at, updated_by, field_versions
                FROM entities WHERE app_id = \(appID) AND entity_set = \(entitySet) ORDER BY id
                """,
                logger: logger
            ).collect()
        }
        var entities: [EntityRecord] = []
        for row in rows { entities.append(try Self.entity(row)) }
        return entities
    }

    public func putEntity(
        _ entity: EntityRecord,
        limit: Int
    ) async throws(StorageError) -> (EntityRecord, created: Bool) {
        let fields = ServerSchema.encode(fields: entity.fields)
        var saved = entity
        var created = false
        try await transaction { connection in
            // Writers of one set take turns, so the count and the version are current.
            try await connection.query(
                "SELECT pg_advisory_xact_lock(hashtext(\(entity.appID + "/" + entity.entitySet)))",
                logger: self.logger
            )
            let previous = try await Self.storedEntity(
                connection,
                appID: entity.appID,
                entitySet: entity.entitySet,
                id: entity.id,
                logger: self.logger
            )
            let stored = previous?.version
            if stored == nil {
                let count = try await Self.entityCount(
                    connection,
                    appID: entity.appID,
                    entitySet: entity.entitySet,
                    logger: self.logger
                )
                guard count < limit else { throw StorageError(.limitReached, "the entity set is full") }
            }
            saved.version = (stored ?? 0) + 1
            saved.fieldVersions = EntityRecord.fieldVersions(
                replacing: previous,
                with: entity.fields,
                at: saved.version
            )
            created = stored == nil
            try await Self.saveEntity(saved, fields: fields, connection, logger: self.logger)
        }
        return (saved, created)
    }

    public func deleteEntity(appID: String, entitySet: String, id: String) async throws(StorageError) -> Bool {
        try await run {
            try await client.query(
                """
                DELETE FROM entities WHERE app_id = \(appID) AND entity_set = \(entitySet) AND id = \(id)
                RETURNING id
                """,
                logger: logger
            ).collect().isEmpty == false
        }
    }

    public func changes(
        appID: String,
        outcome: ChangeResult.Outcome?,
        limit: Int
    ) async throws(StorageError) -> [RecordedChange] {
        let rows = try await run {
            try await client.query(
                """
                \(unescaped: ServerSchema.changeColumns)
                WHERE app_id = \(appID) AND (\(outcome?.rawValue)::TEXT IS NULL OR outcome = \(outcome?.rawValue))
                ORDER BY position DESC LIMIT \(limit)
                """,
                logger: logger
            ).collect()
        }
        var changes: [RecordedChange] = []
        for row in rows {
            let cells = row.makeRandomAccess()
            let columns: (String, String, String, String, String, String, String, Int64)
            do {
                columns = (
                    try cells["app_id"].decode(String.self), try cells["registration_id"].decode(String.self),
                    try cells["author"].decode(String.self), try cells["carrier"].decode(String.self),
                    try cells["entity_set"].decode(String.self), try cells["entity_id"].decode(String.self),
                    try cells["result"].decode(String.self), try cells["received_at"].decode(Int64.self)
                )
            } catch {
                throw StorageError(.corrupt, "a recorded change cannot be read")
            }
            changes.append(
                try ServerSchema.recordedChange(
                    appID: columns.0,
                    registrationID: columns.1,
                    author: columns.2,
                    carrier: columns.3,
                    entitySet: columns.4,
                    entityID: columns.5,
                    result: columns.6,
                    receivedAt: columns.7
                )
            )
        }
        return changes
    }

    private static func storedEntity(
        _ connection: PostgresConnection,
        appID: String,
        entitySet: String,
        id: String,
        logger: Logger
    ) async throws -> EntityRecord? {
        let rows = try await connection.query(
            """
            SELECT app_id, entity_set, id, fields, version, updated_at, updated_by, field_versions
            FROM entities WHERE app_id = \(appID) AND entity_set = \(entitySet) AND id = \(id)
            """,
            logger: logger
        ).collect()
        return try rows.first.map { row throws(StorageError) in try entity(row) }
    }

    private static func entityCount(
        _ connection: PostgresConnection,
        appID: String,
        entitySet: String,
        logger: Logger
    ) async throws -> Int64 {
        try await connection.query(
            "SELECT COUNT(*) AS count FROM entities WHERE app_id = \(appID) AND entity_set = \(entitySet)",
            logger: logger
        ).collect().first.map { try $0.makeRandomAccess()["count"].decode(Int64.self) } ?? 0
    }

    private static func saveEntity(
        _ saved: EntityRecord,
        fields: String,
        _ connection: PostgresConnection,
        logger: Logger
    ) async throws {
        let versions = ServerSchema.encode(fieldVersions: saved.fieldVersions)
        try await connection.query(
            """
            INSERT INTO entities (app_id, entity_set, id, fields, version, updated_at, updated_by, field_versions,
                created_by)
            VALUES (\(saved.appID), \(saved.entitySet), \(saved.id), \(fields), \(saved.version),
                \(saved.updatedAt.milliseconds), \(saved.updatedBy), \(versions), \(saved.updatedBy))
            ON CONFLICT (app_id, entity_set, id) DO UPDATE SET fields = excluded.fields,
                version = excluded.version, updated_at = excluded.updated_at, updated_by = excluded.updated_by,
                field_versions = excluded.field_versions
            """,
            logger: logger
        )
    }

    public func applyChanges(
        _ batch: [ChangeApplication],
        limit: Int,
        decide: @escaping @Sendable (Change, EntityState?) throws(ChangeRejection) -> FieldMerge.Outcome
    ) async throws(StorageError) -> [ChangeResult] {
        var results: [ChangeResult] = []
        try await transaction { connection in
            results = []
            try await Self.lockForChanges(batch, connection, logger: self.logger)
            for application in batch {
                results.append(
                    try await Self.apply(application, limit: limit, decide: decide, connection, logger: self.logger)
                )
            }
        }
        guard results.count == batch.count else { throw StorageError(.unavailable, "the changes were not ended") }
        return results
    }

    /// Makes the batch's registrations, then the writers of its entity sets, take turns
    /// with every other transaction that changes them: the change IDs, the sequences,
    /// the counts and the versions are current. Each kind of lock is taken in ascending
    /// order of its key, registrations first, so two transactions never wait for each
    /// other.
    private static func lockForChanges(
        _ batch: [ChangeApplication],
        _ connection: PostgresConnection,
        logger: Logger
    ) async throws {
        let registrations = Set(batch.map(\.change.registrationID))
        for key in try await orderedLockKeys(registrations, connection, logger: logger) {
            try await connection.query("SELECT pg_advisory_xact_lock(7366839, \(key))", logger: logger)
        }
        let sets = Set(batch.map { $0.appID + "/" + $0.change.entitySet })
        for key in try await orderedLockKeys(sets, connection, logger: logger) {
            try await connection.query("SELECT pg_advisory_xact_lock(\(Int64(key)))", logger: logger)
        }
    }

    /// The advisory-lock keys of `texts` (their `hashtext`), each once, in ascending order.
    private static func orderedLockKeys(
        _ texts: Set<String>,
        _ connection: PostgresConnection,
        logger: Logger
    ) async throws -> [Int32] {
        try await connection.query(
            "SELECT DISTINCT hashtext(key) AS lock FROM unnest(\(Array(texts))::text[]) AS key ORDER BY lock",
            logger: logger
        ).collect().map { try $0.makeRandomAccess()["lock"].decode(Int32.self) }
    }

    private static func apply(
        _ application: ChangeApplication,
        limit: Int,
        decide: (Change, EntityState?) throws(ChangeRejection) -> FieldMerge.Outcome,
        _ connection: PostgresConnection,
        logger: Logger
    ) async throws -> ChangeResult {
        let change = application.change
        let changeID = change.id.lowercasedText
        let first = try await connection.query(
            "SELECT result FROM changes WHERE change_id = \(changeID)",
            logger: logger
        ).collect().first.map { try $0.makeRandomAccess()["result"].decode(String.self) }
        if let first {
            return try ServerSchema.decodeResult(first).asDuplicate
        }
        let reused =
            try await connection.query(
                """
                SELECT COUNT(*) AS count FROM changes
                WHERE registration_id = \(change.registrationID) AND sequence = \(change.sequence)
                """,
                logger: logger
            ).collect().first.map { try $0.makeRandomAccess()["count"].decode(Int64.self) } ?? 0 > 0
        let previous = try await storedEntity(
            connection,
            appID: application.appID,
            entitySet: change.entitySet,
            id: change.entityID,
            logger: logger
        )
        var creations: (inSet: Int, byAuthor: Int) = (0, 0)
        if previous == nil {
            let inSet = try await entityCount(
                connection,
                appID: application.appID,
                entitySet: change.entitySet,
                logger: logger
            )
            let byAuthor =
                try await connection.query(
                    """
                    SELECT COUNT(*) AS count FROM entities WHERE app_id = \(application.appID)
                        AND entity_set = \(change.entitySet) AND created_by = \(change.author)
                    """,
                    logger: logger
                ).collect().first.map { try $0.makeRandomAccess()["count"].decode(Int64.self) } ?? 0
            creations = (Int(inSet), Int(byAuthor))
        }
        let decision = try ChangeDecision.make(
            application,
            previous: previous,
            sequenceReused: reused,
            limit: limit,
            creations: { creations },
            decide: decide
        )
        if let saved = decision.entity {
            try await saveEntity(
                saved,
                fields: ServerSchema.encode(fields: saved.fields),
                connection,
                logger: logger
            )
        }
        let sequence: Int64? = reused ? nil : change.sequence
        try await connection.query(
            """
            INSERT INTO changes (change_id, app_id, registration_id, sequence, author, carrier, entity_set,
                entity_id, outcome, result, received_at)
            VALUES (\(changeID), \(application.appID), \(change.registrationID), \(sequence),
                \(change.author), \(application.carrier), \(change.entitySet), \(change.entityID),
                \(decision.result.outcome.rawValue), \(try ServerSchema.encode(result: decision.result)),
                \(application.receivedAt.milliseconds))
            """,
            logger: logger
        )
        return decision.result
    }

    private static func entity(_ row: PostgresRow) throws(StorageError) -> EntityRecord {
        let cells = row.makeRandomAccess()
        do {
            return EntityRecord(
                appID: try cells["app_id"].decode(String.self),
                entitySet: try cells["entity_set"].decode(String.self),
                id: try cells["id"].decode(String.self),
                fields: try ServerSchema.decodeFields(try cells["fields"].decode(String.self)),
                version: try cells["version"].decode(Int64.self),
                updatedAt: Date(milliseconds: try cells["updated_at"].decode(Int64.self)),
                updatedBy: try cells["updated_by"].decode(String.self),
                fieldVersions: try ServerSchema.decodeFieldVersions(try cells["field_versions"].decode(String?.self))
            )
        } catch let error as StorageError {
            throw error
        } catch {
            throw StorageError(.corrupt, "a stored entity cannot be read")
        }
    }

    // MARK: Running

    @discardableResult
    private func transaction<Result: Sendable>(
        _ body: (PostgresConnection) async throws -> Result
    ) async throws(StorageError) -> Result {
        try await run { try await client.withTransaction(logger: logger) { connection in try await body(connection) } }
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
