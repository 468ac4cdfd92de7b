import AsyncHTTPClient
import Foundation
import GangwayServerTesting
import GangwaySystem
import GangwayTesting
import NIOCore
import NIOHTTP1
import Testing

/// Spans through the built server, exported by OTLP over HTTP to a receiver that decodes
/// them as a collector does (``TestTraceCollector``, `opentelemetry-proto` from PyPI): one
/// request's spans are linked from the device's `traceparent`, through the server's span
/// and its statements, to the call that reached the company's backend; and the options
/// refuse what is not an export.
@Suite(
    "Traces through the built server: one request's spans linked from the device to the destination",
    .tags(.endToEnd),
    .skipsTags
)
struct TracingEndToEndTests {
    typealias Call = DestinationStreamingEndToEndTests
    static let deviceTrace = "4bf92f3577b34da6a3ce929d0e0e4736"
    static let deviceSpan = "00f067aa0ba902b7"

    /// A GET with a `traceparent` of the device's; the status and the JSON answer.
    static func traced(_ url: String, token: String) async throws -> (status: UInt, body: [String: Any]) {
        var request = HTTPClientRequest(url: url)
        request.headers.add(name: "Authorization", value: "Bearer \(token)")
        request.headers.add(name: "traceparent", value: "00-\(deviceTrace)-\(deviceSpan)-01")
        request.headers.add(name: "tracestate", value: "vendor=opaque")
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(30))
        let body = try await response.body.collect(upTo: 1 << 20)
        let json = try JSONSerialization.jsonObject(with: Data(body.readableBytesView)) as? [String: Any] ?? [:]
        return (response.status.code, json)
    }

    @Test(
        "device traceparent → request span → its statements and the upstream call → the backend's parent; nothing secret",
        .enabled(
            if: TestDestinationBackend.isInstalled && TestTraceCollector.isInstalled,
            "needs PyJWT and opentelemetry-proto in .build-oidc/venv (see .ci/run)"
        )
    )
    func linked() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try await TestTraceCollector.using { collector in
            // OpenTelemetry's own variables change nothing: the spans go where serve says.
            let serve = try await ServeProcess(
                ["--demo", "--otlp-endpoint", collector.url],
                in: directory.appending("server"),
                environment: [
                    "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://127.0.0.1:9/v1/traces",
                    "OTEL_TRACES_SAMPLER": "always_off", "OTEL_SDK_DISABLED": "true",
                ]
            )
            #expect(serve.printed.contains("Traces: every trace, by OTLP over HTTP to \(collector.url)/v1/traces"))
            let url = serve.url
            let issuer = url + "/apps/checks"
            let admin = GangwayProcess(deviceKeys: directory.appending("device-keys"))
            let reach = ["--server", url, "--token-file", serve.tokenFile]
            let (token, traceparent, tracestate): (String, String?, String?)
            do {
                defer { serve.stop() }
                (token, traceparent, tracestate) = try await TestDestinationBackend.using(
                    jwks: issuer + "/destination-keys",
                    issuer: issuer
                ) {
                    backend in
                    let added = try await admin.run(
                        ["admin", "destinations", "add", "files", "--url", backend.url] + reach
                    )
                    #expect(added.status == 0, "\(added.standardError)")
                    let token = try await Call.registeredSession(url, device: "stand-12")
                    let probe = try await Call.call(.GET, url + "/health/ready")
                    #expect(probe.status == 200)
                    let reply = try await Self.traced(url + "/apps/checks/destinations/files/trace", token: token)
                    #expect(reply.status == 200, "\(reply)")
                    return (token, reply.body["traceparent"] as? String, reply.body["tracestate"] as? String)
                }
            }
            // Stopped: the server sent its last spans before it ended.
            let spans = try await collector.spans(within: 10) { spans in
                spans.contains { $0.traceID == Self.deviceTrace && $0.kind == "SPAN_KIND_SERVER" }
            }
            let trace = spans.filter { $0.traceID == Self.deviceTrace }
            let request = try #require(
                trace.first { $0.kind == "SPAN_KIND_SERVER" },
                "\(spans.map(\.name))"
            )
            #expect(request.name == "GET /apps/{appID}/destinations/{destination}/*")
            #expect(request.parentSpanID == Self.deviceSpan, "the device's span is the request's parent")
            #expect(request.service == "gangway")
            #expect(request.attributes["http.response.status_code"]?.description == "200")
            #expect(request.attributes["http.route"]?.description == "/apps/{appID}/destinations/{destination}/*")
            let upstream = try #require(trace.first { $0.kind == "SPAN_KIND_CLIENT" && $0.name == "GET destination" })
            #expect(upstream.parentSpanID == request.spanID)
            #expect(upstream.attributes["gangway.destination"]?.description == "files")
            #expect(upstream.attributes["http.response.status_code"]?.description == "200")
            // What the backend was sent names the upstream call's span as its parent.
            let sent = try #require(traceparent).split(separator: "-").map(String.init)
            #expect(sent.count == 4 && sent[1] == Self.deviceTrace && sent[2] == upstream.spanID, "\(sent)")
            #expect(tracestate == "vendor=opaque")
            // The request's statements: spans of its, named by kind and table, never values.
            let statements = trace.filter { $0.attributes["db.system.name"]?.description == "sqlite" }
            let shown = trace.map { "\($0.name) \($0.spanID) <- \($0.parentSpanID ?? "-") \($0.attributes)" }
            #expect(!statements.isEmpty, "\(shown)")
            let ids = Set(trace.map(\.spanID))
            #expect(statements.allSatisfy { $0.parentSpanID.map(ids.contains) == true }, "\(shown)")
            #expect(
                statements.allSatisfy {
                    $0.name.hasPrefix("SELECT ") || $0.name.hasPrefix("INSERT ") || $0.name.hasPrefix("UPDATE ")
                        || $0.name == "transaction" || $0.name.hasPrefix("DELETE ")
                },
                "\(statements.map(\.name))"
            )
            #expect(
                statements.contains { $0.name == "SELECT sessions" || $0.name == "SELECT devices" },
                "\(statements.map(\.name))"
            )

            // The probe made no span; the sign-in made its own trace.
            #expect(!spans.contains { $0.name.contains("/health") })
            #expect(spans.contains { $0.name == "POST /apps/{appID}/sessions" && $0.traceID != Self.deviceTrace })
            // No span names a person, a device, a token or a password, nor a URL whole.
            #expect(!spans.contains { $0.attributes["url.full"] != nil }, "only the server's own spans")
            let everything = spans.map { "\($0.name) \($0.attributes.values.map(\.description))" }.joined()
            for secret in [token, "alice", "stand-12", "preflight-alice"] {
                #expect(!everything.contains(secret), "a span holds \(secret)")
            }
        }
    }

    @Test("serve --otlp-endpoint takes an http(s) collector, --trace-sample-ratio 0 to 1: else one sentence, exit 64")
    func options() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let runner = GangwayProcess(deviceKeys: directory.appending("device-keys"))
        let refused: [([String], String)] = [
            (["--otlp-endpoint", "ftp://127.0.0.1:4318"], "--otlp-endpoint"),
            (["--otlp-endpoint", "127.0.0.1:4318"], "--otlp-endpoint"),
            (["--otlp-endpoint", "http://user:secret@127.0.0.1:4318"], "--otlp-endpoint"),
            (["--otlp-endpoint", "http://127.0.0.1:4318?x=1"], "--otlp-endpoint"),
            (["--otlp-endpoint", ""], "--otlp-endpoint"),
            (["--trace-sample-ratio", "0.5"], "--trace-sample-ratio"),
            (["--otlp-endpoint", "http://127.0.0.1:4318", "--trace-sample-ratio", "1.5"], "--trace-sample-ratio"),
            (["--otlp-endpoint", "http://127.0.0.1:4318", "--trace-sample-ratio", "-0.1"], "--trace-sample-ratio"),
            (["--otlp-endpoint", "http://127.0.0.1:4318", "--trace-sample-ratio", "nan"], "--trace-sample-ratio"),
            (["--otlp-endpoint", "http://127.0.0.1:4318", "--trace-sample-ratio", "half"], "--trace-sample-ratio"),
        ]
        for (arguments, option) in refused {
            let result = try await runner.run(["serve", "--data-dir", directory.appending("server").path] + arguments)
            #expect(result.status == 64, "\(arguments): \(result.standardError)")
            #expect(result.standardError.contains(option), "\(arguments): \(result.standardError)")
            #expect(!result.standardError.contains("secret"), "\(result.standardError)")
            #expect(!result.standardError.contains("Fatal"))
            #expect(!FileManager.default.fileExists(atPath: directory.appending("server").path))
        }
        let checked = try await runner.run(
            [
                "serve", "--data-dir", directory.appending("server").path, "--check-config",
                "--otlp-endpoint", "http://127.0.0.1:4318", "--trace-sample-ratio", "0.25",
            ]
        )
        #expect(checked.status == 0, "\(checked.standardError)")
        #expect(checked.output.contains("otlp-endpoint") && checked.output.contains("http://127.0.0.1:4318"))
        #expect(checked.output.contains("0.25"), "\(checked.output)")
    }
}
