import Foundation
import GangwayProtocol

extension ServerStorage {
    // MARK: Signing keys

    /// The keys of `purpose`, newest generation first: one that will sign, the one that
    /// signs, and the older ones not deleted yet. Through the cache: a rotation by another
    /// process is seen at its notice, or within the cache's lifetime.
    public func signingKeys(
        _ purpose: Components.Schemas.SigningKeyPurpose
    ) async throws(StorageError) -> [SigningKeyRecord] {
        try await cached(.signingKeys(purpose.rawValue)) { () throws(StorageError) in
            try await all(Self.signingKeysQuery(purpose))
        }
    }

    /// Every signing key of every purpose, by purpose and newest generation first, as
    /// stored now.
    public func allSigningKeys() async throws(StorageError) -> [SigningKeyRecord] {
        try await all("SELECT * FROM signing_keys ORDER BY purpose, generation DESC")
    }

    /// Stores `key` as the first key of its purpose (generation 1), unless the purpose
    /// has keys: the first process to start decides, and the others use its choice. The
    /// purpose's keys as stored after, newest first.
    public func addFirstSigningKey(_ key: SigningKeyRecord) async throws(StorageError) -> [SigningKeyRecord] {
        try await writing(forgetting: [.key(.signingKeys(key.purpose.rawValue))]) { () throws(StorageError) in
            try await queries.write(locking: [.signingKeys(key.purpose.rawValue)]) { connection in
                let stored = try await connection.rows(Self.signingKeysQuery(key.purpose))
                guard stored.isEmpty else {
                    return try stored.map { row throws(StorageError) in try row.decode(SigningKeyRecord.self) }
                }
                var first = key
                first.generation = 1
                try await connection.execute(try .insert(into: "signing_keys", first))
                return [first]
            }
        }
    }

    /// Stores `key` as its purpose's next generation, to sign from its `signsFrom`. The
    /// key that was newest until now stays published until `previousPublishedUntil` (for
    /// good when `nil`); the keys whose publication has ended by `key.createdAt` are
    /// deleted.
    ///
    /// - Parameters:
    ///   - cutoff: When given, stores `key` only if the newest key was made at or before it
    ///     (a schedule: the first process due rotates, and the others then find a newer
    ///     key).
    ///   - previousKid: When given, stores `key` only if the newest key is that one: the
    ///     key that endorsed it (another process may have rotated since it was read).
    ///   - dropOldest: Also deletes the purpose's oldest key.
    /// - Returns: `key` as stored, with its generation; `nil` when it was not.
    public func rotateSigningKey(
        to key: SigningKeyRecord,
        previousPublishedUntil: Date?,
        onlyIfNewestMadeBy cutoff: Date? = nil,
        onlyIfNewestIs previousKid: String? = nil,
        droppingOldest dropOldest: Bool = false
    ) async throws(StorageError) -> SigningKeyRecord? {
        let purpose = key.purpose
        return try await writing(forgetting: [.key(.signingKeys(purpose.rawValue))]) { () throws(StorageError) in
            try await queries.write(locking: [.signingKeys(purpose.rawValue)]) { connection in
                let newest = try await connection.rows(
                    "SELECT * FROM signing_keys WHERE purpose = \(purpose.rawValue) ORDER BY generation DESC LIMIT 1"
                ).first.map { row throws(StorageError) in try row.decode(SigningKeyRecord.self) }
                if let cutoff, let newest, newest.createdAt > cutoff { return nil }
                if let previousKid, newest?.kid != previousKid { return nil }
                if let newest, let previousPublishedUntil {
                    try await connection.execute(
                        """
                        UPDATE signing_keys SET published_until = \(previousPublishedUntil)
                        WHERE purpose = \(purpose.rawValue) AND generation = \(newest.generation)
                        """
                    )
                }
                try await connection.execute(
                    "DELETE FROM signing_keys WHERE purpose = \(purpose.rawValue) AND published_until < \(key.createdAt)"
                )
                if dropOldest {
                    try await connection.execute(
                        """
                        DELETE FROM signing_keys WHERE purpose = \(purpose.rawValue) AND generation =
                            (SELECT MIN(generation) FROM signing_keys WHERE purpose = \(purpose.rawValue))
                        """
                    )
                }
                var stored = key
                stored.generation = (newest?.generation ?? 0) + 1
                try await connection.execute(try .insert(into: "signing_keys", stored))
                return stored
            }
        }
    }

    /// Deletes the secret stored under `name`, if any.
    public func deleteSecret(named name: String) async throws(StorageError) {
        try await writing(forgetting: [.key(.secret(name))]) { () throws(StorageError) in
            try await execute("DELETE FROM secrets WHERE name = \(name)")
        }
    }

    private static func signingKeysQuery(_ purpose: Components.Schemas.SigningKeyPurpose) -> SQL {
        "SELECT * FROM signing_keys WHERE purpose = \(purpose.rawValue) ORDER BY generation DESC"
    }
}
