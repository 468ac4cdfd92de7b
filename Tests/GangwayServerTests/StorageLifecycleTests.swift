import Foundation
import GangwayServerStorage
import GangwayServerTesting
import GangwayTesting
import Logging
import Testing

@testable import GangwayServer

@Suite(
    "Storage lifecycle: the PostgreSQL pool runs as a service, and only while it runs",
    .servingTurn,
    .tags(.postgres),
    .skipsTags
)
struct StorageLifecycleTests {
    /// Runs `body` with a maker of PostgreSQL storages over one new schema, then drops
    /// the schema.
    private func withPostgresSchema<Result>(
        _ body: (_ storage: () throws -> ServerStorage) async throws -> Result
    ) async throws -> Result {
        guard case .postgresql(let url)? = TestDatabase.postgresqlFromEnvironment else {
            throw TestServerError("\(TestDatabase.environmentVariable) does not name a PostgreSQL database")
        }
        return try await TestDatabase.withNewPostgresSchema(of: url) { schemaURL in
            try await body { ServerStorage(try PostgresDriver(url: schemaURL, logger: Logger(label: "test"))) }
        }
    }

    @Test(
        "without a running pool a call fails as unavailable; with one it works",
        .enabled(if: TestDatabase.postgresqlFromEnvironment != nil, "needs GANGWAY_POSTGRES_URL")
    )
    func callsNeedARunningPool() async throws {
        try await withPostgresSchema { storage in try await callsNeedARunningPool(try storage()) }
    }

    private func callsNeedARunningPool(_ storage: ServerStorage) async throws {
        let before = await #expect(throws: StorageError.self) { try await storage.migrate() }
        #expect(before?.code == .unavailable)

        let stored = try await storage.withConnections {
            try await storage.migrate()
            return try await storage.secret(named: "lifecycle", orInsert: Data([1, 2, 3]))
        }
        #expect(stored == Data([1, 2, 3]))

        // The pool stopped with the work it ran around.
        let after = await #expect(throws: StorageError.self) {
            try await storage.secret(named: "lifecycle", orInsert: Data([4]))
        }
        #expect(after?.code == .unavailable)
    }

    @Test(
        "four storages migrating one new PostgreSQL schema at once, each with its own pool, migrate it once",
        .enabled(if: TestDatabase.postgresqlFromEnvironment != nil, "needs GANGWAY_POSTGRES_URL")
    )
    func concurrentMigrations() async throws {
        try await withPostgresSchema { storage in try await concurrentMigrations(try (0..<4).map { _ in try storage() })
        }
    }

    private func concurrentMigrations(_ storages: [ServerStorage]) async throws {
        // Every migration creates its tables without IF NOT EXISTS: a second run of one
        // would fail, so four successes mean each ran once.
        try await withThrowingTaskGroup(of: Void.self) { group in
            for storage in storages {
                group.addTask { try await storage.withConnections { try await storage.migrate() } }
            }
            try await group.waitForAll()
        }
        let first = try #require(storages.first)
        let value = try await first.withConnections {
            try await first.secret(named: "migrated", orInsert: Data([9]))
        }
        #expect(value == Data([9]))
        let again = try #require(storages.last)
        #expect(try await again.withConnections { try await again.secret(named: "migrated") } == Data([9]))
    }

    @Test("SQLite needs no pool and works without one")
    func sqliteNeedsNoPool() async throws {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("gangway-lifecycle-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let storage = ServerStorage(try SQLiteDriver(path: directory.appendingPathComponent("server.sqlite").path))
        #expect(storage.makeConnectionPool() == nil)
        try await storage.migrate()
        #expect(try await storage.secret(named: "lifecycle", orInsert: Data([7])) == Data([7]))
    }

    @Test("the server runs its pool in its service group and stops it with the group", arguments: Backend.available)
    func serverRunsThePool(backend: Backend) async throws {
        let server = try await TestServer(options: .init(database: try backend.database))
        defer { server.removeDirectory() }
        let apps = try await server.run(seed: .checks) { running in
            try await running.server.storage.apps().map(\.id)
        }
        #expect(apps == ["checks"])
        if backend == .postgresql {
            // The host stopped its group, and the pool with it.
            let error = await #expect(throws: StorageError.self) { try await server.server.storage.apps() }
            #expect(error?.code == .unavailable)
        }
        // Made last: a pool made must run before the storage answers again.
        // The pool and the listener to the other processes' notices (PostgreSQL only),
        // the purge of expired rows, the data sources' reads, the delivery of changes,
        // the HTTP server, and last the drain, which hears first that the group stops.
        let services = try server.server.services()
        #expect(services.count == (backend == .postgresql ? 7 : 5))
        #expect(services.last is ServerDrain)
    }
}
