import Foundation
import GangwayProtocol
import GangwayServerStorage
import GangwayServerTesting
import GangwayTesting
import HTTPTypes
import Testing

@testable import GangwayServer

/// Devices' changes to a set whose data source delivers them go to the company's OData
/// service, which decides them: sent as their authors, once by their IDs, in order per
/// entity; held on the device until the service answers. The service is not Gangway's
/// code (``TestODataBackend``): it checks each author's token with PyJWT, records
/// idempotency keys and refuses a tyre pressure out of range.
@Suite(
    "Changes delivered: a device's change reaches the company's service as its author, once, and its answer comes back",
    .servingTurn,
    .tags(.postgres),
    .skipsTags
)
struct ChangeDeliveryTests {
    static let rules = #"""
        {"settings": {"dataSettings": {"entitySets": {"checks": {"writableFields": ["Status", "TyrePressure", "Note"], "allowsCreation": true}}}}}
        """#

    typealias Author = ChangeUploadTests.Author

    /// A server over `backend` whose set `checks` is read from the service (ten checks)
    /// and delivers devices' changes to it; Alice and Bob on device-1.
    static func withDelivery(
        backend store: Backend,
        tracer: ServerTracer = .none,
        _ body: (ServerFixture, API, TestODataBackend, Author, Author) async throws -> Void
    ) async throws {
        let fixture = try await ServerFixture(over: .loopback, backend: store, tracer: tracer)
        try await fixture.runSeeded { api in
            let issuer = api.running.url.absoluteString + "/apps/checks"
            try await TestODataBackend.using(jwks: issuer + "/destination-keys", issuer: issuer) { odata in
                try await odata.load(10)
                try await api.admin(.patch, "/admin/apps/checks", json: rules).expect(.ok)
                try await api.admin(.put, "/admin/apps/checks/destinations/erp", json: #"{"url": "\#(odata.url)"}"#)
                    .expect(.created)
                let source = try await api.admin(
                    .put,
                    "/admin/apps/checks/data-sources/checks",
                    json: #"{"destination": "erp", "path": "/Checks", "deliversChanges": true}"#
                )
                try source.expect(.created)
                #expect(try source.decode(Components.Schemas.DataSource.self).deliversChanges)
                _ = try await DataSourceTests.pull(fixture)
                let alice = try await ChangeUploadTests.author("alice", api: api)
                let bob = try await ChangeUploadTests.author("bob", api: api)
                try await body(fixture, api, odata, alice, bob)
            }
        }
    }

    /// Delivers what is due, the clock passing a failed delivery's wait, until no change
    /// waits (the server's own loop delivers too: whichever claims a change first sends
    /// it). The clock moves only as far as a retry needs: the service checks the
    /// tokens' times against its own, with a minute's leeway.
    static func deliverAll(_ fixture: ServerFixture) async throws {
        var advanced = 0
        for _ in 0..<1_000 {
            let waiting = try await fixture.server.storage.deliveries(appID: "checks", limit: 100)
            guard !waiting.isEmpty else { return }
            let failed = waiting.map(\.attempts).max() ?? 0
            if failed > advanced {
                fixture.clock.advance(by: .seconds(Int(ChangeDelivery.retryDelay(after: failed, random: 1)) + 1))
                advanced = failed
            }
            _ = try await fixture.server.deliverDueChanges()
            try await Task.sleep(for: .milliseconds(20))
        }
        let waiting = try await fixture.server.storage.deliveries(appID: "checks", limit: 1).first
        throw TestServerError(
            "changes still wait for delivery: \(waiting?.attempts ?? 0) attempts, \(waiting?.lastError ?? "no error")"
        )
    }

    static func entity(_ fixture: ServerFixture, _ id: String) async throws -> EntityRecord? {
        try await fixture.server.storage.entities(appID: "checks", entitySet: "checks", ids: [id]).first
    }

    @Test(
        "an edit held while the service answers 503 twice reaches it once as its author; sent again, its result is the service's",
        .enabled(if: TestODataBackend.isInstalled, "needs PyJWT in .build-oidc/venv (see .ci/run)"),
        arguments: Backend.available
    )
    func onceThroughFailures(backend: Backend) async throws {
        try await Self.withDelivery(backend: backend) { fixture, api, odata, alice, _ in
            try await odata.fail(2)
            let change = alice.change(sequence: 1, entity: "C-0000001", ["Status": "done", "TyrePressure": "212"])
            let held = try await ChangeUploadTests.upload([change], by: alice, api: api)
            #expect(held.map(\.outcome) == [.held] && held.first?.rejection?.code == "DELIVERING")
            #expect(
                try await Self.entity(fixture, "C-0000001")?.fields["Status"] == "open",
                "not the server's to apply"
            )

            // Sent again while it waits: held again, queued once.
            let again = try await ChangeUploadTests.upload([change], by: alice, api: api)
            #expect(again.map(\.outcome) == [.held])
            #expect(try await fixture.server.storage.deliveries(appID: "checks", limit: 10).count == 1)
            try await Self.deliverAll(fixture)

            let answered = try await ChangeUploadTests.upload([change], by: alice, api: api)
            #expect(answered.first?.outcome == .duplicate && answered.first?.original == .applied)
            let entity = try #require(try await Self.entity(fixture, "C-0000001"))
            #expect(entity.fields["Status"] == "done" && entity.fields["TyrePressure"] == "212")
            #expect(entity.fields["Aircraft"] == "D-A001", "the service's entity, whole")
            #expect(answered.first?.version == entity.version)

            let stats = try await odata.stats()
            #expect(stats["failed"] as? Int == 2, "the service answered 503 twice")
            let key = change.change.id.uuidString.lowercased()
            #expect((stats["applied"] as? [String: Int])?[key] == 1, "applied once, as the service sees it")
            let writes = (stats["writes"] as? [[String: Any]] ?? []).filter { $0["key"] as? String == key }
            #expect(
                writes.count == 1 && writes.first?["sub"] as? String == "alice"
                    && writes.first?["method"] as? String == "PATCH"
            )
        }
    }

    @Test(
        "the service's refusal is the change's result, for its author, also carried by the next user of the device",
        .enabled(if: TestODataBackend.isInstalled, "needs PyJWT in .build-oidc/venv (see .ci/run)"),
        arguments: Backend.available
    )
    func refusalReachesTheAuthor(backend: Backend) async throws {
        try await Self.withDelivery(backend: backend) { fixture, api, odata, alice, bob in
            let change = bob.change(sequence: 1, entity: "C-0000002", ["TyrePressure": "400"])
            #expect(try await ChangeUploadTests.upload([change], by: bob, api: api).map(\.outcome) == [.held])
            try await Self.deliverAll(fixture)
            // Alice, the next user of the shared device, sends Bob's pending change.
            let carried = try await ChangeUploadTests.upload([change], by: alice, api: api)
            #expect(carried.first?.outcome == .duplicate && carried.first?.original == .rejected)
            #expect(carried.first?.rejection?.code == "TYRE_PRESSURE_OUT_OF_RANGE")
            #expect(carried.first?.rejection?.message == "A tyre pressure is from 150 to 300 kPa.")
            #expect(try await Self.entity(fixture, "C-0000002")?.fields["TyrePressure"] == "202", "unchanged")
            let recorded = try await api.admin(.get, "/admin/apps/checks/changes?outcome=rejected")
                .decode([Components.Schemas.RecordedChange].self)
            #expect(recorded.first?.author == "bob" && recorded.first?.carrier == "bob")
            let stats = try await odata.stats()
            let writes = (stats["writes"] as? [[String: Any]] ?? []).filter {
                $0["key"] as? String == change.change.id.uuidString.lowercased()
            }
            #expect(writes.count == 1 && writes.first?["sub"] as? String == "bob")
        }
    }

    @Test(
        "changes of one entity go in the order they came, each after the one before is answered; a new entity is a POST",
        .enabled(if: TestODataBackend.isInstalled, "needs PyJWT in .build-oidc/venv (see .ci/run)"),
        arguments: Backend.available
    )
    func inOrderPerEntity(backend: Backend) async throws {
        try await Self.withDelivery(backend: backend) { fixture, api, odata, alice, _ in
            let first = alice.change(sequence: 1, entity: "C-0000003", ["Status": "started"])
            let second = alice.change(sequence: 2, entity: "C-0000003", ["Status": "done"])
            let other = alice.change(sequence: 3, entity: "C-0000004", ["Note": "ok"])
            let created = alice.change(
                sequence: 4,
                base: nil,
                entity: "N-1",
                ["Status": "open", "TyrePressure": "200"]
            )
            let results = try await ChangeUploadTests.upload([first, second, other, created], by: alice, api: api)
            #expect(results.map(\.outcome) == [.held, .held, .held, .held])
            try await Self.deliverAll(fixture)
            #expect(try await Self.entity(fixture, "C-0000003")?.fields["Status"] == "done")
            #expect(try await Self.entity(fixture, "N-1")?.fields["Status"] == "open")
            let writes = (try await odata.stats()["writes"] as? [[String: Any]] ?? [])
            let order = writes.compactMap { $0["key"] as? String }
            let keys = [first, second].map { $0.change.id.uuidString.lowercased() }
            #expect(order.firstIndex(of: keys[0])! < order.firstIndex(of: keys[1])!)
            #expect(writes.contains { $0["method"] as? String == "POST" })
            let final = try await ChangeUploadTests.upload([first, second, other, created], by: alice, api: api)
            #expect(final.allSatisfy { $0.outcome == .duplicate && $0.original == .applied })
        }
    }
}

extension ChangeDeliveryTests {
    /// The OData service with three checks as the app's destination `erp`, by an API key,
    /// and the set `checks` read from it and delivering devices' changes to it; Alice on
    /// device-1. For tests straight to the router: no loop of the server's own delivers.
    static func withCredentialDelivery(
        _ fixture: ServerFixture,
        _ api: API,
        _ body: (TestODataBackend, Author) async throws -> Void
    ) async throws {
        try await TestODataBackend.using(jwks: "http://127.0.0.1:9/none", issuer: "none", apiKey: "erp-key") { odata in
            try await odata.load(3)
            try await api.admin(.patch, "/admin/apps/checks", json: rules).expect(.ok)
            try await api.admin(
                .put,
                "/admin/apps/checks/destinations/erp",
                json:
                    #"{"url": "\#(odata.url)", "authentication": "credential", "credentialHeader": "X-API-Key", "credential": "erp-key"}"#
            ).expect(.created)
            try await api.admin(
                .put,
                "/admin/apps/checks/data-sources/checks",
                json: #"{"destination": "erp", "path": "/Checks", "deliversChanges": true}"#
            ).expect(.created)
            _ = try await DataSourceTests.pull(fixture)
            try await body(odata, try await ChangeUploadTests.author("alice", api: api))
        }
    }
}

extension ChangeDeliveryTests {
    @Test(
        "a delivery cut off after the service took it is sent again with its key; the service applies it once",
        .enabled(if: TestODataBackend.isInstalled, "needs PyJWT in .build-oidc/venv (see .ci/run)"),
        arguments: [Backend.sqlite]
    )
    func cutOffThenAgain(backend: Backend) async throws {
        // Straight to the router (SQLite only: PostgreSQL is served over loopback): no
        // loop of the server's own delivers, so the test alone decides when a delivery
        // goes, and cuts it off.
        let fixture = try await ServerFixture(backend: backend)
        try await fixture.runSeeded { api in
            try await Self.withCredentialDelivery(fixture, api) { odata, alice in
                let change = alice.change(sequence: 1, entity: "C-0000001", ["Status": "done"])
                #expect(try await ChangeUploadTests.upload([change], by: alice, api: api).map(\.outcome) == [.held])

                // The service takes a second to answer; the delivery is cut off before.
                try await odata.slow(milliseconds: 1_500)
                let cut = Task { try await fixture.server.deliverDueChanges() }
                try await Task.sleep(for: .milliseconds(500))
                cut.cancel()
                #expect(try await cut.value == 0, "no answer was recorded")
                // The service applied it all the same.
                try await Task.sleep(for: .milliseconds(1_500))
                let key = change.change.id.uuidString.lowercased()
                #expect((try await odata.stats()["applied"] as? [String: Int])?[key] == 1)
                #expect(try await Self.entity(fixture, "C-0000001")?.fields["Status"] == "open", "not yet the server's")

                try await odata.slow(milliseconds: 0)
                try await Self.deliverAll(fixture)
                let stats = try await odata.stats()
                #expect((stats["applied"] as? [String: Int])?[key] == 1, "applied once, as the service sees it")
                let writes = (stats["writes"] as? [[String: Any]] ?? []).filter { $0["key"] as? String == key }
                #expect(
                    writes.count == 2 && writes.last?["replayed"] as? Bool == true,
                    "the second, answered from the first"
                )
                #expect(try await Self.entity(fixture, "C-0000001")?.fields["Status"] == "done")
                let answered = try await ChangeUploadTests.upload([change], by: alice, api: api)
                #expect(answered.first?.outcome == .duplicate && answered.first?.original == .applied)
            }
        }
    }
}

extension ChangeDeliveryTests {
    @Test(
        "a change that keeps failing is parked and holds back its entity's later changes; an admin retries one and discards another",
        .enabled(if: TestODataBackend.isInstalled, "needs PyJWT in .build-oidc/venv (see .ci/run)"),
        arguments: [Backend.sqlite]
    )
    func parkedRetriedDiscarded(backend: Backend) async throws {
        let fixture = try await ServerFixture(backend: backend)
        try await fixture.runSeeded { api in
            try await Self.withCredentialDelivery(fixture, api) { odata, alice in
                let first = alice.change(sequence: 1, entity: "C-0000001", ["Status": "done"])
                let behind = alice.change(sequence: 2, entity: "C-0000001", ["Note": "checked twice"])
                let other = alice.change(sequence: 3, entity: "C-0000002", ["Status": "done"])
                _ = try await ChangeUploadTests.upload([first, behind, other], by: alice, api: api)

                try await odata.fail(1_000)
                for _ in 0..<ChangeDelivery.attempts {
                    fixture.clock.advance(by: .seconds(400))
                    _ = try await fixture.server.deliverDueChanges()
                }
                let parked = try await api.admin(.get, "/admin/apps/checks/deliveries?parked=true")
                    .decode([Components.Schemas.Delivery].self)
                let ids = [first, behind, other].map { $0.change.id.uuidString.lowercased() }
                #expect(parked.map(\.changeID) == [ids[0], ids[2]])
                #expect(parked.allSatisfy { $0.attempts == Int64(ChangeDelivery.attempts) && $0.parked })
                #expect(parked.first?.lastError == "The backend answered 503." && parked.first?.fields == ["Status"])
                let all = try await api.admin(.get, "/admin/apps/checks/deliveries")
                    .decode([Components.Schemas.Delivery].self)
                #expect(all.map(\.changeID) == ids && all[1].attempts == 0, "the later change waits, never tried")
                let failed = try await odata.stats()["failed"] as? Int
                #expect(failed == 2 * ChangeDelivery.attempts)
                // Parked: not tried again, however long.
                fixture.clock.advance(by: .seconds(3_600))
                #expect(try await fixture.server.deliverDueChanges() == 0)

                try await odata.fail(0)
                let retried = try await api.admin(.post, "/admin/apps/checks/deliveries/\(ids[0])/retry")
                try retried.expect(.ok)
                #expect(try retried.decode(Components.Schemas.Delivery.self).attempts == 0)
                try await api.admin(.delete, "/admin/apps/checks/deliveries/\(ids[2])").expect(.noContent)
                #expect(try await fixture.server.deliverDueChanges() == 1)
                #expect(try await fixture.server.deliverDueChanges() == 1, "then the change behind it")
                let held = try await Self.entity(fixture, "C-0000001")
                #expect(held?.fields["Status"] == "done" && held?.fields["Note"] == "checked twice")

                let answers = try await ChangeUploadTests.upload([first, behind, other], by: alice, api: api)
                #expect(answers.map(\.original) == [.applied, .applied, .rejected])
                #expect(answers[2].rejection?.code == "DISCARDED")
                #expect(try await Self.entity(fixture, "C-0000002")?.fields["Status"] == "open")
                let actions = try await OperatorsTests.audit(api, "?limit=5").map(\.action)
                #expect(actions.contains("retryDelivery") && actions.contains("discardDelivery"), "\(actions)")
                for path in ["/admin/apps/checks/deliveries/\(ids[2])", "/admin/apps/checks/deliveries/not-a-change"] {
                    let missing = try await api.admin(.delete, path)
                    #expect(missing.status == .notFound && missing.text.contains("DELIVERY_NOT_FOUND"), "\(path)")
                }
                let unknown = try await api.admin(
                    .post,
                    "/admin/apps/checks/deliveries/\(UUID().uuidString.lowercased())/retry"
                )
                #expect(unknown.status == .notFound)
            }
        }
    }
}
