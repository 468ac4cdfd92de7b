import Foundation
import GangwayProtocol
import GangwayServer
import GangwayServerStorage
import GangwayServerTesting
import GangwayTesting
import HTTPTypes
import Testing

/// An entity set filled from the company's own OData v4 service: read whole through next
/// links, then by its delta links, merged with what devices changed meanwhile. The
/// service is not Gangway's code: a Python app that serves only the server's identity
/// token, checked with PyJWT against the server's published keys (``TestODataBackend``).
@Suite(
    "Data sources: an entity set fills itself from the company's OData service, whole and then by its changes",
    .servingTurn,
    .tags(.postgres),
    .skipsTags
)
struct DataSourceTests {
    static let path = "/admin/apps/checks/data-sources"

    /// Runs `body` with a server over `backend`, the OData service as the app's
    /// destination `erp` (identity authentication), and the set `checks` reading its
    /// `/Checks`.
    static func withSource(
        backend store: Backend,
        tracer: ServerTracer = .none,
        _ body: (ServerFixture, API, TestODataBackend) async throws -> Void
    ) async throws {
        let fixture = try await ServerFixture(over: .loopback, backend: store, tracer: tracer)
        try await fixture.runSeeded { api in
            let issuer = api.running.url.absoluteString + "/apps/checks"
            try await TestODataBackend.using(jwks: issuer + "/destination-keys", issuer: issuer) { odata in
                try await api.admin(.put, "/admin/apps/checks/destinations/erp", json: #"{"url": "\#(odata.url)"}"#)
                    .expect(.created)
                let added = try await api.admin(
                    .put,
                    "\(Self.path)/checks",
                    json: #"{"destination": "erp", "path": "/Checks", "keyProperty": "ID"}"#
                )
                try added.expect(.created)
                let source = try added.decode(Components.Schemas.DataSource.self)
                #expect(source.nextRunAt != nil && !source.hasDeltaLink && source.lastRun == nil)
                try await body(fixture, api, odata)
            }
        }
    }

    /// The read of the set numbered after `previous` once it ended: run here, or by the server's own
    /// loop (``GangwayServer/MobileServicesServer/pullDueDataSources()`` and the loop
    /// claim a read in the database, so one of them takes it).
    static func pull(_ fixture: ServerFixture, after previous: Int64 = 0) async throws -> DataSourceRun {
        for _ in 0..<3_000 {
            if let run = try await fixture.server.pullDueDataSources().first { return run }
            let source = try await fixture.server.storage.dataSource(appID: "checks", entitySet: "checks")
            if let source, let last = source.state.last, source.state.run > previous, source.state.runningUntil == nil {
                return last
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        throw TestServerError("no read of the set ended")
    }

    /// Asks for a read through the API, then waits for it.
    static func ask(_ fixture: ServerFixture, _ api: API, full: Bool = false) async throws -> DataSourceRun {
        let previous = try await fixture.server.storage.dataSource(appID: "checks", entitySet: "checks")?.state.run ?? 0
        try await api.admin(.post, "\(Self.path)/checks/pull\(full ? "?full=true" : "")").expect(.accepted)
        return try await pull(fixture, after: previous)
    }

    /// Every live entity of the set, by ID.
    static func entities(_ fixture: ServerFixture) async throws -> [String: [String: String]] {
        var all: [String: [String: String]] = [:]
        var after: String?
        while true {
            let page = try await fixture.server.storage.entities(
                appID: "checks",
                entitySet: "checks",
                after: after,
                limit: 20_000
            )
            for entity in page.entities { all[entity.id] = entity.fields }
            guard page.more, let last = page.entities.last else { return all }
            after = last.id
        }
    }

    @Test(
        "100,000 checks come in through next links as the server itself, then a delta of 50 brings only those",
        .enabled(if: TestODataBackend.isInstalled, "needs PyJWT in .build-oidc/venv (see .ci/run)"),
        arguments: Backend.available
    )
    func wholeThenDelta(backend: Backend) async throws {
        try await Self.withSource(backend: backend) { fixture, api, odata in
            try await odata.load(100_000)
            let first = try await Self.pull(fixture)
            #expect(first.error == nil, "\(first.error ?? "")")
            #expect(first.kind == .full && first.rows == 100_000 && first.tally.written == 100_000)
            #expect(first.tally.removed == 0 && first.tally.refusedCount == 0)
            var held = try await Self.entities(fixture)
            #expect(held.count == 100_000)
            // Values as written: a number's text, a boolean's word; null and annotations
            // are no fields, the key is the ID.
            #expect(
                held["C-0000007"]
                    == [
                        "Aircraft": "D-A007", "Station": "BER", "Status": "open", "TyrePressure": "207",
                        "Torque": "12.5", "Signed": "false",
                    ]
            )
            let stats = try await odata.stats()
            let subjects = Set(stats["subjects"] as? [String] ?? [])
            #expect(subjects == ["gangway:data-source"], "the service saw the server itself, by its signed token")
            #expect((stats["pages"] as? Int ?? 0) >= 20, "read a page at a time")
            #expect((stats["prefer"] as? [String] ?? []).allSatisfy { $0.contains("odata.track-changes") })

            let source = try await api.admin(.get, "\(Self.path)/checks").decode(Components.Schemas.DataSource.self)
            #expect(source.hasDeltaLink && !source.running && source.lastRun?.rows == 100_000)
            #expect(source.nextRunAt == nil, "read on demand only")

            // The company changes 30 checks and removes 20.
            let changed = (1...30).map { number in
                [
                    "ID": String(format: "C-%07d", number * 1_000), "Aircraft": "D-ABCD", "Status": "done",
                    "TyrePressure": 215,
                ] as [String: any Sendable]
            }
            let removed = (1...20).map { String(format: "C-%07d", $0 * 1_000 + 1) }
            try await odata.change(put: changed, remove: removed)
            let delta = try await Self.ask(fixture, api)
            #expect(delta.error == nil, "\(delta.error ?? "")")
            #expect(delta.kind == .delta && delta.rows == 50)
            #expect(delta.tally.written == 30 && delta.tally.removed == 20 && delta.fellBack == nil)
            held = try await Self.entities(fixture)
            #expect(held.count == 100_000 - 20)
            #expect(held["C-0005000"] == ["Aircraft": "D-ABCD", "Status": "done", "TyrePressure": "215"])
            #expect(held["C-0005001"] == nil)

            // Nothing changed: a delta of nothing.
            let none = try await Self.ask(fixture, api)
            #expect(none.kind == .delta && none.rows == 0 && none.tally == PullTally())
        }
    }

    @Test(
        "an expired delta link becomes a full read that removes what the company removed and keeps what devices changed",
        .enabled(if: TestODataBackend.isInstalled, "needs PyJWT in .build-oidc/venv (see .ci/run)"),
        arguments: Backend.available
    )
    func fallBackKeepsDeviceChanges(backend: Backend) async throws {
        try await Self.withSource(backend: backend) { fixture, api, odata in
            try await odata.load(40)
            #expect(try await Self.pull(fixture).tally.written == 40)
            let storage = fixture.server.storage
            let now = fixture.clock.now()
            // Changes since the company's version: C-1's Status, C-4's Note; C-2 removed.
            var one = try #require(
                try await storage.entities(appID: "checks", entitySet: "checks", ids: ["C-0000001"]).first
            )
            one.fields["Status"] = "done"
            one.fields["Signed"] = nil
            _ = try await storage.putEntity(one, limit: 1_000)
            var four = try #require(
                try await storage.entities(appID: "checks", entitySet: "checks", ids: ["C-0000004"]).first
            )
            four.fields["Note"] = "valve replaced"
            _ = try await storage.putEntity(four, limit: 1_000)
            #expect(try await storage.deleteEntity(appID: "checks", entitySet: "checks", id: "C-0000002", at: now))

            // The company changes C-1's pressure and C-2, removes C-3 and C-4, and its
            // delta links expire.
            try await odata.change(
                put: [
                    [
                        "ID": "C-0000001", "Aircraft": "D-A001", "Station": "MUC", "Status": "open",
                        "TyrePressure": 250,
                        "Torque": 12.5, "Signed": true,
                    ],
                    ["ID": "C-0000002", "Aircraft": "D-A002", "Status": "open"],
                ],
                remove: ["C-0000003", "C-0000004"]
            )
            try await odata.expireDeltaLinks()
            let run = try await Self.ask(fixture, api)
            #expect(run.error == nil, "\(run.error ?? "")")
            #expect(run.kind == .full && run.fellBack == "The backend answered 410.")
            let held = try await Self.entities(fixture)
            // The field merge: the device's Status and its removal of Signed stay, the
            // company's new pressure comes in.
            #expect(
                held["C-0000001"]
                    == [
                        "Aircraft": "D-A001", "Station": "MUC", "Status": "done", "TyrePressure": "250",
                        "Torque": "12.5",
                    ]
            )
            #expect(held["C-0000002"] == nil, "a device's removal stays")
            #expect(held["C-0000003"] == nil, "the company removed it")
            #expect(
                held["C-0000004"]?["Note"] == "valve replaced",
                "a device's change is not lost with the company's removal"
            )
            #expect(held.count == 38)
            #expect(run.tally.removed == 1 && run.tally.kept == 3)

