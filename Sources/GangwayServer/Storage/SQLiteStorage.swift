import Foundation
import GRDB
import GangwayProtocol
import ServiceLifecycle

/// ``ServerStorage`` in one SQLite file through GRDB: the embedded default.
///
/// The file is opened in WAL mode with a pool of readers, so reads never wait for a
/// write. One process owns the file; for several processes use ``PostgresStorage``.
public final class SQLiteStorage: ServerStorage {
    public var kind: StorageKind { .sqlite }
    private let pool: DatabasePool

    /// Opens (creating when missing) the database at `path`.
    public init(path: String) throws(StorageError) {
        do {
            var configuration = Configuration()
            configuration.busyMode = .timeout(5)
            pool = try DatabasePool(path: path, configuration: configuration)
        } catch {
            throw StorageError(.unavailable, "cannot open the SQLite database: \(Self.describe(error))")
        }
    }

    public func migrate() async throws(StorageError) {
        var migrator = DatabaseMigrator()
        for migration in ServerSchema.migrations(.sqlite) {
            migrator.registerMigration(migration.name) { db in
                for statement in migration.statements { try db.execute(sql: statement) }
            }
        }
        try await run { try migrator.migrate(pool) }
    }

    /// None: GRDB's pool needs nothing running, and the file closes when the storage is
    /// released.
    public func makeConnectionPool() -> (any Service)? { nil }

    // MARK: Secrets

    public func secret(named name: String, orInsert value: Data) async throws(StorageError) -> Data {
        try await write { db in
            try db.execute(
                sql: "INSERT INTO secrets (name, value) VALUES (?, ?) ON CONFLICT (name) DO NOTHING",
                arguments: [name, value]
            )
            guard let stored = try Data.fetchOne(db, sql: "SELECT value FROM secrets WHERE name = ?", arguments: [name])
            else {
                throw StorageError(.corrupt, "secret \(name) vanished")
            }
            return stored
        }
    }

    public func secret(named name: String) async throws(StorageError) -> Data? {
        try await read { db in try Data.fetchOne(db, sql: "SELECT value FROM secrets WHERE name = ?", arguments: [name])
        }
    }

    public func setSecret(named name: String, to value: Data) async throws(StorageError) {
        try await write { db in
            try db.execute(
                sql:
                    "INSERT INTO secrets (name, value) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET value = excluded.value",
                arguments: [name, value]
            )
        }
    }

    // MARK: Apps

    public func insertApp(_ app: AppRecord) async throws(StorageError) {
        let settings = try ServerSchema.encode(app.settings)
        let authentication = try ServerSchema.encode(authentication: app.authentication)
        try await write { db in
            try db.execute(
                sql: """
                    INSERT INTO apps (id, name, minimum_version, settings, authentication, created_at)
                    VALUES (?, ?, ?, ?, ?, ?)
                    """,
                arguments: [app.id, app.name, app.minimumVersion, settings, authentication, app.createdAt.milliseconds]
            )
            try Self.replaceDomains(of: app, in: db)
        }
    }

    public func updateApp(_ app: AppRecord) async throws(StorageError) {
        let settings = try ServerSchema.encode(app.settings)
        let authentication = try ServerSchema.encode(authentication: app.authentication)
        try await write { db in
            try db.execute(
                sql: "UPDATE apps SET name = ?, minimum_version = ?, settings = ?, authentication = ? WHERE id = ?",
                arguments: [app.name, app.minimumVersion, settings, authentication, app.id]
            )
            try Self.replaceDomains(of: app, in: db)
        }
    }

    private static func replaceDomains(of app: AppRecord, in db: Database) throws {
        try db.execute(sql: "DELETE FROM app_domains WHERE app_id = ?", arguments: [app.id])
        for domain in app.emailDomains {
            try db.execute(sql: "INSERT INTO app_domains (domain, app_id) VALUES (?, ?)", arguments: [domain, app.id])
        }
    }

    public func app(id: String) async throws(StorageError) -> AppRecord? {
        try await read { db in try Self.fetchApps(db, where: "id = ?", [id]).first }
    }

    public func apps() async throws(StorageError) -> [AppRecord] {
        try await read { db in try Self.fetchApps(db, where: "1 = 1", []) }
    }

    public func app(forEmailDomain domain: String) async throws(StorageError) -> AppRecord? {
        try await read { db in
            try Self.fetchApps(db, where: "id = (SELECT app_id FROM app_domains WHERE domain = ?)", [domain]).first
        }
    }

    private static func fetchApps(
        _ db: Database,
        where condition: String,
        _ arguments: StatementArguments
    ) throws -> [AppRecord] {
        let rows = try Row.fetchAll(
            db,
            sql: "\(ServerSchema.appColumns) WHERE \(condition) ORDER BY id",
            arguments: arguments
        )
        return try rows.map { row in
            let id: String = row["id"]
            let domains = try String.fetchAll(
                db,
                sql: "SELECT domain FROM app_domains WHERE app_id = ? ORDER BY domain",
                arguments: [id]
            )
            return AppRecord(
                id: id,
                name: row["name"],
                emailDomains: domains,
                minimumVersion: row["minimum_version"],
                settings: try ServerSchema.decodeSettings(row["settings"]),
                authentication: try ServerSchema.decodeAuthentication(row["authentication"]),
                createdAt: Date(milliseconds: row["created_at"])
            )
        }
    }

