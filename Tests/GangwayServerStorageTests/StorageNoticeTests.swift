import Foundation
import GangwayServerTesting
import GangwayTesting
import Logging
import ServiceLifecycle
import Synchronization
import Testing

@testable import GangwayServerStorage

@Suite("Notices: what one process writes, the others sharing PostgreSQL drop from their caches at once")
struct StorageNoticeTests {
    static let every: [ReadCache.Drop] =
        [
            .key(.app("checks")), .key(.session(Data((0..<32).map { UInt8($0 * 7 % 256) }))),
            .key(.device(appID: "checks", username: "alice", deviceID: "device-1")), .key(.user("Ålice Ø")),
            .key(.entitySet(appID: "checks", entitySet: "checks")), .key(.entitySchemas(appID: "checks")),
            .key(.destination(appID: "checks", name: "erp")), .key(.secret("admin-token")),
        ] + ReadCache.Kind.allCases.map(ReadCache.Drop.every)

    @Test("every kind of drop reads back from its notice as it was")
    func noticesReadBack() throws {
        #expect(Set(Self.every.map(\.kind)) == Set(ReadCache.Kind.allCases))
        let notice = ReadCache.Drop.notice(Self.every)
        #expect(ReadCache.Drop.drops(inNotice: notice) == Self.every)
        for drop in Self.every {
            #expect(ReadCache.Drop.drops(inNotice: ReadCache.Drop.notice([drop])) == [drop])
        }
    }

    @Test("a notice too long for PostgreSQL names the kinds alone; a text that is no notice reads as none")
    func longAndForeignNotices() throws {
        let users = (0..<400).map { ReadCache.Drop.key(.user("user-\($0)-" + String(repeating: "x", count: 20))) }
        let notice = ReadCache.Drop.notice(users + [.key(.app("checks"))])
        #expect(notice.utf8.count <= ReadCache.Drop.noticeBytes)
        #expect(ReadCache.Drop.drops(inNotice: notice) == [.every(.user), .every(.app)])
        for foreign in ["", "{}", "[[\"nothing\"]]", "[[\"app\", \"a\", \"b\"]]", "[[\"session\", \"%%\"]]", "[]x"] {
            #expect(ReadCache.Drop.drops(inNotice: foreign) == nil, "\(foreign)")
        }
    }

    @Test("a read under way while its kind is dropped answers, but is not kept")
    func readDuringDropIsNotKept() async throws {
        let cache = ReadCache(lifetime: .seconds(3600), clock: ManualMonotonicClock())
        let first = try await cache.value(.app("checks")) { () throws(StorageError) in "before" }
        #expect(first == "before")
        cache.drop(.app("checks"))
        let during = try await cache.value(.app("checks")) { () throws(StorageError) in
            // Another process's notice arrives while this read is under way.
            cache.drop(every: .app)
            return "read while it changed"
        }
        #expect(during == "read while it changed")
        let after = try await cache.value(.app("checks")) { () throws(StorageError) in "read again" }
        #expect(after == "read again", "the read that overlapped the drop was not kept")
        let kept = try await cache.value(.app("checks")) { () throws(StorageError) in "not asked" }
        #expect(kept == "read again")
        cache.dropAll()
        let emptied = try await cache.value(.app("checks")) { () throws(StorageError) in "after everything" }
        #expect(emptied == "after everything")
    }

    @Test("SQLite, whose file one process owns, announces nothing and has no listener")
    func sqliteHasNoListener() async throws {
        let directory = try TemporaryDirectory(prefix: "gangway-notices")
        defer { directory.remove() }
        let storage = ServerStorage(try SQLiteDriver(path: directory.appending("server.sqlite").path))
        #expect(storage.makeNoticeListener() == nil)
        try await storage.driver.announce("[]")
    }

    /// Two storages on one new schema, each with a cache of an hour, a pool and a
    /// listener running, as two server processes would have; and a raw connection to
    /// the schema for writes no one announces.
    private func withTwoProcesses(
        _ body: (_ first: ServerStorage, _ second: ServerStorage, _ schema: String) async throws -> Void
    ) async throws {
        guard case .postgresql(let url) = TestDatabase.postgresqlFromEnvironment else { return }
        try await TestDatabase.withNewPostgresSchema(of: url) { schemaURL in
            let logger = Logger(label: "gangway.notices-test", factory: { _ in SwiftLogNoOpLogHandler() })
            let storages = try (0..<2).map { _ in
                ServerStorage(
                    try PostgresDriver(url: schemaURL, logger: logger),
                    cache: ReadCache(lifetime: .seconds(3600))
                )
            }
            let schema = try #require(schemaURL.components(separatedBy: "schema=").last)
            try await withThrowingTaskGroup(of: Void.self) { group in
                for storage in storages {
                    for service in [storage.makeConnectionPool(), storage.makeNoticeListener()] {
                        let service = try #require(service)
                        group.addTask { try await service.run() }
                    }
                }
                defer { group.cancelAll() }
                try await storages[0].migrate()
                // Both listen: each has a connection named for the schema.
                #expect(try await eventually { try await listeners(storages[0], schema: schema) == 2 })
                try await body(storages[0], storages[1], schema)
            }
        }
    }

