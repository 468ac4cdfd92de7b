import Foundation

extension ServerStorage {
    /// Stores a new device grant; ``StorageError/Code/duplicate`` when its user code is
    /// taken (the caller draws another).
    public func insertDeviceGrant(_ grant: DeviceGrantRecord) async throws(StorageError) {
        try await execute(try .insert(into: "oauth_device_grants", grant))
    }

    public func deviceGrant(deviceCodeHash: Data) async throws(StorageError) -> DeviceGrantRecord? {
        try await first("SELECT * FROM oauth_device_grants WHERE device_code_hash = \(deviceCodeHash)")
    }

    public func deviceGrant(userCode: String) async throws(StorageError) -> DeviceGrantRecord? {
        try await first("SELECT * FROM oauth_device_grants WHERE user_code = \(userCode)")
    }

    /// Stores `grant` if the stored one still has status `expected`; `false` when another
    /// request changed it first (two polls never both redeem one approval).
    public func updateDeviceGrant(
        _ grant: DeviceGrantRecord,
        expecting expected: DeviceGrantRecord.Status
    ) async throws(StorageError) -> Bool {
        try await count(
            """
            UPDATE oauth_device_grants SET interval_seconds = \(grant.interval),
                last_polled_at = \(grant.lastPolledAt), status = \(grant.status.rawValue),
                username = \(grant.username)
            WHERE device_code_hash = \(grant.deviceCodeHash) AND status = \(expected.rawValue)
            RETURNING status
            """
        ) == 1
    }

    public func insertAuthorizationCode(_ code: AuthorizationCodeRecord) async throws(StorageError) {
        try await execute(try .insert(into: "oauth_authorization_codes", code))
    }

    public func authorizationCode(codeHash: Data) async throws(StorageError) -> AuthorizationCodeRecord? {
        try await first(
            """
            SELECT code_hash, app_id, username, device_id, redirect_uri, code_challenge, nonce, created_at,
                expires_at, redeemed_at, family_id FROM oauth_authorization_codes WHERE code_hash = \(codeHash)
            """
        )
    }

    /// Marks the code redeemed at `date`, starting refresh token family `familyID`, if no
    /// one redeemed it before: `false` when someone did (two redemptions never both win).
    public func redeemAuthorizationCode(
        codeHash: Data,
        familyID: String,
        at date: Date
    ) async throws(StorageError) -> Bool {
        try await count(
            """
            UPDATE oauth_authorization_codes SET redeemed_at = \(date), family_id = \(familyID)
            WHERE code_hash = \(codeHash) AND redeemed_at IS NULL
            RETURNING code_hash
            """
        ) == 1
    }

    /// Adds a refresh token to its family unless the family was revoked (any of its
    /// tokens is): then nothing is added, and the answer is `false`. One step with
    /// ``revokeRefreshFamily(_:)``: a family revoked while a token joins it keeps no valid
    /// token, whichever comes first, in any number of processes.
    public func insertRefreshToken(_ token: RefreshTokenRecord) async throws(StorageError) -> Bool {
        try await queries.write(locking: [.refreshFamily(token.familyID)]) { connection in
            let revoked = try await connection.rows(
                "SELECT 1 AS revoked FROM refresh_tokens WHERE family_id = \(token.familyID) AND revoked LIMIT 1"
            )
            guard revoked.isEmpty else { return false }
            try await connection.execute(try .insert(into: "refresh_tokens", token))
            return true
        }
    }

    public func refreshToken(tokenHash: Data) async throws(StorageError) -> RefreshTokenRecord? {
        try await first(
            """
            SELECT token_hash, family_id, app_id, username, device_id, session_hash, created_at, expires_at,
                used_at, used_from, revoked FROM refresh_tokens WHERE token_hash = \(tokenHash)
            """
        )
    }

    /// Marks a refresh token used, by the client `client` names (a hash of its address), if
    /// it is neither used nor revoked; `false` otherwise.
    public func spendRefreshToken(
        tokenHash: Data,
        at date: Date,
        by client: Data? = nil
    ) async throws(StorageError)
        -> Bool
    {
        try await count(
            """
            UPDATE refresh_tokens SET used_at = \(date), used_from = \(client)
            WHERE token_hash = \(tokenHash) AND used_at IS NULL AND NOT revoked
            RETURNING family_id
            """
        ) == 1
    }

    /// Revokes every refresh token of a family and the sessions they opened.
    public func revokeRefreshFamily(_ familyID: String) async throws(StorageError) {
        try await writing(forgetting: [.every(.session)]) { () throws(StorageError) in
            try await queries.write(locking: [.refreshFamily(familyID)]) { connection in
                try await connection.execute(
                    """
                    UPDATE sessions SET revoked = TRUE
                    WHERE token_hash IN (SELECT session_hash FROM refresh_tokens WHERE family_id = \(familyID))
                    """
                )
                try await connection.execute("UPDATE refresh_tokens SET revoked = TRUE WHERE family_id = \(familyID)")
            }
        }
    }

    /// Deletes the rows `ExpiringRows` says are of no use at `now`; the number deleted.
    @discardableResult
    public func purgeExpired(at now: Date) async throws(StorageError) -> Int {
        try await queries.write(locking: []) { connection in
            var deleted = 0
            for statement in ExpiringRows.statements(at: now) {
                deleted += try await connection.rows(statement + " RETURNING 1 AS deleted").count
            }
            return deleted
        }
    }
}