    // MARK: Users

    public func insertUser(_ user: UserRecord) async throws(StorageError) {
        try await write { db in
            try db.execute(
                sql:
                    "INSERT INTO users (username, display_name, password_hash, blocked, created_at) VALUES (?, ?, ?, ?, ?)",
                arguments: [
                    user.username, user.displayName, user.passwordHash, user.blocked, user.createdAt.milliseconds,
                ]
            )
        }
    }

    public func updateUser(_ user: UserRecord) async throws(StorageError) {
        try await write { db in
            try db.execute(
                sql: "UPDATE users SET display_name = ?, password_hash = ?, blocked = ? WHERE username = ?",
                arguments: [user.displayName, user.passwordHash, user.blocked, user.username]
            )
        }
    }

    public func user(named username: String) async throws(StorageError) -> UserRecord? {
        try await read { db in try Self.fetchUsers(db, where: "username = ?", [username]).first }
    }

    public func users() async throws(StorageError) -> [UserRecord] {
        try await read { db in try Self.fetchUsers(db, where: "1 = 1", []) }
    }

    private static func fetchUsers(
        _ db: Database,
        where condition: String,
        _ arguments: StatementArguments
    ) throws -> [UserRecord] {
        try Row.fetchAll(
            db,
            sql:
                "SELECT username, display_name, password_hash, blocked, created_at FROM users WHERE \(condition) ORDER BY username",
            arguments: arguments
        ).map { row in
            UserRecord(
                username: row["username"],
                displayName: row["display_name"],
                passwordHash: row["password_hash"],
                blocked: row["blocked"],
                createdAt: Date(milliseconds: row["created_at"])
            )
        }
    }

    // MARK: Sessions

    public func insertSession(_ session: SessionRecord) async throws(StorageError) {
        try await write { db in
            try db.execute(
                sql: """
                    INSERT INTO sessions (token_hash, app_id, username, device_id, created_at, expires_at, revoked)
                    VALUES (?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [
                    session.tokenHash, session.appID, session.username, session.deviceID,
                    session.createdAt.milliseconds, session.expiresAt.milliseconds, session.revoked,
                ]
            )
        }
    }

    public func session(tokenHash: Data) async throws(StorageError) -> SessionRecord? {
        try await read { db in
            try Row.fetchOne(
                db,
                sql: """
                    SELECT token_hash, app_id, username, device_id, created_at, expires_at, revoked
                    FROM sessions WHERE token_hash = ?
                    """,
                arguments: [tokenHash]
            ).map { row in
                SessionRecord(
                    tokenHash: row["token_hash"],
                    appID: row["app_id"],
                    username: row["username"],
                    deviceID: row["device_id"],
                    createdAt: Date(milliseconds: row["created_at"]),
                    expiresAt: Date(milliseconds: row["expires_at"]),
                    revoked: row["revoked"]
                )
            }
        }
    }

    public func revokeSession(tokenHash: Data) async throws(StorageError) {
        try await write { db in
            try db.execute(sql: "UPDATE sessions SET revoked = ? WHERE token_hash = ?", arguments: [true, tokenHash])
        }
    }

    public func revokeSessions(username: String, appID: String?, deviceID: String?) async throws(StorageError) {
        try await write { db in
            try db.execute(
                sql: """
                    UPDATE sessions SET revoked = ?
                    WHERE username = ? AND (? IS NULL OR app_id = ?) AND (? IS NULL OR device_id = ?)
                    """,
                arguments: [true, username, appID, appID, deviceID, deviceID]
            )
            try db.execute(
                sql: """
                    UPDATE refresh_tokens SET revoked = ?
                    WHERE username = ? AND (? IS NULL OR app_id = ?) AND (? IS NULL OR device_id = ?)
                    """,
                arguments: [true, username, appID, appID, deviceID, deviceID]
            )
        }
    }

    // MARK: OAuth

    public func insertDeviceGrant(_ grant: DeviceGrantRecord) async throws(StorageError) {
        try await write { db in
            try db.execute(
                sql: """
                    INSERT INTO oauth_device_grants (device_code_hash, user_code, app_id, device_id, created_at,
                        expires_at, interval_seconds, last_polled_at, status, username)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [
                    grant.deviceCodeHash, grant.userCode, grant.appID, grant.deviceID, grant.createdAt.milliseconds,
                    grant.expiresAt.milliseconds, grant.interval, grant.lastPolledAt?.milliseconds,
                    grant.status.rawValue, grant.username,
                ]
            )
        }
    }