            // An asked-for full read of the same rows writes nothing.
            let again = try await Self.ask(fixture, api, full: true)
            #expect(
                again.kind == .full && again.fellBack == nil && again.tally.written == 0 && again.tally.removed == 0
            )
        }
    }

    @Test(
        "a service that fails stops the read with its reason and keeps the link; the next read goes on",
        .enabled(if: TestODataBackend.isInstalled, "needs PyJWT in .build-oidc/venv (see .ci/run)"),
        arguments: Backend.available
    )
    func failingService(backend: Backend) async throws {
        try await Self.withSource(backend: backend) { fixture, api, odata in
            try await odata.load(10)
            _ = try await Self.pull(fixture)
            try await odata.change(put: [["ID": "C-0000001", "Status": "done"]])
            try await odata.fail(1)
            let failed = try await Self.ask(fixture, api)
            #expect(failed.error == "The backend answered 503." && failed.kind == .delta && failed.rows == 0)
            let source = try await api.admin(.get, "\(Self.path)/checks").decode(Components.Schemas.DataSource.self)
            #expect(source.hasDeltaLink && source.lastRun?.error == "The backend answered 503.")
            let next = try await Self.ask(fixture, api)
            #expect(next.error == nil && next.kind == .delta && next.tally.written == 1)

            // A broken service whose next link is the page it gave: the read stops there.
            try await odata.loop()
            let looped = try await Self.ask(fixture, api, full: true)
            #expect(looped.error == "The backend's next link leads to a page it gave already.")
            #expect(looped.tally.removed == 0, "a read that did not end removes nothing")
            #expect(try await Self.entities(fixture)["C-0000001"] == ["Status": "done"])
        }
    }

    @Test(
        "an admin's bad source is refused with its reason, nothing kept; reads of a set without one are 404",
        arguments: Backend.available
    )
    func refusals(backend: Backend) async throws {
        let fixture = try await ServerFixture(backend: backend)
        try await fixture.runSeeded { api in
            try await api.admin(
                .put,
                "/admin/apps/checks/destinations/erp",
                json: #"{"url": "https://erp.example.com/odata"}"#
            )
            .expect(.created)
            for (body, reason) in [
                (#"{"destination": "erp", "path": "/Checks%2Fx"}"#, "path must be segments"),
                (#"{"destination": "erp", "path": "/Checks/"}"#, "path must be segments"),
                (#"{"destination": "erp", "path": "/.hidden"}"#, "path must be segments"),
                (#"{"destination": "erp", "path": "Checks"}"#, "path must be segments"),
                (#"{"destination": "erp", "path": "/a/../Checks"}"#, "path must be segments"),
                (#"{"destination": "erp", "path": "/Checks?$top=1"}"#, "path must be segments"),
                (#"{"destination": "erp", "path": "/Checks", "keyProperty": "1d"}"#, "keyProperty must be"),
                (#"{"destination": "erp", "path": "/Checks", "everySeconds": 59}"#, "everySeconds must be from 60"),
            ] {
                let refused = try await api.admin(.put, "\(Self.path)/checks", json: body)
                #expect(refused.status == .badRequest && refused.text.contains(reason), "\(body): \(refused.text)")
            }
            let nowhere = try await api.admin(
                .put,
                "\(Self.path)/checks",
                json: #"{"destination": "crm", "path": "/Checks"}"#
            )
            #expect(nowhere.status == .notFound && nowhere.text.contains("DESTINATION_NOT_FOUND"), "\(nowhere.text)")
            #expect(try await fixture.server.storage.dataSources(appID: "checks").isEmpty)
            for (method, path) in [
                (HTTPRequest.Method.get, "\(Self.path)/checks"), (.delete, "\(Self.path)/checks"),
                (.post, "\(Self.path)/checks/pull"),
            ] {
                let missing = try await api.admin(method, path)
                #expect(missing.status == .notFound && missing.text.contains("DATA_SOURCE_NOT_FOUND"), "\(path)")
            }
            let added = try await api.admin(
                .put,
                "\(Self.path)/checks",
                json: #"{"destination": "erp", "path": "/Checks", "everySeconds": 900}"#
            )
            try added.expect(.created)
            let source = try added.decode(Components.Schemas.DataSource.self)
            #expect(source.keyProperty == "ID" && source.everySeconds == 900)
            let listed = try await api.admin(.get, Self.path).decode([Components.Schemas.DataSource].self)
            #expect(listed.map(\.entitySet) == ["checks"])
            try await api.admin(.delete, "\(Self.path)/checks").expect(.noContent)
            #expect(try await fixture.server.storage.dataSources(appID: "checks").isEmpty)
        }
    }
}