    /// The process IDs of the listeners' connections of `schema`, as PostgreSQL sees them.
    private func listenerIDs(_ storage: ServerStorage, schema: String) async throws -> [Int64] {
        try await storage.driver.read(
            "SELECT pid FROM pg_stat_activity WHERE application_name = \(PostgresDriver.listenerName(schema: schema))"
        ).map { row throws(StorageError) in try row("pid", as: Int64.self) }
    }

    private func listeners(_ storage: ServerStorage, schema: String) async throws -> Int {
        try await listenerIDs(storage, schema: schema).count
    }

    @Test(
        "a block, a lock, a revoked session and a renamed app written through one process reach the other's hour-long cache",
        .tags(.postgres),
        .enabled(if: TestDatabase.postgresqlFromEnvironment != nil, "needs \(TestDatabase.environmentVariable)")
    )
    func writesReachTheOtherProcess() async throws {
        try await withTwoProcesses { first, second, _ in
            let now = Date(timeIntervalSince1970: 1_800_000_000)
            var app = AppRecord(id: "checks", name: "Checks", createdAt: now)
            try await first.insertApp(app)
            var user = UserRecord(username: "alice", displayName: "Alice", passwordHash: "h", createdAt: now)
            try await first.insertUser(user)
            let session = SessionRecord(
                tokenHash: Data(repeating: 7, count: 32),
                appID: "checks",
                username: "alice",
                deviceID: "device-1",
                createdAt: now,
                expiresAt: now.addingTimeInterval(3600)
            )
            try await first.insertSession(session)
            // The second process reads, and keeps, each.
            #expect(try await second.app(id: "checks")?.name == "Checks")
            #expect(try await second.cachedUser(named: "alice")?.blocked == false)
            #expect(try await second.session(tokenHash: session.tokenHash)?.revoked == false)

            app.name = "Ground checks"
            try await first.updateApp(app)
            user.blocked = true
            try await first.updateUser(user)
            try await first.revokeSession(tokenHash: session.tokenHash)
            #expect(try await eventually { try await second.app(id: "checks")?.name == "Ground checks" })
            #expect(try await eventually { try await second.cachedUser(named: "alice")?.blocked == true })
            #expect(try await eventually { try await second.session(tokenHash: session.tokenHash)?.revoked == true })
        }
    }

    @Test(
        "a listener whose connection is ended connects again and forgets all it kept: what it missed meanwhile shows",
        .tags(.postgres),
        .enabled(if: TestDatabase.postgresqlFromEnvironment != nil, "needs \(TestDatabase.environmentVariable)")
    )
    func reconnectForgetsEverything() async throws {
        try await withTwoProcesses { first, second, schema in
            let now = Date(timeIntervalSince1970: 1_800_000_000)
            try await first.insertApp(AppRecord(id: "checks", name: "Checks", createdAt: now))
            // Once the second hears a later write's notice, it has heard every earlier
            // one (PostgreSQL delivers them in the order of their commits).
            try await first.insertApp(AppRecord(id: "sentinel", name: "0", createdAt: now))
            _ = try await second.app(id: "sentinel")
            try await first.updateApp(AppRecord(id: "sentinel", name: "1", createdAt: now))
            #expect(try await eventually { try await second.app(id: "sentinel")?.name == "1" })
            #expect(try await second.app(id: "checks")?.name == "Checks")
            // A write no one announces (as if its notice were lost): the hour-long cache
            // keeps the old name.
            _ = try await first.driver.write("UPDATE apps SET name = 'Renamed unheard' WHERE id = 'checks'")
            #expect(try await second.app(id: "checks")?.name == "Checks")

            // Both listeners' connections end, as when the database restarts.
            let ended = try await listenerIDs(first, schema: schema)
            #expect(ended.count == 2)
            for id in ended {
                _ = try await first.driver.read("SELECT pg_terminate_backend(CAST(\(id) AS integer)) AS ended")
            }
            // Each connects again, on a new connection, and empties its cache: within the
            // bound the listener keeps, as one that hears of its end only at its next
            // heartbeat (5 s) takes as long as the heartbeat's wait (5 s) to count it
            // dropped; a loaded machine then pauses it a little more.
            let reconnection = PostgresNoticeListener.heartbeat + PostgresNoticeListener.heartbeatWait + .seconds(10)
            #expect(
                try await eventually(within: reconnection) {
                    let now = try await listenerIDs(first, schema: schema)
                    return now.count == 2 && Set(now).isDisjoint(with: ended)
                }
            )
            #expect(
                try await eventually(within: reconnection) {
                    try await second.app(id: "checks")?.name == "Renamed unheard"
                }
            )
            // And hears what comes next.
            try await first.updateApp(AppRecord(id: "checks", name: "Heard again", createdAt: now))
            #expect(try await eventually { try await second.app(id: "checks")?.name == "Heard again" })
        }
    }
}