    public func deviceGrant(deviceCodeHash: Data) async throws(StorageError) -> DeviceGrantRecord? {
        try await read { db in try Self.fetchDeviceGrant(db, "device_code_hash = ?", [deviceCodeHash]) }
    }

    public func deviceGrant(userCode: String) async throws(StorageError) -> DeviceGrantRecord? {
        try await read { db in try Self.fetchDeviceGrant(db, "user_code = ?", [userCode]) }
    }

    private static func fetchDeviceGrant(
        _ db: Database,
        _ condition: String,
        _ arguments: StatementArguments
    ) throws -> DeviceGrantRecord? {
        try Row.fetchOne(
            db,
            sql: """
                SELECT device_code_hash, user_code, app_id, device_id, created_at, expires_at, interval_seconds,
                    last_polled_at, status, username FROM oauth_device_grants WHERE \(condition)
                """,
            arguments: arguments
        ).map { row in
            let lastPolled: Int64? = row["last_polled_at"]
            return DeviceGrantRecord(
                deviceCodeHash: row["device_code_hash"],
                userCode: row["user_code"],
                appID: row["app_id"],
                deviceID: row["device_id"],
                createdAt: Date(milliseconds: row["created_at"]),
                expiresAt: Date(milliseconds: row["expires_at"]),
                interval: row["interval_seconds"],
                lastPolledAt: lastPolled.map(Date.init(milliseconds:)),
                status: try ServerSchema.grantStatus(row["status"]),
                username: row["username"]
            )
        }
    }

    public func updateDeviceGrant(
        _ grant: DeviceGrantRecord,
        expecting expected: DeviceGrantRecord.Status
    ) async throws(StorageError) -> Bool {
        try await write { db in
            try db.execute(
                sql: """
                    UPDATE oauth_device_grants SET interval_seconds = ?, last_polled_at = ?, status = ?, username = ?
                    WHERE device_code_hash = ? AND status = ?
                    """,
                arguments: [
                    grant.interval, grant.lastPolledAt?.milliseconds, grant.status.rawValue, grant.username,
                    grant.deviceCodeHash, expected.rawValue,
                ]
            )
            return db.changesCount == 1
        }
    }

    public func insertAuthorizationCode(_ code: AuthorizationCodeRecord) async throws(StorageError) {
        try await write { db in
            try db.execute(
                sql: """
                    INSERT INTO oauth_authorization_codes (code_hash, app_id, username, device_id, redirect_uri,
                        code_challenge, nonce, created_at, expires_at, redeemed_at, family_id)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [
                    code.codeHash, code.appID, code.username, code.deviceID, code.redirectURI, code.codeChallenge,
                    code.nonce, code.createdAt.milliseconds, code.expiresAt.milliseconds,
                    code.redeemedAt?.milliseconds, code.familyID,
                ]
            )
        }
    }

    public func authorizationCode(codeHash: Data) async throws(StorageError) -> AuthorizationCodeRecord? {
        try await read { db in
            try Row.fetchOne(
                db,
                sql: """
                    SELECT code_hash, app_id, username, device_id, redirect_uri, code_challenge, nonce, created_at,
                        expires_at, redeemed_at, family_id FROM oauth_authorization_codes WHERE code_hash = ?
                    """,
                arguments: [codeHash]
            ).map { row in
                let redeemed: Int64? = row["redeemed_at"]
                return AuthorizationCodeRecord(
                    codeHash: row["code_hash"],
                    appID: row["app_id"],
                    username: row["username"],
                    deviceID: row["device_id"],
                    redirectURI: row["redirect_uri"],
                    codeChallenge: row["code_challenge"],
                    nonce: row["nonce"],
                    createdAt: Date(milliseconds: row["created_at"]),
                    expiresAt: Date(milliseconds: row["expires_at"]),
                    redeemedAt: redeemed.map(Date.init(milliseconds:)),
                    familyID: row["family_id"]
                )
            }
        }
    }

    public func redeemAuthorizationCode(
        codeHash: Data,
        familyID: String,
        at date: Date
    ) async throws(StorageError) -> Bool {
        try await write { db in
            try db.execute(
                sql: """
                    UPDATE oauth_authorization_codes SET redeemed_at = ?, family_id = ?
                    WHERE code_hash = ? AND redeemed_at IS NULL
                    """,
                arguments: [date.milliseconds, familyID, codeHash]
            )
            return db.changesCount == 1
        }
    }

    public func insertRefreshToken(_ token: RefreshTokenRecord) async throws(StorageError) -> Bool {
        // One writer at a time: the check and the insert are one step against a revocation.
        try await write { db in
            let revoked = try Bool.fetchOne(
                db,
                sql: "SELECT 1 FROM refresh_tokens WHERE family_id = ? AND revoked = ? LIMIT 1",
                arguments: [token.familyID, true]
            )
            guard revoked == nil else { return false }
            try db.execute(
                sql: """
                    INSERT INTO refresh_tokens (token_hash, family_id, app_id, username, device_id, session_hash,
                        created_at, expires_at, used_at, revoked)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [
                    token.tokenHash, token.familyID, token.appID, token.username, token.deviceID, token.sessionHash,
                    token.createdAt.milliseconds, token.expiresAt.milliseconds, token.usedAt?.milliseconds,
                    token.revoked,
                ]
            )
            return true
        }
    }

