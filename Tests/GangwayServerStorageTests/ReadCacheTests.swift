import Foundation
import GangwayServerStorage
import GangwayTesting
import Testing

@Suite("The read cache: entries live for their lifetime on the injected clock")
struct ReadCacheTests {
    /// Two storages on one database: one without a cache, as another process would be,
    /// and one with a cache of one second on a clock the test moves.
    static func storages(
        in directory: TemporaryDirectory
    ) async throws -> (other: ServerStorage, cached: ServerStorage, clock: ManualMonotonicClock) {
        let driver = try SQLiteDriver(path: directory.appending("server.sqlite").path)
        let database = ServerStorage(driver)
        try await database.migrate()
        let clock = ManualMonotonicClock()
        return (database, ServerStorage(driver, cache: ReadCache(lifetime: .seconds(1), clock: clock)), clock)
    }

    @Test("a write by another process shows once the entry's lifetime has passed, not before")
    func entriesExpireByTheInjectedClock() async throws {
        let directory = try TemporaryDirectory(prefix: "gangway-cache")
        defer { directory.remove() }
        let (database, cache, clock) = try await Self.storages(in: directory)
        var app = AppRecord(id: "checks", name: "Checks", createdAt: Date(timeIntervalSince1970: 1_800_000_000))
        try await cache.insertApp(app)
        #expect(try await cache.app(id: "checks")?.name == "Checks")

        // Another process renames it, past this one's cache.
        app.name = "Ground checks"
        try await database.updateApp(app)
        #expect(try await cache.app(id: "checks")?.name == "Checks", "cached")
        clock.advance(by: .milliseconds(999))
        #expect(try await cache.app(id: "checks")?.name == "Checks", "a millisecond before its end")
        clock.advance(by: .milliseconds(1))
        #expect(try await cache.app(id: "checks")?.name == "Ground checks", "read again")

        // A write through this process is seen at once.
        app.name = "Checks at the stand"
        try await cache.updateApp(app)
        #expect(try await cache.app(id: "checks")?.name == "Checks at the stand")
    }

    @Test(
        "a user and a destination, as the proxy reads them: kept for the lifetime, dropped by a write through this process"
    )
    func usersAndDestinations() async throws {
        let directory = try TemporaryDirectory(prefix: "gangway-cache")
        defer { directory.remove() }
        let (database, cache, clock) = try await Self.storages(in: directory)
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        try await cache.insertApp(AppRecord(id: "checks", name: "Checks", createdAt: now))
        var user = UserRecord(username: "alice", displayName: "Alice", passwordHash: "h", createdAt: now)
        #expect(try await cache.cachedUser(named: "alice") == nil)
        try await cache.insertUser(user)
        #expect(
            try await cache.cachedUser(named: "alice") == user,
            "a new user is seen at once, not the cached absence"
        )
        var destination = DestinationRecord(
            appID: "checks",
            name: "orders",
            url: "https://orders.example/api",
            authentication: .identity,
            createdAt: now
        )
        #expect(try await cache.destination(appID: "checks", name: "orders") == nil)
        #expect(try await cache.putDestination(destination))
        #expect(try await cache.destination(appID: "checks", name: "orders") == destination)

        // Another process blocks alice and moves the destination, past this one's cache.
        var blocked = user
        blocked.blocked = true
        try await database.updateUser(blocked)
        var moved = destination
        moved.url = "https://orders-2.example/api"
        #expect(try await !database.putDestination(moved))
        #expect(try await cache.cachedUser(named: "alice")?.blocked == false, "cached")
        #expect(try await cache.user(named: "alice")?.blocked == true, "a sign-in reads past the cache")
        #expect(try await cache.destination(appID: "checks", name: "orders")?.url == destination.url, "cached")
        clock.advance(by: .seconds(1))
        #expect(try await cache.cachedUser(named: "alice")?.blocked == true, "read again")
        #expect(try await cache.destination(appID: "checks", name: "orders")?.url == moved.url, "read again")

        // Writes through this process are seen at once.
        user.blocked = false
        user.displayName = "Alice Martin"
        try await cache.updateUser(user)
        #expect(try await cache.cachedUser(named: "alice") == user)
        destination.url = "https://orders-3.example/api"
        #expect(try await !cache.putDestination(destination))
        #expect(try await cache.destination(appID: "checks", name: "orders")?.url == destination.url)
        #expect(try await cache.deleteDestination(appID: "checks", name: "orders"))
        #expect(try await cache.destination(appID: "checks", name: "orders") == nil)
    }
}
