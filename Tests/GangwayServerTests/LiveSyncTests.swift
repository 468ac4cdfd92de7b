import Foundation
import GangwayProtocol
import GangwayServer
import GangwayServerTesting
import GangwayTesting
import HTTPTypes
import Testing

@Suite(
    "A device that is current waits for the next change: answered when the set changes, through any server process",
    .servingTurn,
    .tags(.postgres),
    .skipsTags
)
struct LiveSyncTests {
    typealias Changes = Components.Schemas.EntityChanges

    /// A device current with the set: its cursor.
    static func current(_ api: API, _ token: String) async throws -> String {
        let pages = try await AppDataSyncTests.sync(api, token: token, from: nil, limit: 1000)
        return try #require(pages.last?.cursor)
    }

    @Test(
        "a wait ends at the change, written through another server on the same database",
        arguments: Backend.available
    )
    func wokenAcrossServers(backend: Backend) async throws {
        let fixture = try await ServerFixture(over: .loopback, backend: backend)
        var configuration = fixture.server.configuration
        configuration.cacheLifetime = .seconds(3600)
        let other = try await MobileServicesServer(
            configuration: configuration,
            logger: fixture.logs.logger,
            now: fixture.clock.now
        )
        try await fixture.runSeeded { api in
            try await AppDataSyncTests.put(api, "c1", "open")
            let token = try await api.signIn("alice")
            _ = try await api.register(token: token)
            let cursor = try await Self.current(api, token)
            try await TestServer(server: other, adminToken: fixture.adminToken).run { running in
                let waiting = API(running: running, fixture: fixture)
                let clock = ContinuousClock()
                let start = clock.now
                async let answer = waiting.send(
                    .get,
                    "/apps/checks/data/checks/changes?cursor=\(cursor)&wait=15",
                    token: token
                )
                try await Task.sleep(for: .milliseconds(300))
                // Written through the first server: the second learns of it from the database.
                try await AppDataSyncTests.put(api, "c2", "open")
                let reply = try await answer
                try api.expectStatus(reply, .ok)
                let page = try reply.decode(Changes.self)
                #expect(page.entities.map(\.id) == ["c2"])
                #expect(page.cursor != cursor && !page.more)
                // Answered at the change, well before the wait would have ended.
                #expect(clock.now - start < .seconds(10), "\(clock.now - start)")
            }
        }
    }

    @Test(
        "a wait with no change ends empty with the same cursor; one past its bounds is refused; a copy behind is answered at once"
    )
    func waitBounds() async throws {
        try await ServerFixture().runSeeded { api in
            try await AppDataSyncTests.put(api, "c1", "open")
            let token = try await api.signIn("alice")
            _ = try await api.register(token: token)
            let cursor = try await Self.current(api, token)
            let clock = ContinuousClock()
            let start = clock.now
            let idle = try await api.send(
                .get,
                "/apps/checks/data/checks/changes?cursor=\(cursor)&wait=1",
                token: token
            )
            try api.expectStatus(idle, .ok)
            let page = try idle.decode(Changes.self)
            #expect(page.entities.isEmpty && page.removed.isEmpty && page.cursor == cursor)
            #expect(clock.now - start >= .seconds(1), "it waited")
            for wait in ["0", "16", "-1", "x"] {
                let reply = try await api.send(
                    .get,
                    "/apps/checks/data/checks/changes?cursor=\(cursor)&wait=\(wait)",
                    token: token
                )
                #expect(reply.status == .badRequest, "wait=\(wait): \(reply.text)")
            }
            // A first read (no cursor) of a set with nothing in it: answered at once.
            let first = clock.now
            let fresh = try await api.send(.get, "/apps/checks/data/empty/changes?wait=15", token: token)
            #expect(fresh.status == .ok, "\(fresh.text)")
            #expect(try fresh.decode(Changes.self).entities.isEmpty)
            #expect(clock.now - first < .seconds(5), "a first read does not wait")
            // Something to read: no wait at all.
            try await AppDataSyncTests.put(api, "c2", "open")
            let behind = clock.now
            let reply = try await api.send(
                .get,
                "/apps/checks/data/checks/changes?cursor=\(cursor)&wait=15",
                token: token
            )
            #expect(try reply.decode(Changes.self).entities.map(\.id) == ["c2"])
            #expect(clock.now - behind < .seconds(10))
        }
    }

    @Test("a wait in a part goes on through a change outside it, and ends at one inside", arguments: Backend.available)
    func waitInAPart(backend: Backend) async throws {
        try await ServerFixture(over: .loopback, backend: backend).runSeeded { api in
            let schema = try await api.admin(
                .put,
                "/admin/apps/checks/schemas/checks",
                json: EntitySubsetAPITests.schema
            )
            try api.expectStatus(schema, .ok)
            try api.expectStatus(try await EntitySubsetAPITests.attributes(api, "alice", #"{"stands": ["12"]}"#), .ok)
            try await EntitySubsetAPITests.put(api, "a", stand: "12")
            let token = try await api.signIn("alice")
            _ = try await api.register(token: token)
            let cursor = try await Self.current(api, token)
            let start = ContinuousClock.now
            async let answer = api.sendAlone(
                .get,
                "/apps/checks/data/checks/changes?cursor=\(cursor)&wait=15",
                token: token
            )
            try await Task.sleep(for: .milliseconds(300))
            try await EntitySubsetAPITests.put(api, "b", stand: "14")
            try await Task.sleep(for: .milliseconds(1_200))
            try await EntitySubsetAPITests.put(api, "c", stand: "12")
            let reply = try await answer
            try api.expectStatus(reply, .ok)
            let page = try reply.decode(Changes.self)
            #expect(page.entities.map(\.id) == ["c"], "stand 14 is not alice's")
            #expect(page.part == true && !page.more)
            let waited = ContinuousClock.now - start
            #expect(waited >= .milliseconds(1_500) && waited < .seconds(10), "\(waited)")
        }
    }

    @Test("a hundred devices waiting on one set are all answered by one write")
    func manyWaiters() async throws {
        try await ServerFixture(over: .loopback).runSeeded { api in
            try await AppDataSyncTests.put(api, "c1", "open")
            let token = try await api.signIn("alice")
            _ = try await api.register(token: token)
            let cursor = try await Self.current(api, token)
            try await withThrowingTaskGroup(of: [String].self) { group in
                for _ in 0..<100 {
                    group.addTask {
                        // Each on a connection of its own, as a hundred devices are.
                        let reply = try await api.sendAlone(
                            .get,
                            "/apps/checks/data/checks/changes?cursor=\(cursor)&wait=15",
                            token: token
                        )
                        return try reply.decode(Changes.self).entities.map(\.id)
                    }
                }
                try await Task.sleep(for: .milliseconds(500))
                try await AppDataSyncTests.put(api, "c2", "open")
                let written = ContinuousClock.now
                var answered = 0
                for try await ids in group {
                    #expect(ids == ["c2"])
                    answered += 1
                }
                #expect(answered == 100)
                // All at the write, well before their waits would have ended.
                #expect(ContinuousClock.now - written < .seconds(10), "\(ContinuousClock.now - written)")
            }
        }
    }
}
