import Foundation

extension ServerStorage {
    public func insertFederatedSignIn(_ signIn: FederatedSignInRecord) async throws(StorageError) {
        try await queries.write(locking: []) { connection in
            try await connection.execute(try .insert(into: "federated_sign_ins", signIn))
            // Sign-ins nobody finished are of no use past their end.
            try await connection.execute("DELETE FROM federated_sign_ins WHERE expires_at < \(signIn.createdAt)")
        }
    }

    /// The sign-in whose state has this hash, removed as it is read: two returns of one
    /// sign-in never both finish it.
    public func takeFederatedSignIn(stateHash: Data) async throws(StorageError) -> FederatedSignInRecord? {
        try await queries.write(locking: []) { connection in
            try await connection.rows(
                """
                DELETE FROM federated_sign_ins WHERE state_hash = \(stateHash)
                RETURNING state_hash, app_id, browser_hash, nonce, code_verifier, origin, created_at, expires_at
                """
            ).first.map { row throws(StorageError) in try row.decode(FederatedSignInRecord.self) }
        }
    }

    public func insertProviderGrant(_ grant: ProviderGrantRecord) async throws(StorageError) {
        try await execute(
            """
            INSERT INTO provider_grants (origin_hash, family_id, app_id, username, issuer,
                sealed_refresh_token, access_expires_at, created_at)
            VALUES (\(grant.originHash), \(grant.familyID), \(grant.appID), \(grant.username),
                \(grant.issuer), \(grant.sealedRefreshToken), \(grant.accessExpiresAt), \(grant.createdAt))
            """
        )
    }

    /// Binds the grant made with the code or device code of hash `originHash` to the
    /// refresh token family its redemption started.
    public func bindProviderGrant(originHash: Data, familyID: String) async throws(StorageError) {
        try await execute(
            """
            UPDATE provider_grants SET family_id = \(familyID)
            WHERE origin_hash = \(originHash) AND family_id IS NULL
            """
        )
    }

    public func providerGrant(familyID: String) async throws(StorageError) -> ProviderGrantRecord? {
        try await first(
            """
            SELECT origin_hash, family_id, app_id, username, issuer, sealed_refresh_token,
                access_expires_at, created_at FROM provider_grants WHERE family_id = \(familyID)
            """
        )
    }

    /// Stores what a refresh at the provider gave (its next refresh token, its access
    /// token's end).
    public func updateProviderGrant(_ grant: ProviderGrantRecord) async throws(StorageError) {
        try await execute(
            """
            UPDATE provider_grants SET sealed_refresh_token = \(grant.sealedRefreshToken),
                access_expires_at = \(grant.accessExpiresAt)
            WHERE origin_hash = \(grant.originHash)
            """
        )
    }
}