    public func refreshToken(tokenHash: Data) async throws(StorageError) -> RefreshTokenRecord? {
        try await read { db in
            try Row.fetchOne(
                db,
                sql: """
                    SELECT token_hash, family_id, app_id, username, device_id, session_hash, created_at, expires_at,
                        used_at, revoked FROM refresh_tokens WHERE token_hash = ?
                    """,
                arguments: [tokenHash]
            ).map { row in
                let used: Int64? = row["used_at"]
                return RefreshTokenRecord(
                    tokenHash: row["token_hash"],
                    familyID: row["family_id"],
                    appID: row["app_id"],
                    username: row["username"],
                    deviceID: row["device_id"],
                    sessionHash: row["session_hash"],
                    createdAt: Date(milliseconds: row["created_at"]),
                    expiresAt: Date(milliseconds: row["expires_at"]),
                    usedAt: used.map(Date.init(milliseconds:)),
                    revoked: row["revoked"]
                )
            }
        }
    }

    public func spendRefreshToken(tokenHash: Data, at date: Date) async throws(StorageError) -> Bool {
        try await write { db in
            try db.execute(
                sql: "UPDATE refresh_tokens SET used_at = ? WHERE token_hash = ? AND used_at IS NULL AND revoked = ?",
                arguments: [date.milliseconds, tokenHash, false]
            )
            return db.changesCount == 1
        }
    }

    @discardableResult
    public func purgeExpired(at now: Date) async throws(StorageError) -> Int {
        try await write { db in
            var deleted = 0
            for (sql, cutoff) in ExpiringRows.statements(at: now) {
                try db.execute(sql: sql, arguments: [cutoff])
                deleted += db.changesCount
            }
            return deleted
        }
    }

    public func revokeRefreshFamily(_ familyID: String) async throws(StorageError) {
        try await write { db in
            try db.execute(
                sql: """
                    UPDATE sessions SET revoked = ?
                    WHERE token_hash IN (SELECT session_hash FROM refresh_tokens WHERE family_id = ?)
                    """,
                arguments: [true, familyID]
            )
            try db.execute(
                sql: "UPDATE refresh_tokens SET revoked = ? WHERE family_id = ?",
                arguments: [true, familyID]
            )
        }
    }

    // MARK: Federation

    public func insertIdentityLink(_ link: IdentityLinkRecord) async throws(StorageError) {
        try await write { db in
            try db.execute(
                sql: "INSERT INTO identity_links (issuer, subject, username, created_at) VALUES (?, ?, ?, ?)",
                arguments: [link.issuer, link.subject, link.username, link.createdAt.milliseconds]
            )
        }
    }

    public func identityLink(issuer: String, subject: String) async throws(StorageError) -> IdentityLinkRecord? {
        try await read { db in
            try Row.fetchOne(
                db,
                sql:
                    "SELECT issuer, subject, username, created_at FROM identity_links WHERE issuer = ? AND subject = ?",
                arguments: [issuer, subject]
            ).map(Self.identityLink)
        }
    }

