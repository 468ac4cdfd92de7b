import Foundation
import GangwayProtocol
import GangwayServer
import GangwayServerStorage
import GangwayServerTesting
import GangwayTesting
import InMemoryTracing
import Testing
import Tracing

/// The server's spans where no device's request starts the work, or where the request
/// calls a third party: a data source's read and a change's delivery are each a trace of
/// their own, with their calls and statements inside; a federated sign-in's calls to the
/// provider (discovery, token endpoint, key set) are spans of the request that made them.
/// The tracer is swift-distributed-tracing's in-memory one; the end-to-end suite has the
/// OTLP export (`TracingEndToEndTests`).
@Suite(
    "Spans of work no device asked for, and of calls to providers, each in the trace it belongs to",
    .servingTurn
)
struct ServerSpanTests {
    /// The chain of parents of `span`, nearest first.
    static func ancestors(of span: FinishedInMemorySpan, in spans: [FinishedInMemorySpan]) -> [FinishedInMemorySpan] {
        var chain: [FinishedInMemorySpan] = []
        var parent = span.parentSpanID
        while let id = parent, let next = spans.first(where: { $0.spanID == id }) {
            chain.append(next)
            parent = next.parentSpanID
        }
        return chain
    }

    @Test(
        "a data source read: a trace of its own, its pages client spans in it, its statements inside",
        .enabled(if: TestODataBackend.isInstalled, "needs PyJWT in .build-oidc/venv (see .ci/run)")
    )
    func dataSourceRead() async throws {
        let tracer = InMemoryTracer()
        try await DataSourceTests.withSource(backend: .sqlite, tracer: ServerTracer(tracer)) { fixture, _, odata in
            try await odata.load(10)
            let run = try await DataSourceTests.pull(fixture)
            #expect(run.error == nil && run.rows == 10, "\(run)")
            let spans = tracer.finishedSpans
            let reads = spans.filter {
                $0.operationName == "data source read" && $0.attributes["gangway.read.rows"] != nil
            }
            let read = try #require(reads.first, "\(spans.map(\.operationName))")
            #expect(read.parentSpanID == nil, "no request started it")
            #expect(read.attributes["gangway.entity_set"]?.toSpanAttribute() == "checks")
            #expect(read.attributes["gangway.read.kind"]?.toSpanAttribute() == "full")
            let pages = spans.filter { $0.operationName == "GET data source page" && $0.traceID == read.traceID }
            #expect(!pages.isEmpty && pages.allSatisfy { $0.kind == .client })
            #expect(pages.allSatisfy { $0.attributes["http.response.status_code"]?.toSpanAttribute() == 200 })
            let statements = spans.filter { $0.attributes["db.system.name"] != nil && $0.traceID == read.traceID }
            #expect(statements.contains { $0.operationName.hasPrefix("INSERT ") }, "\(statements.map(\.operationName))")
            #expect(statements.allSatisfy { Self.ancestors(of: $0, in: spans).contains { $0.spanID == read.spanID } })
        }
    }

