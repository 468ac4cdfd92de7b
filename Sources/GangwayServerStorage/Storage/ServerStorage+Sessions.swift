import Foundation

extension ServerStorage {
    public func insertSession(_ session: SessionRecord) async throws(StorageError) {
        // Dropped here only: a new token's hash is kept nowhere else (a token is
        // presented after it is issued), so there is nothing to announce.
        defer { cache?.drop(.session(session.tokenHash)) }
        try await execute(try .insert(into: "sessions", session))
    }

    public func session(tokenHash: Data) async throws(StorageError) -> SessionRecord? {
        try await cached(.session(tokenHash)) { () throws(StorageError) in
            try await first(
                """
                SELECT token_hash, app_id, username, device_id, created_at, expires_at, revoked
                FROM sessions WHERE token_hash = \(tokenHash)
                """
            )
        }
    }

    public func revokeSession(tokenHash: Data) async throws(StorageError) {
        try await writing(forgetting: [.key(.session(tokenHash))]) { () throws(StorageError) in
            try await execute("UPDATE sessions SET revoked = TRUE WHERE token_hash = \(tokenHash)")
        }
    }

    /// Revokes every session and refresh token of a user, or of a user on one app and
    /// device.
    public func revokeSessions(username: String, appID: String?, deviceID: String?) async throws(StorageError) {
        // The cache is keyed by token hash; drop every session rather than miss one.
        try await writing(forgetting: [.every(.session)]) { () throws(StorageError) in
            var whose: SQL = "username = \(username)"
            if let appID { whose = whose + " AND app_id = \(appID)" }
            if let deviceID { whose = whose + " AND device_id = \(deviceID)" }
            try await queries.write(locking: []) { connection in
                try await connection.execute("UPDATE sessions SET revoked = TRUE WHERE \(whose)")
                try await connection.execute("UPDATE refresh_tokens SET revoked = TRUE WHERE \(whose)")
            }
        }
    }

    // MARK: Sign-in attempts

    /// Reads the attempts counted under `keys` (a key with none is absent), lets `update`
    /// decide what changes, and stores that, in one transaction that every other call for
    /// the same `username`, in any process, waits for: two sign-ins never both take the
    /// last attempt allowed.
    public func updateSignInAttempts<Result: Sendable>(
        username: String,
        keys: [String],
        _ update: @escaping @Sendable ([String: SignInAttempts]) -> (SignInAttemptsChange, Result)
    ) async throws(StorageError) -> Result {
        try await queries.write(locking: [.signIns(username: username)]) { connection in
            var current: [String: SignInAttempts] = [:]
            if !keys.isEmpty {
                for row in try await connection.rows(
                    "SELECT key, count, window_start, blocked_until FROM sign_in_attempts WHERE key IN (\(list: keys))"
                ) {
                    let attempts: SignInAttempts = try row.decode()
                    current[attempts.key] = attempts
                }
            }
            let (change, result) = update(current)
            for attempts in change.save {
                try await connection.execute(try .insert(into: "sign_in_attempts", attempts, upsertingOn: ["key"]))
            }
            if !change.clear.isEmpty {
                try await connection.execute("DELETE FROM sign_in_attempts WHERE key IN (\(list: change.clear))")
            }
            return result
        }
    }

    // MARK: Device cookies

    public func insertDeviceCookie(_ cookie: DeviceCookieRecord) async throws(StorageError) {
        try await execute(try .insert(into: "device_cookies", cookie))
    }

    public func deviceCookie(tokenHash: Data) async throws(StorageError) -> DeviceCookieRecord? {
        try await first("SELECT token_hash, username, created_at FROM device_cookies WHERE token_hash = \(tokenHash)")
    }
}
