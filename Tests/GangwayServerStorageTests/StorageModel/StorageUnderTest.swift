import Foundation
import GangwayServerTesting
import GangwayTesting
import Logging

@testable import GangwayServerStorage

/// The storage the model-based tests hold to ``StorageModel``, and the one place that
/// opens it: when the storage's type or its constructors change, only this file does.
enum StorageUnderTest {
    /// The storage, as the model-based tests call it.
    typealias Storage = ServerStorage

    /// Runs `body` with a new, migrated storage on `backend`, its connections open: SQLite
    /// in a temporary directory, or PostgreSQL in a schema of its own; either is removed
    /// afterwards.
    /// Directly, never through the read cache.
    /// - Parameter migrated: Whether the schema's migrations run first; without them,
    ///   `body` runs the ones it wants (to test a migration from an older schema).
    static func withStorage<Result: Sendable>(
        on backend: Backend,
        migrated: Bool = true,
        _ body: (Storage) async throws -> Result
    ) async throws -> Result {
        switch backend {
        case .sqlite:
            let directory = try TemporaryDirectory(prefix: "gangway-model")
            defer { directory.remove() }
            return try await run(
                ServerStorage(try SQLiteDriver(path: directory.appending("server.sqlite").path)),
                migrated: migrated,
                body
            )
        case .postgresql:
            guard case .postgresql(let url) = try backend.database else {
                throw TestServerError("\(TestDatabase.environmentVariable) does not name a PostgreSQL database")
            }
            return try await TestDatabase.withNewPostgresSchema(of: url) { schemaURL in
                let storage = ServerStorage(
                    try PostgresDriver(
                        url: schemaURL,
                        logger: Logger(label: "gangway.model-test", factory: { _ in SwiftLogNoOpLogHandler() })
                    )
                )
                return try await run(storage, migrated: migrated, body)
            }
        }
    }

    /// Runs `body` with a new storage on `backend` migrated up to, and not including,
    /// the migration named `migration`: a test of that migration inserts rows of the schema
    /// before it, then migrates.
    static func withStorage<Result: Sendable>(
        on backend: Backend,
        before migration: String,
        _ body: (Storage) async throws -> Result
    ) async throws -> Result {
        try await withStorage(on: backend, migrated: false) { storage in
            try await storage.driver.migrate(
                Array(ServerSchema.migrations(storage.kind).prefix { $0.name != migration })
            )
            return try await body(storage)
        }
    }

    private static func run<Result: Sendable>(
        _ storage: Storage,
        migrated: Bool,
        _ body: (Storage) async throws -> Result
    ) async throws -> Result {
        try await storage.withConnections {
            if migrated { try await storage.migrate() }
            return try await body(storage)
        }
    }
}
