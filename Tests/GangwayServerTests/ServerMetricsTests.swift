import Foundation
import GangwayProtocol
import GangwayServerTesting
import GangwayTesting
import HTTPTypes
import Testing

@testable import GangwayServer

/// The operator's figures: requests by route template, sign-ins and changes by outcome,
/// read back by a real Prometheus parser; no label takes a value a caller chose.
@Suite(
    "Metrics: the server's figures move with its requests, labelled by routes and outcomes, never by callers' words",
    .servingTurn
)
struct ServerMetricsTests {
    @Test(
        "requests, sign-ins and changes are counted; paths, IDs and user names sent never become labels",
        .enabled(if: PrometheusExposition.isInstalled, "needs prometheus_client in .build-oidc/venv (see .ci/run)")
    )
    func countedAndBounded() async throws {
        let fixture = try await ServerFixture { $0.metricsAddress = .init(host: "127.0.0.1", port: 0) }
        try await fixture.runSeeded { api in
            let metrics = fixture.server.metrics
            #expect(metrics.isRecording)
            let before = try await PrometheusExposition.parse(String(decoding: metrics.exposition(), as: UTF8.self))
            #expect(before.value("gangway_http_requests_total", Self.ready) == nil, "nothing counted yet")

            for _ in 0..<3 { try await api.send(.get, "/health/ready").expect(.ok) }
            // A HEAD is answered as its GET, and counted as what it was.
            for _ in 0..<2 { try await api.send(.head, "/health/ready").expect(.ok) }
            // Words a caller chooses: in paths, in user names, in IDs.
            let chosen = (0..<20).map { _ in "x" + UUID().uuidString.lowercased().prefix(12) }
            for word in chosen.prefix(10) {
                _ = try await api.send(.get, "/\(word)/settings")
                _ = try await api.send(.get, "/apps/\(word)/entities/\(word)")
            }
            for word in chosen.suffix(10) {
                let refused = try await api.send(
                    .post,
                    "/apps/checks/sessions",
                    json: #"{"username": "\#(word)", "password": "not-it", "deviceID": "\#(word)"}"#
                )
                #expect(refused.status == .unauthorized)
            }
            let (alice, _) = try await ChangeUploadTests.prepared(api)
            let applied = try await ChangeUploadTests.upload(
                [alice.change(sequence: 1, ["status": "done"])],
                by: alice,
                api: api
            )
            #expect(applied.map(\.outcome) == [.applied])

            let after = try await PrometheusExposition.parse(String(decoding: metrics.exposition(), as: UTF8.self))
            #expect(after.value("gangway_http_requests_total", Self.ready) == 3)
            #expect(
                after.value(
                    "gangway_http_requests_total",
                    ["route": "/health/ready", "method": "HEAD", "status": "200"]
                ) == 2
            )
            #expect(
                after.value("gangway_http_request_duration_seconds_count", ["route": "/health/ready", "method": "GET"])
                    == 3
            )
            #expect(after.value("gangway_sign_ins_total", ["outcome": "refused"]) == 10)
            #expect(after.value("gangway_sign_ins_total", ["outcome": "succeeded"]) == 2, "alice and bob")
            #expect(after.value("gangway_changes_total", ["outcome": "applied"]) == 1)
            let unmatched = after.samples(named: "gangway_http_requests_total").filter {
                $0.labels["route"] == "unmatched"
            }
            #expect(unmatched.map(\.value).reduce(0, +) >= 10, "the unknown paths, under one label")
            #expect(
                after.value(
                    "gangway_http_requests_total",
                    ["route": "/apps/{appID}/sessions", "method": "POST", "status": "401"]
                ) == 10
            )
            #expect(after.value("process_resident_memory_bytes").map { $0 > 0 } == true)
            #expect(after.value("process_open_fds").map { $0 > 0 } == true)
            // Processor time is a counter, as Prometheus's process figures have it, and never
            // goes back.
            let text = String(decoding: metrics.exposition(), as: UTF8.self)
            #expect(text.contains("# TYPE process_cpu_seconds_total counter"), "\(text.prefix(2000))")
            let cpu = try #require(after.value("process_cpu_seconds_total"))
            let again = try await PrometheusExposition.parse(text)
            #expect(cpu > 0 && (again.value("process_cpu_seconds_total") ?? 0) >= cpu)

            // Bounded: every label value is the server's own, never a word a caller sent.
            let values = after.samples.flatMap { $0.labels.values }
            for word in chosen { #expect(!values.contains { $0.contains(word) }, "\(word) became a label") }
            let routes = Set(after.samples.compactMap { $0.labels["route"] })
            let document = try RouteTable(document: try APIDocument.json())
            for route in routes where route != GatewayMiddleware.unmatchedRoute {
                #expect(document.template(for: route) == route, "\(route) is one of the document's paths")
            }
        }
    }

    static let ready = ["route": "/health/ready", "method": "GET", "status": "200"]

    @Test(
        "the read cache by kind, token requests by grant and outcome, sync pages, waiting devices and PostgreSQL's connections",
        .enabled(if: PrometheusExposition.isInstalled, "needs prometheus_client in .build-oidc/venv (see .ci/run)"),
        arguments: Backend.available
    )
    func storageSyncAndTokens(backend: Backend) async throws {
        let fixture = try await ServerFixture(over: .loopback, backend: backend) {
            $0.metricsAddress = .init(host: "127.0.0.1", port: 0)
            // A minute: the reads below are hits however slowly a loaded machine runs them.
            $0.cacheLifetime = .seconds(60)
        }
        try await fixture.runSeeded { api in
            let metrics = fixture.server.metrics
            func scrape() async throws -> PrometheusExposition {
                try await PrometheusExposition.parse(String(decoding: metrics.exposition(), as: UTF8.self))
            }
            let token = try await api.signIn("alice")
            _ = try await api.register(token: token)
            let first = try await scrape()
            let hits = first.value("gangway_read_cache_total", ["kind": "session", "result": "hit"]) ?? 0
            // The same session, read again within the cache's lifetime: hits.
            for _ in 0..<5 { try await api.send(.get, "/apps/checks/settings", token: token).expect(.ok) }
            // A refresh grant for an app that does not sign in with OAuth, and a grant of no kind.
            for grant in ["refresh_token", "password"] {
                let refused = try await OAuthDeviceGrantTests.form(
                    api,
                    "/apps/checks/oauth/token",
                    [("grant_type", grant), ("client_id", "checks"), ("refresh_token", "none")]
                )
                #expect(refused.status.code >= 400)
            }
            let sync = try await api.send(.get, "/apps/checks/data/checks/changes?limit=1000", token: token)
            try api.expectStatus(sync, .ok)
            let cursor = try sync.decode(Components.Schemas.EntityChanges.self).cursor
            // A device waiting for a change, on a connection of its own: counted while it
            // waits, not after.
            async let waited = api.sendAlone(
                .get,
                "/apps/checks/data/checks/changes?cursor=\(cursor)&wait=\(APILimits.syncWait.upperBound)",
                token: token
            )
            #expect(try await eventually { try await scrape().value("gangway_sync_waiting_devices") == 1 })
            try api.expectStatus(
                try await api.admin(
                    .put,
                    "/admin/apps/checks/data/checks/M-1",
                    json: #"{"fields": {"status": "open"}}"#
                ),
                .created
            )
            try api.expectStatus(try await waited, .ok)
            // A wait that no change ends is a page after a wait too.
            let next = try (try await waited).decode(Components.Schemas.EntityChanges.self).cursor
            try await api.send(
                .get,
                "/apps/checks/data/checks/changes?cursor=\(next)&wait=\(APILimits.syncWait.lowerBound)",
                token: token
            ).expect(.ok)

            let after = try await scrape()
            #expect((after.value("gangway_read_cache_total", ["kind": "session", "result": "hit"]) ?? 0) >= hits + 4)
            #expect((after.value("gangway_read_cache_total", ["kind": "app", "result": "miss"]) ?? 0) >= 1)
            #expect(
                after.value(
                    "gangway_oauth_token_requests_total",
                    ["grant": "refresh_token", "outcome": "unauthorized_client"]
                ) == 1
            )
            #expect(
                after.value(
                    "gangway_oauth_token_requests_total",
                    ["grant": "other", "outcome": "unauthorized_client"]
                ) == 1
            )
            #expect(after.value("gangway_sync_pages_total", ["waited": "no"]) == 1)
            #expect(after.value("gangway_sync_pages_total", ["waited": "yes"]) == 2)
            #expect(after.value("gangway_sync_waiting_devices") == 0)
            if backend == .postgresql {
                // The server's own loops (deliveries due, data sources due) take a
                // connection for a moment several times a second: idle is when none does.
                #expect(
                    try await eventually {
                        let now = try await scrape()
                        return now.value("gangway_database_connections_in_use") == 0
                            && now.value("gangway_database_connections_awaited") == 0
                    }
                )
                #expect(after.value("gangway_database_connections_in_use") != nil, "the pool is counted")
            } else {
                #expect(after.value("gangway_database_connections_in_use") == nil, "SQLite has no pool to count")
            }
        }
    }

    @Test("without a metrics listener nothing is recorded: the requests pay for no figure")
    func offWithoutAListener() async throws {
        let fixture = try await ServerFixture()
        try await fixture.runSeeded { api in
            try await api.send(.get, "/health/ready").expect(.ok)
            let metrics = fixture.server.metrics
            #expect(!metrics.isRecording)
            #expect(!String(decoding: metrics.exposition(), as: UTF8.self).contains("gangway_http_requests_total"))
        }
    }

    @Test("a path goes to its route's template, a fixed segment before a parameter; a method of no route is other")
    func templates() throws {
        let table = try RouteTable(
            document: Data(
                #"{"paths": {"/apps/{appID}": {"get": {}}, "/apps/import": {"post": {}}, "/apps/{appID}/users/{user}": {"get": {}}}}"#
                    .utf8
            )
        )
        #expect(table.template(for: "/apps/checks") == "/apps/{appID}")
        #expect(table.template(for: "/apps/import") == "/apps/import")
        #expect(table.template(for: "/apps/checks/users/alice") == "/apps/{appID}/users/{user}")
        #expect(table.template(for: "/apps/checks/users") == nil)
        #expect(table.template(for: "/elsewhere") == nil)

        let metrics = ServerMetrics()
        metrics.request(route: "/apps/{appID}", method: "BREW", status: 405, duration: .milliseconds(1))
        let text = String(decoding: metrics.exposition(), as: UTF8.self)
        #expect(text.contains(#"method="other""#))
        #expect(!text.contains("BREW"))
    }
}
