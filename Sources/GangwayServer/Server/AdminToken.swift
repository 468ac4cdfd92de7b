import Foundation
import GangwayProtocol
import GangwayServerStorage
import GangwaySystem

/// The admin API's bearer token: created at first start, written to a file only its
/// owner can read, kept in the database only as a SHA-256.
enum AdminToken {
    static let secretName = "admin-token-sha256"

    typealias Outcome = AdminTokenOutcome

    static func bootstrap(
        storage: ServerStorage,
        file: URL,
        renew: Bool
    ) async throws -> (hash: Data, outcome: Outcome) {
        // A file someone else could have written is refused, not believed.
        let fileToken = try PrivateFiles.read(file).map {
            String(decoding: $0, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        }
        if renew {
            let token = BearerToken.make()
            try write(token, to: file)
            let hash = BearerToken.hash(token)
            try await storage.setSecret(named: secretName, to: hash)
            return (hash, .created(path: file.path))
        }
        let candidate = BearerToken.make()
        let stored = try await storage.secret(named: secretName, orInsert: BearerToken.hash(candidate))
        if stored == BearerToken.hash(candidate) {
            try write(candidate, to: file)
            return (stored, .created(path: file.path))
        }
        if let fileToken, BearerToken.hash(fileToken) == stored {
            return (stored, .existing(path: file.path))
        }
        return (stored, .elsewhere(path: file.path))
    }

    /// Writes atomically, the file 0600 from the moment it exists.
    private static func write(_ token: String, to file: URL) throws {
        try PrivateFiles.write(Data((token + "\n").utf8), to: file)
    }
}

/// What happened to the admin token at startup, for the operator (never the token itself).
public enum AdminTokenOutcome: Sendable, Equatable {
    /// A new token was written to the file.
    case created(path: String)
    /// The token in the file is the one in force.
    case existing(path: String)
    /// The database has a token, but the file is missing or holds another one (made by
    /// another process, or deleted); `--new-admin-token` makes a new one.
    case elsewhere(path: String)
}
