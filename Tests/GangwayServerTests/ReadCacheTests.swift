import Foundation
import GangwayServer
import GangwayServerStorage
import GangwayTesting
import Testing

@Suite("The read cache: entries live for their lifetime on the injected clock")
struct ReadCacheTests {
    @Test("a write by another process shows once the entry's lifetime has passed, not before")
    func entriesExpireByTheInjectedClock() async throws {
        let directory = try TemporaryDirectory(prefix: "gangway-cache")
        defer { directory.remove() }
        // Two storages on one database: one without a cache, as another process.
        let driver = try SQLiteDriver(path: directory.appending("server.sqlite").path)
        let database = ServerStorage(driver)
        try await database.migrate()
        let clock = ManualMonotonicClock()
        let cache = ServerStorage(driver, cache: ReadCache(lifetime: .seconds(1), clock: clock))
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
}
