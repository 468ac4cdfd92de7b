import AsyncHTTPClient
import Foundation
import GangwayServerTesting
import GangwayTesting
import NIOCore
import NIOHTTP1
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `gangway serve --metrics-port`: the operator's figures on an address of their own, read
/// by prometheus_client's parser as a scraper would, moving as the devices' requests come.
@Suite(
    "gangway serve --metrics-port: figures on their own address, in the Prometheus format, moving with the requests",
    .tags(.endToEnd),
    .skipsTags
)
struct MetricsEndToEndTests {
    /// A port nothing listens on now (the kernel's pick, released at once).
    static func freePort() throws -> Int {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                bind(socket, pointer, length) == 0 && getsockname(socket, pointer, &length) == 0
            }
        }
        guard bound else { throw ServeShutdownEndToEndTests.Refusal("no free port") }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// The exposition at `url`, parsed.
    static func scrape(_ url: String) async throws -> PrometheusExposition {
        var request = HTTPClientRequest(url: url)
        request.method = .GET
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(30))
        #expect(response.status.code == 200)
        #expect(response.headers.first(name: "Content-Type")?.hasPrefix("text/plain; version=0.0.4") == true)
        let body = try await response.body.collect(upTo: 16 << 20)
        return try await PrometheusExposition.parse(String(buffer: body))
    }

    @Test(
        "scraped twice: the requests between are counted by route and status, the sign-ins by outcome; devices' address serves no figure",
        .enabled(if: PrometheusExposition.isInstalled, "needs prometheus_client in .build-oidc/venv (see .ci/run)")
    )
    func scrapedAsRequestsCome() async throws {
        let directory = try TemporaryDirectory(prefix: "gangway-metrics")
        defer { directory.remove() }
        let metricsPort = try Self.freePort()
        let serve = try await ServeProcess(
            ["--demo", "--metrics-port", "\(metricsPort)", "--log-level", "warning"],
            in: directory.appending("server")
        )
        defer { serve.stop() }
        let metrics = "http://127.0.0.1:\(metricsPort)/metrics"
        let first = try await Self.scrape(metrics)
        let health = ["route": "/health", "method": "GET", "status": "200"]
        let refused = ["route": "/apps/{appID}/sessions", "method": "POST", "status": "401"]
        let healthBefore = first.value("gangway_http_requests_total", health) ?? 0

        for _ in 0..<4 {
            #expect(try await DestinationStreamingEndToEndTests.call(.GET, serve.url + "/health").status == 200)
        }
        let wrong = try await DestinationStreamingEndToEndTests.call(
            .POST,
            serve.url + "/apps/checks/sessions",
            json: #"{"username": "alice", "password": "not-hers", "deviceID": "stand-4"}"#
        )
        #expect(wrong.status == 401)
        let right = try await DestinationStreamingEndToEndTests.call(
            .POST,
            serve.url + "/apps/checks/sessions",
            json: #"{"username": "alice", "password": "preflight-alice", "deviceID": "stand-4"}"#
        )
        #expect(right.status == 201)
        // The devices' address has no figures.
        #expect(try await DestinationStreamingEndToEndTests.call(.GET, serve.url + "/metrics").status == 404)

        let second = try await Self.scrape(metrics)
        #expect(second.value("gangway_http_requests_total", health) == healthBefore + 4)
        #expect(second.value("gangway_http_requests_total", refused) == 1)
        #expect(second.value("gangway_sign_ins_total", ["outcome": "refused"]) == 1)
        #expect(second.value("gangway_sign_ins_total", ["outcome": "succeeded"]) == 1)
        let histogram = second.samples(named: "gangway_http_request_duration_seconds_bucket").filter {
            $0.labels["route"] == "/health"
        }
        #expect(histogram.first { $0.labels["le"] == "+Inf" }?.value == healthBefore + 4)
        #expect(histogram.first?.type == "histogram")
        #expect(second.value("process_start_time_seconds").map { $0 > 1_700_000_000 } == true)
        #expect(!second.samples.contains { $0.labels.values.contains("alice") }, "no user name as a label")

        // The metrics' address serves nothing else.
        #expect(
            try await DestinationStreamingEndToEndTests.call(.GET, "http://127.0.0.1:\(metricsPort)/health").status
                == 404
        )
    }

    @Test(
        "a silent connection to the metrics' address is closed after the head timeout; silent ones never starve a scrape"
    )
    func silentConnections() async throws {
        let directory = try TemporaryDirectory(prefix: "gangway-metrics")
        defer { directory.remove() }
        let metricsPort = try Self.freePort()
        let serve = try await ServeProcess(
            ["--metrics-port", "\(metricsPort)", "--log-level", "warning"],
            in: directory.appending("server")
        )
        defer { serve.stop() }
        // More silent connections from one address than it may hold.
        let silent = try (0..<40).map { _ in try ServeShutdownEndToEndTests.Connection(port: metricsPort) }
        let scraped = try await Self.scrape("http://127.0.0.1:\(metricsPort)/metrics")
        #expect(scraped.value("process_open_fds").map { $0 > 0 } == true)
        let started = ContinuousClock.now
        let last = try #require(silent.last)
        let said = try await onOwnThread { last.readToEnd() }
        let waited = ContinuousClock.now - started
        #expect(said.isEmpty || said.hasPrefix("HTTP/1.1 "), "closed, or answered 503 and closed: \(said.prefix(80))")
        #expect(waited < .seconds(30), "closed within the head timeout, not held: \(waited)")
    }

    @Test("the metrics' address is refused where it would share the devices' or be without a port, exit 64")
    func refusedAddresses() async throws {
        let directory = try TemporaryDirectory(prefix: "gangway-metrics")
        defer { directory.remove() }
        let runner = GangwayProcess(deviceKeys: directory.appending("keys"))
        let data = ["--data-dir", directory.appending("server").path]
        let same = try await runner.run(["serve", "--port", "18123", "--metrics-port", "18123"] + data)
        #expect(same.status == 64)
        #expect(same.standardError.contains("--metrics-port must differ from the ports"), "\(same.standardError)")
        let hostOnly = try await runner.run(["serve", "--metrics-host", "127.0.0.1"] + data)
        #expect(hostOnly.status == 64 && hostOnly.standardError.contains("--metrics-host needs --metrics-port."))
        let outOfRange = try await runner.run(["serve", "--metrics-port", "70000"] + data)
        #expect(outOfRange.status == 64 && outOfRange.standardError.contains("--metrics-port must be between 0 and"))
        let badHost = try await runner.run(["serve", "--metrics-port", "0", "--metrics-host", "example.com:90"] + data)
        #expect(
            badHost.status == 64 && badHost.standardError.contains("--metrics-host 'example.com:90' is not an address")
        )
        #expect(!FileManager.default.fileExists(atPath: directory.appending("server").path), "nothing written")
    }
}
