import Foundation
import GangwayProtocol
import GangwayServer
import GangwayServerStorage
import GangwayServerTesting
import GangwayTesting
import HTTPTypes
import Testing

@Suite(
    "App data sync: a device reads what changed since its cursor, a page at a time",
    .servingTurn,
    .tags(.postgres),
    .skipsTags
)
struct AppDataSyncTests {
    typealias Changes = Components.Schemas.EntityChanges

    static func put(_ api: API, _ id: String, _ status: String) async throws {
        let reply = try await api.admin(
            .put,
            "/admin/apps/checks/data/checks/\(id)",
            json: #"{"fields": {"status": "\#(status)"}}"#
        )
        #expect([.created, .ok].contains(reply.status), "\(reply.text)")
    }

    /// Reads pages from `cursor` until the sync ends; every page, in order.
    static func sync(
        _ api: API,
        token: String,
        from cursor: String?,
        limit: Int
    ) async throws -> [Changes] {
        var pages: [Changes] = []
        var cursor = cursor
        repeat {
            let query = "limit=\(limit)" + (cursor.map { "&cursor=\($0)" } ?? "")
            let reply = try await api.send(.get, "/apps/checks/data/checks/changes?\(query)", token: token)
            try api.expectStatus(reply, .ok)
            let page = try reply.decode(Changes.self)
            pages.append(page)
            cursor = page.cursor
        } while pages.last?.more == true && pages.count < 100
        return pages
    }

    @Test(
        "from nothing the device gets every entity in pages; then only what was written or removed since",
        arguments: Backend.available
    )
    func fromNothingThenDeltas(backend: Backend) async throws {
        let fixture = try await ServerFixture(backend: backend)
        try await fixture.runSeeded { api in
            for index in 1...5 { try await Self.put(api, "check-\(index)", "open") }
            // A removal before the device's first sync is no concern of a copy from nothing.
            try api.expectStatus(try await api.admin(.delete, "/admin/apps/checks/data/checks/check-5"), .noContent)
            let token = try await api.signIn("alice")
            _ = try await api.register(token: token)

            let first = try await Self.sync(api, token: token, from: nil, limit: 2)
            #expect(first.map(\.more) == [true, false])
            #expect(first.flatMap(\.entities).map(\.id) == ["check-1", "check-2", "check-3", "check-4"])
            #expect(first.flatMap(\.removed).isEmpty)
            let cursor = try #require(first.last?.cursor)

            // Nothing changed: one empty page, the same cursor.
            let idle = try await Self.sync(api, token: token, from: cursor, limit: 2)
            #expect(idle.count == 1 && idle[0].entities.isEmpty && idle[0].removed.isEmpty)
            #expect(idle[0].cursor == cursor)

            try await Self.put(api, "check-2", "done")
            try await Self.put(api, "check-6", "open")
            try api.expectStatus(try await api.admin(.delete, "/admin/apps/checks/data/checks/check-1"), .noContent)
            try await Self.put(api, "check-2", "checked")
            let delta = try await Self.sync(api, token: token, from: cursor, limit: 1000)
            #expect(delta.count == 1)
            // Each entity once, in its state now, in the order of its last write.
            #expect(delta[0].entities.map(\.id) == ["check-6", "check-2"])
            #expect(delta[0].entities.last?.fields.additionalProperties == ["status": "checked"])
            #expect(delta[0].entities.last?.version == 3)
            #expect(delta[0].removed.map(\.id) == ["check-1"])
            let positions = delta[0].entities.compactMap(\.position) + delta[0].removed.map(\.position)
            #expect(positions.count == 3 && Set(positions).count == 3)
            // A set that fits the console's page is shown whole, with no word of more.
            let cookie = try await OperatorsTests.consoleCookie(api.fixture, "ops.vic", role: .viewer)
            let console = try await api.send(.get, "/console/data?app=checks&set=checks", headers: cookie)
            #expect(console.status == .ok && console.text.contains("check-6") && !console.text.contains("more follow"))
        }
    }