    @Test(
        "a change's delivery: a trace of its own, a client span with its outcome; the upload that queued it, another",
        .enabled(if: TestODataBackend.isInstalled, "needs PyJWT in .build-oidc/venv (see .ci/run)")
    )
    func changeDelivery() async throws {
        let tracer = InMemoryTracer()
        try await ChangeDeliveryTests.withDelivery(backend: .sqlite, tracer: ServerTracer(tracer)) {
            fixture,
            api,
            _,
            alice,
            _ in
            let change = alice.change(sequence: 1, entity: "C-0000001", ["Status": "done"])
            let held = try await ChangeUploadTests.upload([change], by: alice, api: api)
            #expect(held.map(\.outcome) == [.held], "\(held)")
            try await ChangeDeliveryTests.deliverAll(fixture)
            // The server's own loop may have claimed the delivery, and be ending it.
            for _ in 0..<100 where !tracer.finishedSpans.contains(where: { $0.operationName.hasSuffix("delivery") }) {
                try await Task.sleep(for: .milliseconds(50))
            }
            let spans = tracer.finishedSpans
            let delivery = try #require(
                spans.first { $0.operationName == "PATCH change delivery" },
                "\(spans.map(\.operationName))"
            )
            #expect(delivery.parentSpanID == nil && delivery.kind == .client)
            #expect(delivery.attributes["gangway.delivery.outcome"]?.toSpanAttribute() == "accepted")
            #expect(delivery.attributes["gangway.destination"]?.toSpanAttribute() == "erp")
            let upload = try #require(
                spans.first {
                    $0.kind == .server && $0.operationName.hasPrefix("POST ") && $0.operationName.contains("changes")
                }
            )
            #expect(upload.traceID != delivery.traceID)
        }
    }

    @Test(
        "a federated sign-in: discovery, the token endpoint and the key set are client spans of the callback's request",
        .enabled(if: TestIdentityProvider.isInstalled, "needs oidc-provider-mock in .build-oidc/venv (see .ci/run)")
    )
    func providerCalls() async throws {
        let tracer = InMemoryTracer()
        try await FederatedSignInTests.withProvider(tracer: ServerTracer(tracer)) { _, api, provider in
            try await FederatedSignInTests.setUp(api, provider)
            _ = try await FederatedSignInTests.signIn(api, provider, subject: "idp-carol-1")
            let spans = tracer.finishedSpans
            let token = try #require(
                spans.first { $0.operationName == "POST token endpoint" },
                "\(spans.map(\.operationName))"
            )
            #expect(token.kind == .client)
            #expect(token.attributes["http.response.status_code"]?.toSpanAttribute() == 200)
            #expect(token.attributes["server.address"]?.toSpanAttribute() == "127.0.0.1")
            let request = try #require(Self.ancestors(of: token, in: spans).last)
            #expect(
                request.kind == .server && request.operationName.hasPrefix("GET /apps/{appID}/oauth/"),
                "\(request.operationName)"
            )
            let calls = spans.filter { $0.kind == .client && $0.attributes["db.system.name"] == nil }.map(
                \.operationName
            )
            #expect(
                Set(calls).isSuperset(of: ["GET discovery document", "POST token endpoint", "GET key set"]),
                "\(calls)"
            )
            // No span holds the provider's client secret, a code or a token.
            let attributes = spans.map { "\($0.operationName) \($0.attributes)" }.joined()
            #expect(!attributes.contains("provider-secret-1") && !attributes.contains("carol"), "\(attributes)")
        }
    }

    @Test(
        "an export's collector: spans go to its v1/traces, once; a URL of another scheme, with credentials or a query, or a ratio past 0 to 1, is refused"
    )
    func exportSettings() throws {
        #expect(try TraceExport(endpoint: "http://127.0.0.1:4318").tracesURL == "http://127.0.0.1:4318/v1/traces")
        #expect(try TraceExport(endpoint: "https://otel.example/").tracesURL == "https://otel.example/v1/traces")
        #expect(try TraceExport(endpoint: "http://[::1]:4318/otlp").tracesURL == "http://[::1]:4318/otlp/v1/traces")
        // Written as the traces' own endpoint: used as it is, not given v1/traces twice.
        #expect(
            try TraceExport(endpoint: "http://collector:4318/v1/traces").tracesURL == "http://collector:4318/v1/traces"
        )
        #expect(
            try TraceExport(endpoint: "http://collector/otlp/v1/traces/").tracesURL == "http://collector/otlp/v1/traces"
        )
        #expect(try TraceExport(endpoint: "http://collector:4318", sampleRatio: 0).sampleRatio == 0)
        for endpoint in [
            "ftp://collector", "collector:4318", "http://", "http://user:pw@collector", "http://collector?x=1",
            "http://collector#top", "", "http://user@collector",
        ] {
            #expect(throws: TraceExportError.self, "\(endpoint)") { try TraceExport(endpoint: endpoint) }
        }
        for ratio in [-0.01, 1.01, .nan, .infinity] {
            #expect(throws: TraceExportError.self, "\(ratio)") {
                try TraceExport(endpoint: "http://collector:4318", sampleRatio: ratio)
            }
        }
    }
}
