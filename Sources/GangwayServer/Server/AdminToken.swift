import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The admin API's bearer token: created at first start, written to a file only its
/// owner can read, kept in the database only as a SHA-256.
enum AdminToken {
    static let secretName = "admin-token-sha256"

    typealias Outcome = AdminTokenOutcome

    static func bootstrap(
        storage: any ServerStorage,
        file: URL,
        renew: Bool
    ) async throws -> (hash: Data, outcome: Outcome) {
        let fileToken = try? String(contentsOf: file, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
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

    /// Writes atomically with mode 0600.
    private static func write(_ token: String, to file: URL) throws {
        let directory = file.deletingLastPathComponent()
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let temporary = directory.appendingPathComponent(".admin-token.\(UInt64.random(in: .min ... .max).hexString)")
        guard
            FileManager.default.createFile(
                atPath: temporary.path,
                contents: Data((token + "\n").utf8),
                attributes: [.posixPermissions: 0o600]
            )
        else { throw CocoaError(.fileWriteUnknown) }
        // rename(2) replaces the file atomically: a reader sees the old token or the new one.
        guard rename(temporary.path, file.path) == 0 else {
            try? FileManager.default.removeItem(at: temporary)
            throw CocoaError(.fileWriteUnknown)
        }
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
