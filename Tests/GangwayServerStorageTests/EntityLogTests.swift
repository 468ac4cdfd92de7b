import Foundation
import GangwayServerTesting
import GangwayTesting
import Testing

@testable import GangwayServerStorage

/// An entity set's change log is read by cursor: a reader past a position must never
/// miss a write at or before it, whatever order concurrent writers commit in.
@Suite(
    "An entity set's change log: a reader past a position never misses a write, however writers interleave",
    .tags(.postgres),
    .skipsTags
)
struct EntityLogTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)
    static let app = "checks"
    static let set = "checks"

    static func entity(_ id: String, _ status: String) -> EntityRecord {
        EntityRecord(appID: app, entitySet: set, id: id, fields: ["status": status], updatedAt: now, updatedBy: "admin")
    }

    /// A device that follows the log: it reads every page past its cursor up to the
    /// set's last position and keeps the IDs it saw.
    struct Follower {
        var cursor: Int64 = 0
        var seen: [String] = []

        mutating func catchUp(_ storage: ServerStorage) async throws {
            var through: Int64?
            while true {
                let page = try await storage.entityLog(
                    appID: EntityLogTests.app,
                    entitySet: EntityLogTests.set,
                    after: cursor,
                    through: through,
                    includingRemovals: true,
                    limit: 2
                )
                through = through ?? page.lastPosition
                seen += page.entries.map(\.id)
                guard page.hasMore, let last = page.entries.last else {
                    cursor = max(cursor, through ?? 0)
                    return
                }
                cursor = last.position
            }
        }
    }

    /// A transaction held open until `release` is signalled, after `started` is.
    struct HeldTransaction {
        let started: AsyncStream<Void>
        let startedSignal: AsyncStream<Void>.Continuation
        let release: AsyncStream<Void>
        let releaseSignal: AsyncStream<Void>.Continuation

        init() {
            (started, startedSignal) = AsyncStream.makeStream()
            (release, releaseSignal) = AsyncStream.makeStream()
        }

        func waitUntilStarted() async { for await _ in started { return } }
        func waitForRelease() async { for await _ in release { return } }
    }

    @Test(
        "a naive cursor over a database sequence skips the write that commits after a later-numbered one",
        .enabled(if: TestDatabase.postgresqlFromEnvironment != nil, "needs PostgreSQL (GANGWAY_POSTGRES_URL)")
    )
    func naiveSequenceSkips() async throws {
        try await StorageUnderTest.withStorage(on: .postgresql) { storage in
            _ = try await storage.driver.write("CREATE TABLE naive_log (position BIGSERIAL PRIMARY KEY, id TEXT)")
            let held = HeldTransaction()
            let first = Task {
                try await storage.driver.write(locking: []) { connection in
                    try await connection.execute("INSERT INTO naive_log (id) VALUES ('first')")
                    held.startedSignal.yield()
                    await held.waitForRelease()
                }
            }
            await held.waitUntilStarted()
            _ = try await storage.driver.write("INSERT INTO naive_log (id) VALUES ('second')")
            var cursor: Int64 = 0
            var seen: [String] = []
            func catchUp() async throws {
                for row in try await storage.driver.read(
                    "SELECT position, id FROM naive_log WHERE position > \(cursor) ORDER BY position"
                ) {
                    seen.append(try row("id"))
                    cursor = try row("position")
                }
            }
            try await catchUp()
            held.releaseSignal.yield()
            try await first.value
            try await catchUp()
            // The trap the change log must not fall into: 'first' took position 1, became
            // visible after 'second' (position 2), and the reader past 2 never sees it.
            #expect(seen == ["second"])
            #expect(try await storage.driver.read("SELECT id FROM naive_log").count == 2)
        }
    }

    @Test(
        "a write that takes a position first and commits last holds back later writes, so a follower sees every one",
        arguments: Backend.available
    )
    func interleavedWriters(backend: Backend) async throws {
        try await StorageUnderTest.withStorage(on: backend) { storage in
            try await storage.insertApp(AppRecord(id: Self.app, name: "Checks", createdAt: Self.now))
            _ = try await storage.putEntity(Self.entity("before", "open"), limit: 100)
            var follower = Follower()
            try await follower.catchUp(storage)
            #expect(follower.seen == ["before"])

            // The first writer takes the next position and writes, then waits, uncommitted.
            let held = HeldTransaction()
            let first = Task {
                try await storage.driver.write(locking: [ServerStorage.writers(of: Self.app, Self.set)]) {
                    connection in
                    var entity = Self.entity("first", "open")
                    entity.position = try await ServerStorage.takePositions(
                        1,
                        appID: Self.app,
                        entitySet: Self.set,
                        adding: 1,
                        connection
                    )
                    try await connection.execute(EntityRecord.upsert([(entity, createdBy: nil)]))
                    held.startedSignal.yield()
                    await held.waitForRelease()
                    return entity.position
                }
            }
            await held.waitUntilStarted()
            // The second writer starts while the first is open; the follower reads as it may.
            let second = Task { try await storage.putEntity(Self.entity("second", "open"), limit: 100).0.position }
            for _ in 0..<20 {
                try await follower.catchUp(storage)
                await Task.yield()
            }
            #expect(follower.seen == ["before"], "nothing of an open write, nor anything after it, is visible")
            held.releaseSignal.yield()
            let firstPosition = try await first.value
            let secondPosition = try await second.value
            try await follower.catchUp(storage)
            #expect(firstPosition < secondPosition)
            #expect(follower.seen == ["before", "first", "second"])
            #expect(follower.cursor == secondPosition)
        }
    }

    @Test(
        "a removal is a tombstone at the next position; a write over it revives the entity; a purge forgets it",
        arguments: Backend.available
    )
    func removalsAndPurge(backend: Backend) async throws {
        try await StorageUnderTest.withStorage(on: backend) { storage in
            try await storage.insertApp(AppRecord(id: Self.app, name: "Checks", createdAt: Self.now))
            for id in ["a", "b", "c"] { _ = try await storage.putEntity(Self.entity(id, "open"), limit: 100) }
            var follower = Follower()
            try await follower.catchUp(storage)
            #expect(try await storage.deleteEntity(appID: Self.app, entitySet: Self.set, id: "b", at: Self.now))
            #expect(try await !storage.deleteEntity(appID: Self.app, entitySet: Self.set, id: "b", at: Self.now))
            let page = try await storage.entityLog(
                appID: Self.app,
                entitySet: Self.set,
                after: follower.cursor,
                through: nil,
                includingRemovals: true,
                limit: 10
            )
            #expect(page.entries == [.removed(id: "b", position: 4, removedAt: Self.now)])
            #expect(try await storage.entities(appID: Self.app, entitySet: Self.set).map(\.id) == ["a", "c"])
            // A reader from nothing is given no tombstones.
            let fresh = try await storage.entityLog(
                appID: Self.app,
                entitySet: Self.set,
                after: 0,
                through: nil,
                includingRemovals: false,
                limit: 10
            )
            #expect(fresh.entries.map(\.id) == ["a", "c"])

            // Put again, the entity is new (version 1) at the next position.
            let (revived, created) = try await storage.putEntity(Self.entity("b", "done"), limit: 100)
            #expect(created && revived.version == 1 && revived.position == 5)

            _ = try await storage.deleteEntity(appID: Self.app, entitySet: Self.set, id: "c", at: Self.now)
            #expect(try await storage.purgeRemovals(before: Self.now) == 0, "a removal at the cutoff is kept")
            #expect(try await storage.purgeRemovals(before: Self.now.addingTimeInterval(1)) == 1)
            let after = try await storage.entityLog(
                appID: Self.app,
                entitySet: Self.set,
                after: 0,
                through: nil,
                includingRemovals: true,
                limit: 10
            )
            #expect(after.entries.map(\.id) == ["a", "b"])
            #expect(after.purgedThrough == 6 && after.lastPosition == 6)
        }
    }
}