    @Test(
        "the pages of one sync end where it began: a write during a sync waits for the next one",
        arguments: Backend.available
    )
    func pagesEndAtTheCheckpoint(backend: Backend) async throws {
        let fixture = try await ServerFixture(backend: backend)
        try await fixture.runSeeded { api in
            for index in 1...4 { try await Self.put(api, "check-\(index)", "open") }
            let token = try await api.signIn("alice")
            _ = try await api.register(token: token)
            let page = try await api.send(.get, "/apps/checks/data/checks/changes?limit=2", token: token)
                .decode(Changes.self)
            #expect(page.more)
            try await Self.put(api, "check-1", "done")
            try await Self.put(api, "check-9", "open")
            let rest = try await Self.sync(api, token: token, from: page.cursor, limit: 2)
            // check-1 moved past the checkpoint: this sync does not carry it again.
            #expect(rest.flatMap(\.entities).map(\.id) == ["check-3", "check-4"])
            let next = try await Self.sync(api, token: token, from: rest.last?.cursor, limit: 2)
            #expect(next.flatMap(\.entities).map(\.id) == ["check-1", "check-9"])
            #expect(next.flatMap(\.entities).first?.fields.additionalProperties == ["status": "done"])
        }
    }

    @Test(
        "a sync answers the same whether its query is plain (read ahead of the router) or not (read by the router)",
        arguments: Backend.available
    )
    func plainAndOtherQueriesAnswerAlike(backend: Backend) async throws {
        let fixture = try await ServerFixture(backend: backend)
        try await fixture.runSeeded { api in
            // Written as JSON: a backslash, quotes and a slash in the status.
            for index in 1...3 { try await Self.put(api, "check-\(index)", #"open \\ \"/\" ✈️"#) }
            let token = try await api.signIn("alice")
            _ = try await api.register(token: token)
            let path = "/apps/checks/data/checks/changes"
            // Each pair: a plain query, and one that asks the same in a form only the
            // router reads (an escape, a name it ignores, the names in another order).
            let first = try await api.send(.get, "\(path)?limit=2", token: token)
            try api.expectStatus(first, .ok)
            #expect(first.headers[.contentType]?.hasPrefix("application/json") == true)
            let cursor = try first.decode(Changes.self).cursor
            for (plain, other) in [
                ("limit=2", "limit=%32"), ("limit=2", "x=1&limit=2"), ("", "x=1"),
                ("limit=2&cursor=\(cursor)", "cursor=\(cursor)&limit=%32"),
                ("cursor=\(cursor)&wait=1", "cursor=\(cursor.replacingOccurrences(of: ".", with: "%2E"))&wait=1"),
            ] {
                let fast = try await api.send(.get, "\(path)?\(plain)", token: token)
                let routed = try await api.send(.get, "\(path)?\(other)", token: token)
                try api.expectStatus(fast, .ok)
                try api.expectStatus(routed, .ok)
                #expect(try fast.decode(Changes.self) == routed.decode(Changes.self), "\(plain) and \(other)")
            }
            // Refusals too: the same status, code and sentence; without a token, or for
            // an app that does not exist, as well.
            for (path, plain, other) in [
                ("/apps/checks/data/checks/changes", "limit=5", "x=1"),
                ("/apps/nowhere/data/checks/changes", "limit=5", "x=1"),
                ("/apps/nowhere/settings", "", "x=1"), ("/apps/nowhere/data/checks", "", "x=1"),
            ] {
                let fast = try await api.send(.get, "\(path)?\(plain)")
                let routed = try await api.send(.get, "\(path)?\(other)")
                #expect(fast.status == .unauthorized && routed.status == .unauthorized, "\(path)")
                #expect(fast.code == "UNAUTHORIZED" && routed.code == "UNAUTHORIZED", "\(path)")
            }
            // A session of another app: the same answer either way.
            let elsewhere = try await api.send(.get, "/apps/nowhere/data/checks/changes?limit=5", token: token)
            let elsewhereRouted = try await api.send(.get, "/apps/nowhere/data/checks/changes?x=1", token: token)
            #expect(elsewhere.status == elsewhereRouted.status && elsewhere.code == elsewhereRouted.code)
            #expect(elsewhere.status.code >= 400, "\(elsewhere.text)")
            for (plain, other) in [
                ("limit=0", "limit=%30"), ("limit=5001", "limit=5001&x=1"), ("cursor=x", "cursor=%78"),
                ("wait=999", "wait=999&x=1"), ("limit=abc", "limit=abc"),
                ("limit=", "limit="), ("limit=1234567890", "limit=1234567890"),
            ] {
                let fast = try await api.send(.get, "\(path)?\(plain)", token: token)
                let routed = try await api.send(.get, "\(path)?\(other)", token: token)
                #expect(fast.status == routed.status, "\(plain): \(fast.text) and \(other): \(routed.text)")
                #expect(fast.status.code >= 400, "\(plain)")
                let messages = [fast, routed].map { (try? $0.json)?["message"] as? String }
                #expect(fast.code == routed.code && messages[0] == messages[1], "\(plain) and \(other)")
            }
        }
    }

    @Test(
        "a cursor this server cannot continue from, a page size out of range, or no registration is refused",
        arguments: Backend.available
    )
    func refusals(backend: Backend) async throws {
        let fixture = try await ServerFixture(backend: backend)
        try await fixture.runSeeded { api in
            try await Self.put(api, "check-1", "open")
            let token = try await api.signIn("alice")
            let unregistered = try await api.send(.get, "/apps/checks/data/checks/changes", token: token)
            #expect(unregistered.status == .forbidden)
            #expect(unregistered.code == "DEVICE_NOT_REGISTERED")
            #expect(try await api.send(.get, "/apps/checks/data/checks/changes").status == .unauthorized)
            _ = try await api.register(token: token)
            // A cursor the server cannot read is one it cannot continue from.
            for cursor in [
                "x", "0", "2.1", "1.", "1.01", "1.-1", "1.5.3", "1.1.2.x", "1.1.2.s.s", "1.99999999999999999999",
            ] {
                let reply = try await api.send(.get, "/apps/checks/data/checks/changes?cursor=\(cursor)", token: token)
                #expect(reply.status == .gone, "\(cursor)")
                #expect(reply.code == "CURSOR_EXPIRED", "\(cursor)")
            }
            // One longer than the document allows is not a cursor at all.
            let long = String(repeating: "1", count: APILimits.syncCursor.upperBound + 1)
            let tooLong = try await api.send(.get, "/apps/checks/data/checks/changes?cursor=\(long)", token: token)
            #expect(tooLong.status == .badRequest && tooLong.code == "INVALID_FIELD")
            for limit in ["0", "5001", "-1"] {
                let reply = try await api.send(.get, "/apps/checks/data/checks/changes?limit=\(limit)", token: token)
                #expect(reply.status == .badRequest, "\(limit)")
            }
            // A cursor past the set's log: the server's data is older than the device's copy.
            let ahead = try await api.send(.get, "/apps/checks/data/checks/changes?cursor=1.7", token: token)
            #expect(ahead.status == .gone)
            #expect(ahead.code == "CURSOR_EXPIRED")
            #expect(ahead.text.contains("from the start"))
        }
    }

    @Test(
        "a cursor older than the removals the server keeps (30 days, or as the admin sets) is told to read the set again; from nothing it may",
        arguments: Backend.available,
        [nil, 2] as [Int?]
    )
    func forgottenRemovals(backend: Backend, days: Int?) async throws {
        let fixture = try await ServerFixture(backend: backend)
        try await fixture.runSeeded { api in
            if let days {
                let settings = #"{"settings": {"dataSettings": {"removalsKeptDays": \#(days)}}}"#
                let app = try await api.admin(.patch, "/admin/apps/checks", json: settings)
                try api.expectStatus(app, .ok)
                #expect(
                    app.text.contains(#""removalsKeptDays":\#(days)"#)
                        || app.text.contains(#""removalsKeptDays" : \#(days)"#)
                )
            }
            let kept = days ?? APIDefaults.removalsKeptDays
            for index in 1...3 { try await Self.put(api, "check-\(index)", "open") }
            let token = try await api.signIn("alice")
            _ = try await api.register(token: token)
            let cursor = try #require(try await Self.sync(api, token: token, from: nil, limit: 10).last?.cursor)
            try api.expectStatus(try await api.admin(.delete, "/admin/apps/checks/data/checks/check-2"), .noContent)
            fixture.clock.advance(by: .seconds(Double(kept) * 86_400 - 60))
            try await fixture.server.purgeExpired()
            // Within the days kept, the removal is still told (the session ended meanwhile).
            let token2 = try await api.signIn("alice")
            let within = try await Self.sync(api, token: token2, from: cursor, limit: 10)
            #expect(within.flatMap(\.removed).map(\.id) == ["check-2"])

            fixture.clock.advance(by: .seconds(120))
            try await fixture.server.purgeExpired()
            let expired = try await api.send(.get, "/apps/checks/data/checks/changes?cursor=\(cursor)", token: token2)
            #expect(expired.status == .gone)
            #expect(expired.code == "CURSOR_EXPIRED")
            #expect(expired.text.contains("(\(kept) days)"), "\(expired.text)")
            // The copy it caught up with after the removal is still good.
            let later = try #require(within.last?.cursor)
            #expect(try await Self.sync(api, token: token2, from: later, limit: 10).last?.removed.isEmpty == true)
            let again = try await Self.sync(api, token: token2, from: nil, limit: 10)
            #expect(again.flatMap(\.entities).map(\.id) == ["check-1", "check-3"])
        }
    }

    @Test("the days removals are kept are bounded as the document says, and refused with a sentence")
    func removalsKeptDaysBounds() async throws {
        try await ServerFixture().runSeeded { api in
            for days in ["0", "3651", "-1", "\"30\""] {
                let settings = #"{"settings": {"dataSettings": {"removalsKeptDays": \#(days)}}}"#
                let reply = try await api.admin(.patch, "/admin/apps/checks", json: settings)
                #expect(reply.status == .badRequest, "\(days): \(reply.text)")
            }
            let app = try await api.admin(.get, "/admin/apps/checks")
            #expect(!app.text.contains("removalsKeptDays"), "nothing was set: \(app.text)")
            let bad = try await api.admin(
                .patch,
                "/admin/apps/checks",
                json: #"{"settings": {"dataSettings": {"removalsKeptDays": 0}}}"#
            )
            #expect(bad.text.contains("removalsKeptDays must be between 1 and 3650"), "\(bad.text)")
            // Rules of sets given later keep the days.
            let set = #"{"settings": {"dataSettings": {"removalsKeptDays": 90}}}"#
            try api.expectStatus(try await api.admin(.patch, "/admin/apps/checks", json: set), .ok)
            let rules =
                #"{"settings": {"dataSettings": {"entitySets": {"checks": {"writableFields": ["status"], "allowsCreation": false}}}}}"#
            let after = try await api.admin(.patch, "/admin/apps/checks", json: rules)
            try api.expectStatus(after, .ok)
            let settings = try after.decode(Components.Schemas.App.self).settings
            #expect(settings.dataSettings?.removalsKeptDays == 90)
            #expect(settings.dataSettings?.entitySets?.additionalProperties["checks"]?.writableFields == ["status"])
        }
    }

    /// Writes `count` entities into the demo's `checks` set in one statement, as a bulk
    /// load would: `check-100001` on, each at its own position.
    static func fill(_ server: MobileServicesServer, count: Int) async throws {
        _ = try await server.storage.driver.write(
            """
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < \(count))
            INSERT INTO entities (app_id, entity_set, id, fields, version, updated_at, updated_by, position)
            SELECT 'checks', 'checks', 'check-' || (100000 + i), '{"status":"open"}', 1, 0, 'admin', i FROM n
            """
        )
        _ = try await server.storage.driver.write(
            """
            INSERT INTO entity_sets (app_id, entity_set, last_position, live_count)
            VALUES ('checks', 'checks', \(count), \(count))
            """
        )
    }

    @Test(
        "a set past the whole-read limit: a device syncs it in pages, the admin lists it in pages, none reads it whole",
        arguments: Backend.available
    )
    func aLargeSet(backend: Backend) async throws {
        let fixture = try await ServerFixture(backend: backend)
        try await fixture.runSeeded { api in
            let count = EntityLimits.entitiesReadWhole + 1
            try await Self.fill(api.fixture.server, count: count)
            let token = try await api.signIn("alice")
            _ = try await api.register(token: token)
            let whole = try await api.send(.get, "/apps/checks/data/checks", token: token)
            #expect(whole.status == .conflict)
            #expect(whole.code == "ENTITY_SET_TOO_LARGE")
            #expect(whole.text.contains("/changes"))

            let pages = try await Self.sync(api, token: token, from: nil, limit: 5000)
            #expect(pages.map(\.more) == [true, true, false])
            let ids = pages.flatMap(\.entities).map(\.id)
            #expect(ids.count == count && Set(ids).count == count)

            let first = try await api.admin(.get, "/admin/apps/checks/data/checks")
                .decode(Components.Schemas.EntityList.self)
            #expect(first.entities.count == APIDefaults.listLimit && first.more == true)
            let last = try #require(first.entities.last?.id)
            let next = try await api.admin(.get, "/admin/apps/checks/data/checks?after=\(last)&limit=1000")
                .decode(Components.Schemas.EntityList.self)
            #expect(next.entities.count == 1000 && next.entities.first?.id == "check-100101")
            let end = try await api.admin(.get, "/admin/apps/checks/data/checks?after=check-109990&limit=1000")
                .decode(Components.Schemas.EntityList.self)
            #expect(end.entities.map(\.id) == (109_991...110_001).map { "check-\($0)" } && end.more == false)
            // The console shows the first entities and says more follow; a small set is shown whole.
            let cookie = try await OperatorsTests.consoleCookie(api.fixture, "ops.vic", role: .viewer)
            let console = try await api.send(.get, "/console/data?app=checks&set=checks", headers: cookie)
            #expect(console.status == .ok)
            #expect(console.text.contains("500 shown, more follow"))
            #expect(console.text.contains("check-100500") && !console.text.contains("check-100501"))
            // Its next page follows on from the last entity shown, and links back to the first.
            let nextLink = "/console/data?app=checks&amp;set=checks&amp;after=check-100500"
            #expect(console.text.contains(nextLink) && !console.text.contains("First entities"))
            let second = try await api.send(
                .get,
                "/console/data?app=checks&set=checks&after=check-100500",
                headers: cookie
            )
            #expect(second.status == .ok)
            #expect(second.text.contains("after check-100500") && second.text.contains("check-100501"))
            #expect(!second.text.contains(">check-100500<") && second.text.contains("check-101000"))
            #expect(second.text.contains("after=check-101000") && second.text.contains("First entities"))
            let lastPage = try await api.send(
                .get,
                "/console/data?app=checks&set=checks&after=check-109999",
                headers: cookie
            )
            #expect(lastPage.text.contains("check-110001") && !lastPage.text.contains("Next entities"))
            let past = try await api.send(.get, "/console/data?app=checks&set=checks&after=check-2", headers: cookie)
            #expect(past.text.contains("No entity in this set after check-2."))
            let bad = try await api.send(.get, "/console/data?app=checks&set=checks&after=b%40d", headers: cookie)
            #expect(bad.status == .badRequest && bad.text.contains("b@d") && bad.text.contains("is not an entity"))
            for query in ["limit=0", "limit=1001", "after=b%40d", "after="] {
                let refused = try await api.admin(.get, "/admin/apps/checks/data/checks?\(query)")
                #expect(refused.status == .badRequest, "\(query)")
            }
        }
    }
}