    public func identityLinks(username: String) async throws(StorageError) -> [IdentityLinkRecord] {
        try await read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT issuer, subject, username, created_at FROM identity_links WHERE username = ?
                    ORDER BY issuer, subject
                    """,
                arguments: [username]
            ).map(Self.identityLink)
        }
    }

    private static func identityLink(_ row: Row) -> IdentityLinkRecord {
        IdentityLinkRecord(
            issuer: row["issuer"],
            subject: row["subject"],
            username: row["username"],
            createdAt: Date(milliseconds: row["created_at"])
        )
    }

    public func deleteIdentityLink(
        issuer: String,
        subject: String,
        username: String
    ) async throws(StorageError) -> Bool {
        try await write { db in
            try db.execute(
                sql: "DELETE FROM identity_links WHERE issuer = ? AND subject = ? AND username = ?",
                arguments: [issuer, subject, username]
            )
            return db.changesCount == 1
        }
    }

    public func insertFederatedSignIn(_ signIn: FederatedSignInRecord) async throws(StorageError) {
        try await write { db in
            try db.execute(
                sql: """
                    INSERT INTO federated_sign_ins (state_hash, app_id, browser_hash, nonce, code_verifier, origin,
                        created_at, expires_at)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [
                    signIn.stateHash, signIn.appID, signIn.browserHash, signIn.nonce, signIn.codeVerifier,
                    signIn.origin, signIn.createdAt.milliseconds, signIn.expiresAt.milliseconds,
                ]
            )
            // Sign-ins nobody finished are of no use past their end.
            try db.execute(
                sql: "DELETE FROM federated_sign_ins WHERE expires_at < ?",
                arguments: [signIn.createdAt.milliseconds]
            )
        }
    }

    public func takeFederatedSignIn(stateHash: Data) async throws(StorageError) -> FederatedSignInRecord? {
        try await write { db in
            let record = try Row.fetchOne(
                db,
                sql: """
                    SELECT state_hash, app_id, browser_hash, nonce, code_verifier, origin, created_at, expires_at
                    FROM federated_sign_ins WHERE state_hash = ?
                    """,
                arguments: [stateHash]
            ).map { row in
                FederatedSignInRecord(
                    stateHash: row["state_hash"],
                    appID: row["app_id"],
                    browserHash: row["browser_hash"],
                    nonce: row["nonce"],
                    codeVerifier: row["code_verifier"],
                    origin: row["origin"],
                    createdAt: Date(milliseconds: row["created_at"]),
                    expiresAt: Date(milliseconds: row["expires_at"])
                )
            }
            try db.execute(sql: "DELETE FROM federated_sign_ins WHERE state_hash = ?", arguments: [stateHash])
            return record
        }
    }

    public func insertProviderGrant(_ grant: ProviderGrantRecord) async throws(StorageError) {
        try await write { db in
            try db.execute(
                sql: """
                    INSERT INTO provider_grants (origin_hash, family_id, app_id, username, issuer,
                        sealed_refresh_token, access_expires_at, created_at)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [
                    grant.originHash, grant.familyID, grant.appID, grant.username, grant.issuer,
                    grant.sealedRefreshToken, grant.accessExpiresAt.milliseconds, grant.createdAt.milliseconds,
                ]
            )
        }
    }

    public func bindProviderGrant(originHash: Data, familyID: String) async throws(StorageError) {
        try await write { db in
            try db.execute(
                sql: "UPDATE provider_grants SET family_id = ? WHERE origin_hash = ? AND family_id IS NULL",
                arguments: [familyID, originHash]
            )
        }
    }

    public func providerGrant(familyID: String) async throws(StorageError) -> ProviderGrantRecord? {
        try await read { db in
            try Row.fetchOne(
                db,
                sql: """
                    SELECT origin_hash, family_id, app_id, username, issuer, sealed_refresh_token,
                        access_expires_at, created_at FROM provider_grants WHERE family_id = ?
                    """,
                arguments: [familyID]
            ).map { row in
                ProviderGrantRecord(
                    originHash: row["origin_hash"],
                    familyID: row["family_id"],
                    appID: row["app_id"],
                    username: row["username"],
                    issuer: row["issuer"],
                    sealedRefreshToken: row["sealed_refresh_token"],
                    accessExpiresAt: Date(milliseconds: row["access_expires_at"]),
                    createdAt: Date(milliseconds: row["created_at"])
                )
            }
        }
    }

    public func updateProviderGrant(_ grant: ProviderGrantRecord) async throws(StorageError) {
        try await write { db in
            try db.execute(
                sql: """
                    UPDATE provider_grants SET sealed_refresh_token = ?, access_expires_at = ?
                    WHERE origin_hash = ?
                    """,
                arguments: [grant.sealedRefreshToken, grant.accessExpiresAt.milliseconds, grant.originHash]
            )
        }
    }

    // MARK: Sign-in attempts

    public func updateSignInAttempts<Result: Sendable>(
        username: String,
        keys: [String],
        _ update: @escaping @Sendable ([String: SignInAttempts]) -> (SignInAttemptsChange, Result)
    ) async throws(StorageError) -> Result {
        // An immediate transaction takes the write lock before reading, so another
        // connection (or process) cannot read the same counts in between.
        try await run {
            try await pool.writeWithoutTransaction { db in
                var result: Result?
                try db.inTransaction(.immediate) {
                    var current: [String: SignInAttempts] = [:]
                    for key in keys {
                        if let row = try Row.fetchOne(
                            db,
                            sql: "SELECT count, window_start, blocked_until FROM sign_in_attempts WHERE key = ?",
                            arguments: [key]
                        ) {
                            current[key] = SignInAttempts(
                                key: key,
                                count: row["count"],
                                windowStart: Date(milliseconds: row["window_start"]),
                                blockedUntil: (row["blocked_until"] as Int64?).map(Date.init(milliseconds:))
                            )
                        }
                    }
                    let (change, answer) = update(current)
                    for attempts in change.save {
                        try db.execute(
                            sql: """
                                INSERT INTO sign_in_attempts (key, count, window_start, blocked_until)
                                VALUES (?, ?, ?, ?)
                                ON CONFLICT (key) DO UPDATE SET count = excluded.count,
                                    window_start = excluded.window_start, blocked_until = excluded.blocked_until
                                """,
                            arguments: [
                                attempts.key, attempts.count, attempts.windowStart.milliseconds,
                                attempts.blockedUntil?.milliseconds,
                            ]
                        )
                    }
                    for key in change.clear {
                        try db.execute(sql: "DELETE FROM sign_in_attempts WHERE key = ?", arguments: [key])
                    }
                    result = answer
                    return .commit
                }
                guard let result else { throw StorageError(.unavailable, "the sign-in attempts were not updated") }
                return result
            }
        }
    }

    public func insertDeviceCookie(_ cookie: DeviceCookieRecord) async throws(StorageError) {
        try await write { db in
            try db.execute(
                sql: "INSERT INTO device_cookies (token_hash, username, created_at) VALUES (?, ?, ?)",
                arguments: [cookie.tokenHash, cookie.username, cookie.createdAt.milliseconds]
            )
        }
    }

    public func deviceCookie(tokenHash: Data) async throws(StorageError) -> DeviceCookieRecord? {
        try await read { db in
            try Row.fetchOne(
                db,
                sql: "SELECT username, created_at FROM device_cookies WHERE token_hash = ?",
                arguments: [tokenHash]
            ).map { row in
                DeviceCookieRecord(
                    tokenHash: tokenHash,
                    username: row["username"],
                    createdAt: Date(milliseconds: row["created_at"])
                )
            }
        }
    }

    // MARK: Devices

    public func device(appID: String, username: String, deviceID: String) async throws(StorageError) -> DeviceRecord? {
        try await read { db in
            try Self.fetchDevices(
                db,
                where: "app_id = ? AND username = ? AND device_id = ?",
                [appID, username, deviceID]
            ).first
        }
    }

    public func device(appID: String, registrationID: String) async throws(StorageError) -> DeviceRecord? {
        try await read { db in
            try Self.fetchDevices(db, where: "app_id = ? AND registration_id = ?", [appID, registrationID]).first
        }
    }

    public func devices(appID: String) async throws(StorageError) -> [DeviceRecord] {
        try await read { db in try Self.fetchDevices(db, where: "app_id = ?", [appID]) }
    }

    public func devices(username: String) async throws(StorageError) -> [DeviceRecord] {
        try await read { db in try Self.fetchDevices(db, where: "username = ?", [username]) }
    }

    public func saveDevice(_ device: DeviceRecord) async throws(StorageError) {
        try await write { db in
            try db.execute(
                sql: "DELETE FROM devices WHERE app_id = ? AND username = ? AND device_id = ? AND registration_id <> ?",
                arguments: [device.appID, device.username, device.deviceID, device.registrationID]
            )
            try db.execute(
                sql: """
                    INSERT INTO devices (registration_id, app_id, username, device_id, device_name, platform, app_version,
                        status, status_changed_at, recovery_secret, registered_at, last_contact_at, change_key)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    ON CONFLICT (registration_id) DO UPDATE SET device_name = excluded.device_name,
                        platform = excluded.platform, app_version = excluded.app_version, status = excluded.status,
                        status_changed_at = excluded.status_changed_at, recovery_secret = excluded.recovery_secret,
                        last_contact_at = excluded.last_contact_at, change_key = excluded.change_key
                    """,
                arguments: [
                    device.registrationID, device.appID, device.username, device.deviceID, device.deviceName,
                    device.platform, device.appVersion, device.status.rawValue, device.statusChangedAt.milliseconds,
                    device.recoverySecret, device.registeredAt.milliseconds, device.lastContactAt?.milliseconds,
                    device.changeKey,
                ]
            )
        }
    }

    public func touchDevice(registrationID: String, at date: Date) async throws(StorageError) {
        try await write { db in
            try db.execute(
                sql: "UPDATE devices SET last_contact_at = ? WHERE registration_id = ?",
                arguments: [date.milliseconds, registrationID]
            )
        }
    }

    private static func fetchDevices(
        _ db: Database,
        where condition: String,
        _ arguments: StatementArguments
    ) throws -> [DeviceRecord] {
        try Row.fetchAll(
            db,
            sql: """
                SELECT registration_id, app_id, username, device_id, device_name, platform, app_version, status,
                    status_changed_at, recovery_secret, registered_at, last_contact_at, change_key
                FROM devices WHERE \(condition) ORDER BY registered_at, registration_id
                """,
            arguments: arguments
        ).map { row in
            guard let status = DeviceStatus(rawValue: row["status"]) else {
                throw StorageError(.corrupt, "a device registration has an unknown status")
            }
            return DeviceRecord(
                registrationID: row["registration_id"],
                appID: row["app_id"],
                username: row["username"],
                deviceID: row["device_id"],
                deviceName: row["device_name"],
                platform: row["platform"],
                appVersion: row["app_version"],
                status: status,
                statusChangedAt: Date(milliseconds: row["status_changed_at"]),
                recoverySecret: row["recovery_secret"],
                registeredAt: Date(milliseconds: row["registered_at"]),
                lastContactAt: (row["last_contact_at"] as Int64?).map(Date.init(milliseconds:)),
                changeKey: row["change_key"]
            )
        }
    }

    // MARK: Logs

    public func insertLogs(_ logs: [LogRecord], retention: LogRetention) async throws(StorageError) {
        try await write { db in
            for log in logs {
                try db.execute(
                    sql: """
                        INSERT INTO logs (app_id, username, device_id, time, level, message, source, received_at)
                        VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                        """,
                    arguments: [
                        log.appID, log.username, log.deviceID, log.time.milliseconds, log.level, log.message,
                        log.source,
                        log.receivedAt.milliseconds,
                    ]
                )
            }
            for source in Set(logs.map(LogSource.init)) {
                try db.execute(
                    sql: LogSource.pruning,
                    arguments: [
                        source.appID, source.username, source.deviceID, retention.receivedAfter.milliseconds,
                        source.appID, source.username, source.deviceID, retention.entriesPerDevice,
                    ]
                )
            }
            for (app, user) in Set(logs.map { [$0.appID, $0.username] }).map({ ($0[0], $0[1]) }) {
                try db.execute(
                    sql: LogSource.userPruning,
                    arguments: [app, user, app, user, retention.entriesPerUser]
                )
            }
            for app in Set(logs.map(\.appID)) {
                try db.execute(sql: LogSource.appPruning, arguments: [app, app, retention.entriesPerApp])
            }
        }
    }

    public func logs(appID: String, limit: Int) async throws(StorageError) -> [LogRecord] {
        try await read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT app_id, username, device_id, time, level, message, source, received_at
                    FROM logs WHERE app_id = ? ORDER BY id DESC LIMIT ?
                    """,
                arguments: [appID, limit]
            ).map { row in
                LogRecord(
                    appID: row["app_id"],
                    username: row["username"],
                    deviceID: row["device_id"],
                    time: Date(milliseconds: row["time"]),
                    level: row["level"],
                    message: row["message"],
                    source: row["source"],
                    receivedAt: Date(milliseconds: row["received_at"])
                )
            }
        }
    }

    // MARK: Entities

    public func entities(appID: String, entitySet: String) async throws(StorageError) -> [EntityRecord] {
        try await read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT app_id, entity_set, id, fields, version, updated_at, updated_by, field_versions
                    FROM entities WHERE app_id = ? AND entity_set = ? ORDER BY id
                    """,
                arguments: [appID, entitySet]
            ).map { row throws(StorageError) in try Self.entity(row) }
        }
    }

    public func putEntity(
        _ entity: EntityRecord,
        limit: Int
    ) async throws(StorageError) -> (EntityRecord, created: Bool) {
        let fields = ServerSchema.encode(fields: entity.fields)
        return try await write { db in
            let previous = try Self.storedEntity(db, appID: entity.appID, entitySet: entity.entitySet, id: entity.id)
            let stored = previous?.version
            if stored == nil {
                let count =
                    try Int.fetchOne(
                        db,
                        sql: "SELECT COUNT(*) FROM entities WHERE app_id = ? AND entity_set = ?",
                        arguments: [entity.appID, entity.entitySet]
                    ) ?? 0
                guard count < limit else { throw StorageError(.limitReached, "the entity set is full") }
            }
            var saved = entity
            saved.version = (stored ?? 0) + 1
            saved.fieldVersions = EntityRecord.fieldVersions(
                replacing: previous,
                with: entity.fields,
                at: saved.version
            )
            try Self.saveEntity(saved, fields: fields, db)
            return (saved, stored == nil)
        }
    }

    public func changes(
        appID: String,
        outcome: ChangeResult.Outcome?,
        limit: Int
    ) async throws(StorageError) -> [RecordedChange] {
        try await read { db in
            let filter = outcome == nil ? "" : " AND outcome = ?"
            var arguments: StatementArguments = [appID]
            if let outcome { arguments += [outcome.rawValue] }
            arguments += [limit]
            return try Row.fetchAll(
                db,
                sql: ServerSchema.changeColumns + " WHERE app_id = ?" + filter
                    + " ORDER BY rowid DESC LIMIT ?",
                arguments: arguments
            ).map { row throws(StorageError) in
                try ServerSchema.recordedChange(
                    appID: row["app_id"],
                    registrationID: row["registration_id"],
                    author: row["author"],
                    carrier: row["carrier"],
                    entitySet: row["entity_set"],
                    entityID: row["entity_id"],
                    result: row["result"],
                    receivedAt: row["received_at"]
                )
            }
        }
    }

    private static func storedEntity(
        _ db: Database,
        appID: String,
        entitySet: String,
        id: String
    ) throws -> EntityRecord? {
        let row = try Row.fetchOne(
            db.cachedStatement(
                sql: """
                    SELECT app_id, entity_set, id, fields, version, updated_at, updated_by, field_versions
                    FROM entities WHERE app_id = ? AND entity_set = ? AND id = ?
                    """
            ),
            arguments: [appID, entitySet, id]
        )
        return try row.map { row throws(StorageError) in try entity(row) }
    }

    private static func saveEntity(_ saved: EntityRecord, fields: String, _ db: Database) throws {
        try db.cachedStatement(
            sql: """
                INSERT INTO entities (app_id, entity_set, id, fields, version, updated_at, updated_by, field_versions,
                    created_by)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT (app_id, entity_set, id) DO UPDATE SET fields = excluded.fields,
                    version = excluded.version, updated_at = excluded.updated_at, updated_by = excluded.updated_by,
                    field_versions = excluded.field_versions
                """
        ).execute(
            arguments: [
                saved.appID, saved.entitySet, saved.id, fields, saved.version, saved.updatedAt.milliseconds,
                saved.updatedBy, ServerSchema.encode(fieldVersions: saved.fieldVersions), saved.updatedBy,
            ]
        )
    }

    public func applyChanges(
        _ batch: [ChangeApplication],
        limit: Int,
        decide: @escaping @Sendable (Change, EntityState?) throws(ChangeRejection) -> FieldMerge.Outcome
    ) async throws(StorageError) -> [ChangeResult] {
        // One writer at a time: the write transaction is the lock every process waits for.
        try await write { db in
            try batch.map { application in try Self.apply(application, limit: limit, decide: decide, db) }
        }
    }

    private static func apply(
        _ application: ChangeApplication,
        limit: Int,
        decide: (Change, EntityState?) throws(ChangeRejection) -> FieldMerge.Outcome,
        _ db: Database
    ) throws -> ChangeResult {
        let change = application.change
        let changeID = change.id.lowercasedText
        if let first = try String.fetchOne(
            db.cachedStatement(sql: "SELECT result FROM changes WHERE change_id = ?"),
            arguments: [changeID]
        ) {
            return try ServerSchema.decodeResult(first).asDuplicate
        }
        let reused =
            try Int.fetchOne(
                db.cachedStatement(sql: "SELECT COUNT(*) FROM changes WHERE registration_id = ? AND sequence = ?"),
                arguments: [change.registrationID, change.sequence]
            ) ?? 0 > 0
        let previous = try storedEntity(db, appID: application.appID, entitySet: change.entitySet, id: change.entityID)
        let decision = try ChangeDecision.make(
            application,
            previous: previous,
            sequenceReused: reused,
            limit: limit,
            creations: {
                let inSet =
                    try Int.fetchOne(
                        db.cachedStatement(sql: "SELECT COUNT(*) FROM entities WHERE app_id = ? AND entity_set = ?"),
                        arguments: [application.appID, change.entitySet]
                    ) ?? 0
                let byAuthor =
                    try Int.fetchOne(
                        db.cachedStatement(
                            sql: "SELECT COUNT(*) FROM entities WHERE app_id = ? AND entity_set = ? AND created_by = ?"
                        ),
                        arguments: [application.appID, change.entitySet, change.author]
                    ) ?? 0
                return (inSet, byAuthor)
            },
            decide: decide
        )
        if let saved = decision.entity {
            try saveEntity(saved, fields: ServerSchema.encode(fields: saved.fields), db)
        }
        try db.cachedStatement(
            sql: """
                INSERT INTO changes (change_id, app_id, registration_id, sequence, author, carrier, entity_set,
                    entity_id, outcome, result, received_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """
        ).execute(
            arguments: [
                changeID, application.appID, change.registrationID, reused ? nil : change.sequence,
                change.author, application.carrier, change.entitySet, change.entityID,
                decision.result.outcome.rawValue, try ServerSchema.encode(result: decision.result),
                application.receivedAt.milliseconds,
            ]
        )
        return decision.result
    }

    public func deleteEntity(appID: String, entitySet: String, id: String) async throws(StorageError) -> Bool {
        try await write { db in
            try db.execute(
                sql: "DELETE FROM entities WHERE app_id = ? AND entity_set = ? AND id = ?",
                arguments: [appID, entitySet, id]
            )
            return db.changesCount > 0
        }
    }

    private static func entity(_ row: Row) throws(StorageError) -> EntityRecord {
        EntityRecord(
            appID: row["app_id"],
            entitySet: row["entity_set"],
            id: row["id"],
            fields: try ServerSchema.decodeFields(row["fields"]),
            version: row["version"],
            updatedAt: Date(milliseconds: row["updated_at"]),
            updatedBy: row["updated_by"],
            fieldVersions: try ServerSchema.decodeFieldVersions(row["field_versions"])
        )
    }

    // MARK: Running

    private func read<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws(StorageError) -> T {
        try await run { try await pool.read(body) }
    }

    private func write<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws(StorageError) -> T
    {
        try await run { try await pool.write(body) }
    }

    private func run<T>(_ body: () async throws -> T) async throws(StorageError) -> T {
        do {
            return try await body()
        } catch let error as StorageError {
            throw error
        } catch let error as DatabaseError where error.resultCode == .SQLITE_CONSTRAINT {
            throw StorageError(.duplicate, "a row with the same key exists")
        } catch {
            throw StorageError(.unavailable, Self.describe(error))
        }
    }

    private static func describe(_ error: any Error) -> String {
        // GRDB's descriptions include the SQL and its arguments; keep only the result code.
        if let error = error as? DatabaseError { return "SQLite error \(error.resultCode.rawValue)" }
        return String(describing: type(of: error))
    }
}
